// matrixx board: the page. Plain JavaScript, no framework, nothing fetched
// from elsewhere. State comes from the server's stream (/api/stream: a
// "reset" with every card, then a "patch" per change); every request
// carries the per-run secret in the X-Matrixx-Token header. In an export
// (matrixx board --export) the state is embedded and the page is read-only.
'use strict';

const $ = (sel, el) => (el || document).querySelector(sel);
const STATES = ['ready', 'blocked', 'in_progress', 'completed'];
const PRI = { high: 0, medium: 1, '': 2, low: 3 };
const PAGE = 100;

const S = {
  cards: new Map(), plans: [], me: '', project: '', events: [], skew: 0,
  readOnly: false, token: '', view: 'board', selected: '',
  limit: { ready: PAGE, blocked: PAGE, in_progress: PAGE, completed: PAGE },
  f: { text: '', label: '', owner: '', plan: '', done: true },
  painted: false,
  // els caches each drawn card's element with the key of what it shows, so
  // a change redraws the cards that changed, not every card on the page.
  els: new Map(), epoch: 0, labels: new Set(), owners: new Set(),
};
window.__board = S; // for tests and the curious: the page's state

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) el.append(k.nodeType ? k : String(k));
  return el;
}

function toast(msg, err) {
  const t = $('#toast');
  t.textContent = msg; t.className = err ? 'err' : ''; t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, err ? 8000 : 3000);
}

// ---- time ----
function now() { return Date.now() + S.skew; }
function short(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return s + 's';
  if (s < 3600) return Math.round(s / 60) + 'm';
  if (s < 172800) return Math.round(s / 3600) + 'h';
  return Math.round(s / 86400) + 'd';
}
function leaseText(c) {
  if (!c.leaseEnds) return c.state === 'in_progress' ? 'no lease' : '';
  const d = Date.parse(c.leaseEnds) - now();
  return d > 0 ? short(d) + ' left' : 'lease expired ' + short(d) + ' ago';
}
function listText(xs, n) { return xs.slice(0, n).join(', ') + (xs.length > n ? ` +${xs.length - n}` : ''); }
// whereText is the checkout a claim was made in: its branch, and the
// worktree's directory name when it is not the project's own.
function whereText(c) {
  const base = p => (p || '').replace(/\/+$/, '').split('/').pop();
  const wt = c.worktree && c.worktree !== S.project ? base(c.worktree) : '';
  return (c.branch || '(detached)') + (wt ? ' in ' + wt : '');
}
function handle(id) { const c = S.cards.get(id); return c ? c.h : id.slice(-4); }

// ---- state from the server ----
function reset(d) {
  S.cards = new Map(d.cards.map(c => [c.id, c]));
  S.els = new Map(); S.epoch++;
  S.plans = d.plans || [];
  S.me = d.me || ''; S.project = d.project || ''; S.readOnly = !!d.readOnly;
  if (d.now) S.skew = Date.parse(d.now) - Date.now();
  if (d.events) S.events = d.events.slice().reverse();
  fillFilters(); schedule();
}
function applyPatch(p) {
  let refill = !!p.plans;
  for (const c of p.upsert || []) {
    const old = S.cards.get(c.id);
    if (old && old.h !== c.h) S.epoch++; // handles shown on other cards changed
    S.cards.set(c.id, c);
    refill = refill || (c.owner && !S.owners.has(c.owner)) || (c.labels || []).some(l => !S.labels.has(l));
  }
  for (const id of p.removed || []) { S.cards.delete(id); S.els.delete(id); }
  if (p.plans) S.plans = p.plans;
  if (p.now) S.skew = Date.parse(p.now) - Date.now();
  for (const e of p.events || []) S.events.unshift(e);
  S.events.length = Math.min(S.events.length, 200);
  if (refill) fillFilters(); // a new label, owner or plan: the filters offer it
  schedule();
  if (S.selected && ((p.upsert || []).some(c => c.id === S.selected) || (p.removed || []).includes(S.selected))) openDetail(S.selected, true);
}

// ---- the stream (fetch, so the secret rides in a header) ----
async function stream() {
  const live = $('#live');
  for (;;) {
    try {
      const res = await fetch('api/stream', { headers: { 'X-Matrixx-Token': S.token }, cache: 'no-store' });
      if (res.status === 401) { live.textContent = 'no secret: open the URL matrixx board printed'; live.className = 'live off'; return; }
      if (!res.ok) throw new Error(res.status);
      live.textContent = 'live'; live.className = 'live on';
      const rd = res.body.getReader(); const dec = new TextDecoder(); let buf = '';
      for (;;) {
        const { value, done } = await rd.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const msg = buf.slice(0, i); buf = buf.slice(i + 2);
          let ev = 'message', data = '';
          for (const line of msg.split('\n')) {
            if (line.startsWith('event: ')) ev = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!data) continue;
          const got = Date.now();
          const d = JSON.parse(data);
          if (ev === 'reset') reset(d); else if (ev === 'patch') { window.__patchAt = got; applyPatch(d); }
        }
      }
    } catch (e) { /* reconnect below */ }
    live.textContent = 'reconnecting…'; live.className = 'live off';
    await new Promise(r => setTimeout(r, 1000));
  }
}

// ---- actions ----
async function act(body) {
  if (S.readOnly) return null;
  const c = body.id && S.cards.get(body.id);
  if (c) {
    body.v = c.v;
    body.seen = { subject: c.subject, status: c.status, owner: c.owner || '', priority: c.priority || '', blockedBy: c.blockedBy || [], labels: c.labels || [], parentID: c.parentID || '' };
  }
  let res, d;
  try {
    res = await fetch('api/action', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Matrixx-Token': S.token }, body: JSON.stringify(body) });
    d = await res.json();
  } catch (e) { toast('The board did not answer: ' + e, true); return null; }
  if (res.status === 409) {
    const what = (d.changed || []).map(x => `${x.field}: ${fmt(x.seen)} → ${fmt(x.now)}`).join('\n');
    toast(`Not done: ${d.message}.` + (what ? `\nChanged since the page showed it:\n${what}` : '') + '\nThe page now shows the task as it is.', true);
    return null;
  }
  if (!res.ok) { toast(`${body.op}: ${d.message || d.error}`, true); return null; }
  return d;
}
function fmt(v) { return Array.isArray(v) ? '[' + v.map(x => S.cards.has(x) ? handle(x) : x).join(', ') + ']' : (v === '' || v === null || v === undefined ? '(none)' : String(v)); }

// ---- filters ----
function fillFilters() {
  const labels = new Set(), owners = new Set();
  for (const c of S.cards.values()) { for (const l of c.labels || []) labels.add(l); if (c.owner) owners.add(c.owner); }
  S.labels = labels; S.owners = owners;
  setOptions($('#f-label'), 'any label', [...labels].sort());
  setOptions($('#f-owner'), 'any owner', [...owners].sort());
  setOptions($('#f-plan'), 'any plan', S.plans.map(p => p.name));
}
function setOptions(sel, none, vals) {
  const key = vals.join('\u0000');
  if (sel.dataset.key === key) return;
  const cur = sel.value;
  sel.replaceChildren(h('option', { value: '' }, none), ...vals.map(v => h('option', { value: v }, v)));
  sel.value = vals.includes(cur) ? cur : '';
  sel.dataset.key = key;
}
function matches(c) {
  const f = S.f;
  if (f.label && !(c.labels || []).includes(f.label)) return false;
  if (f.owner && c.owner !== f.owner) return false;
  if (f.plan && c.plan !== f.plan) return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    if (!c.subject.toLowerCase().includes(t) && !c.h.includes(t) && !c.id.toLowerCase().includes(t)) return false;
  }
  return true;
}

// ---- rendering ----
let pending = false;
function schedule() { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; render(); }); } }
function render() {
  const t0 = performance.now();
  $('#project').textContent = S.project;
  const buckets = { ready: [], blocked: [], in_progress: [], completed: [] };
  let total = 0, shown = 0;
  for (const c of S.cards.values()) {
    if (c.state === 'deleted') continue;
    total++;
    if (!matches(c)) continue;
    shown++;
    buckets[c.state].push(c);
  }
  buckets.ready.sort((a, b) => (PRI[a.priority || ''] - PRI[b.priority || '']) || (a.id < b.id ? -1 : 1));
  buckets.blocked.sort((a, b) => (PRI[a.priority || ''] - PRI[b.priority || '']) || (a.id < b.id ? -1 : 1));
  buckets.in_progress.sort((a, b) => (a.leaseEnds || '~') < (b.leaseEnds || '~') ? -1 : 1);
  buckets.completed.sort((a, b) => (a.id < b.id ? 1 : -1));
  $('#counts').textContent = `${total} tasks` + (shown !== total ? `, ${shown} match the filter` : '') +
    ` · ${buckets.ready.length} ready · ${buckets.blocked.length} blocked · ${buckets.in_progress.length} in progress · ${buckets.completed.length} done`;
  $('#board').classList.toggle('nodone', !S.f.done);
  if (S.view === 'board') {
    for (const st of STATES) {
      const col = $(`.col[data-state=${st}]`);
      col.hidden = st === 'completed' && !S.f.done;
      $('.n', col).textContent = buckets[st].length;
      const list = buckets[st];
      const n = Math.min(list.length, S.limit[st]);
      const frag = document.createDocumentFragment();
      for (let i = 0; i < n; i++) frag.append(cachedCard(list[i]));
      if (list.length > n) frag.append(h('button', { class: 'more', onclick: () => { S.limit[st] += PAGE; schedule(); } }, `Show ${Math.min(PAGE, list.length - n)} more (${list.length - n} not shown)`));
      $('.cards', col).replaceChildren(frag);
    }
  } else if (S.view === 'graph') renderGraph(buckets);
  else renderPlans();
  renderActivity();
  window.__renderMs = performance.now() - t0; window.__renderedAt = Date.now();
  if (!S.painted) { S.painted = true; document.body.dataset.painted = '1'; window.__paintedAt = performance.now(); }
}

// cachedCard is c's element, drawn again only when something it shows
// changed: the record (v), its state, handle, blockers, subtasks, the
// selection, the handles of other cards, or the lease's time left as shown.
function cachedCard(c) {
  const lease = c.state === 'in_progress' ? leaseText(c) : '';
  const key = [c.v, c.h, c.state, (c.waits || []).join(), (c.kids || []).join(), (c.overlaps || []).join(), S.selected === c.id, S.epoch, lease, S.me].join('|');
  const got = S.els.get(c.id);
  if (got && got.key === key) return got.el;
  const el = cardEl(c);
  S.els.set(c.id, { key, el });
  return el;
}

function cardEl(c) {
  const meta = [];
  if (c.priority) meta.push(h('span', { class: 'pri ' + c.priority }, c.priority));
  for (const l of c.labels || []) meta.push(h('span', { class: 'lab' }, l));
  if (c.state === 'in_progress') {
    meta.push(h('span', { class: 'owner' }, '◐ ' + (c.owner || 'someone') + ' · '), h('span', { class: 'lease' + (c.leaseEnds && Date.parse(c.leaseEnds) <= now() ? ' expired' : '') }, leaseText(c)));
    if (c.branch || c.worktree) meta.push(h('span', { class: 'where', title: c.worktree || '' }, '⎇ ' + whereText(c)));
    if ((c.leases || []).length) meta.push(h('span', { class: 'leases', title: 'path leases: other agents\' writes here are refused while the claim is live\n' + c.leases.join('\n') }, '🔒 ' + listText(c.leases, 2)));
    if ((c.overlaps || []).length) meta.push(h('span', { class: 'overlaps' }, '⚠ leases overlap ' + c.overlaps.map(handle).join(', ')));
  }
  if (c.state !== 'in_progress' && (c.paths || []).length) meta.push(h('span', { class: 'paths dim', title: 'paths it will touch (metadata.paths), leased when it is claimed\n' + c.paths.join('\n') }, 'touches ' + listText(c.paths, 2)));
  if (c.state === 'blocked') meta.push(h('span', { class: 'waits' }, 'waits for ' + c.waits.slice(0, 3).map(handle).join(', ') + (c.waits.length > 3 ? ` +${c.waits.length - 3}` : '')));
  if (c.kids) {
    const bar = h('span', { class: 'bar' }, h('i'));
    bar.firstChild.style.width = (100 * c.kids[0] / c.kids[1]) + '%';
    meta.push(bar, h('span', null, `${c.kids[0]}/${c.kids[1]} subtasks`));
  }
  if (c.parentID) meta.push(h('span', null, '↑ ' + handle(c.parentID)));
  if (c.plan) meta.push(h('span', null, '▤ ' + c.plan));
  const acts = [];
  if (!S.readOnly) {
    const expired = c.state === 'in_progress' && c.leaseEnds && Date.parse(c.leaseEnds) <= now();
    if (c.state === 'ready' || expired) acts.push(h('button', { 'data-act': 'claim', onclick: e => { e.stopPropagation(); act({ op: 'claim', id: c.id }).then(d => d && toast(`claimed ${c.h} as ${S.me}`)); } }, 'Claim'));
    if (c.state === 'ready' || (c.state === 'in_progress' && (c.owner === S.me || expired))) acts.push(h('button', { 'data-act': 'complete', onclick: e => { e.stopPropagation(); act({ op: 'complete', id: c.id }).then(d => d && toast(`done ${c.h}`)); } }, 'Done'));
    if (c.state === 'completed') acts.push(h('button', { 'data-act': 'reopen', onclick: e => { e.stopPropagation(); act({ op: 'reopen', id: c.id }).then(d => d && toast(`reopened ${c.h}`)); } }, 'Reopen'));
  }
  return h('div', { class: 'card' + (S.selected === c.id ? ' sel' : ''), dataset: { id: c.id, state: c.state }, onclick: () => openDetail(c.id) },
    h('div', { class: 'top' }, h('span', { class: 'h' }, c.h), h('span', { class: 'subj' }, c.subject)),
    meta.length ? h('div', { class: 'meta' }, meta) : null,
    acts.length ? h('div', { class: 'acts' }, acts) : null);
}

function renderActivity() {
  const ol = $('#activity');
  const items = S.events.slice(0, 50).map(e => h('li', null,
    h('span', { class: 'dim' }, (e.at || '').slice(11, 19) + ' '), h('span', { class: 'k' }, e.kind.replace('_', ' ')),
    h('a', { onclick: () => openDetail(e.id) }, handle(e.id)), ' ', e.subject || '',
    e.kind === 'claimed' && e.owner ? ` by ${e.owner}` : '',
    e.fields && (e.kind === 'updated' || e.kind === 'outside') ? ` (${e.fields.join(', ')})` : '',
    e.outside ? ' — outside the toolkit' : ''));
  ol.replaceChildren(...(items.length ? items : [h('li', { class: 'dim' }, 'Changes appear here as they happen.')]));
}

// ---- detail ----
async function openDetail(id, refresh) {
  S.selected = id;
  const c = S.cards.get(id);
  const aside = $('#detail');
  if (!c) { if (refresh) aside.hidden = true; return; }
  let d = null;
  if (!S.readOnly) {
    try {
      const res = await fetch('api/task?id=' + encodeURIComponent(id), { headers: { 'X-Matrixx-Token': S.token } });
      d = await res.json();
      if (!res.ok) { toast(d.message, true); return; }
    } catch (e) { return; }
  } else d = { task: { description: c.description || '' } };
  if (refresh && aside.contains(document.activeElement) && document.activeElement.matches('input,textarea,select')) return; // do not clobber typing
  const t = d.task;
  const link = x => h('a', { onclick: () => openDetail(x) }, handle(x) + (S.cards.get(x) ? ' ' + S.cards.get(x).subject : ''));
  const kids = [...S.cards.values()].filter(k => k.parentID === id);
  const dependents = c.blocks || [];
  const form = h('form', { onsubmit: async e => {
    e.preventDefault();
    const fd = new FormData(e.target);
    const body = { op: 'edit', id, subject: fd.get('subject'), priority: fd.get('priority'), description: fd.get('description'), labels: String(fd.get('labels')).split(',').map(s => s.trim()).filter(Boolean) };
    if ((await act(body))) toast(`saved ${c.h}`);
  } },
    h('label', null, 'Subject', h('input', { name: 'subject', value: c.subject, required: true, disabled: S.readOnly })),
    h('label', null, 'Priority', prioritySelect(c.priority || '')),
    h('label', null, 'Labels', h('input', { name: 'labels', value: (c.labels || []).join(', '), placeholder: 'comma-separated', disabled: S.readOnly })),
    h('label', null, 'Description', h('textarea', { name: 'description', rows: 6, disabled: S.readOnly }, t.description || '')),
    S.readOnly ? null : h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, 'Save')));
  const depForm = S.readOnly ? null : h('form', { class: 'row', onsubmit: async e => {
    e.preventDefault();
    const v = new FormData(e.target).get('blocker');
    if (await act({ op: 'depend', id, blocker: String(v).trim() })) toast(`${c.h} now waits for ${v}`);
  } }, h('input', { name: 'blocker', placeholder: 'handle or id of a blocker', required: true }), h('button', { type: 'submit' }, 'Add blocker'));
  aside.replaceChildren(
    h('button', { class: 'close', onclick: () => { aside.hidden = true; S.selected = ''; schedule(); } }, '✕'),
    h('div', { class: 'dim' }, c.id),
    h('h2', null, c.subject),
    h('div', null, `${c.status.replace('_', ' ')}`, c.owner ? ` · ${c.owner}` : '', c.state === 'in_progress' ? ` · ${leaseText(c)}` : '', c.plan ? ` · plan ${c.plan}` : ''),
    claimInfo(c),
    form,
    h('h3', null, 'Waits for'), (c.blockedBy || []).length ? h('ul', null, c.blockedBy.map(b => h('li', null, link(b), (c.waits || []).includes(b) ? '' : ' ✓', S.readOnly ? null : h('button', { class: 'x', title: 'remove this dependency', 'data-act': 'undepend', onclick: async () => { if (await act({ op: 'undepend', id, blocker: b })) toast(`${c.h} no longer waits for ${handle(b)}`); } }, '×')))) : h('div', { class: 'dim' }, 'nothing'),
    depForm,
    h('h3', null, 'Blocks'), dependents.length ? h('ul', null, dependents.map(b => h('li', null, link(b)))) : h('div', { class: 'dim' }, 'nothing'),
    c.parentID ? [h('h3', null, 'Parent'), h('div', null, link(c.parentID))] : null,
    kids.length ? [h('h3', null, `Subtasks ${c.kids ? c.kids[0] + '/' + c.kids[1] + ' done' : ''}`), h('ul', null, kids.map(k => h('li', null, link(k.id), ' · ', k.status.replace('_', ' '))))] : null,
    h('h3', null, 'Notepad'), d.notepad ? [h('div', { class: 'dim' }, d.notepadPath + (d.notepadCut ? ' (first 64 KiB)' : '')), h('pre', null, d.notepad)] : h('div', { class: 'dim' }, 'none'),
    h('h3', null, 'History'), historyList(d.history, id));
  aside.hidden = false;
  schedule();
}
// claimInfo is what an agent holds: where the claim was made and the
// paths it leases (or, before a claim, the paths the task will touch).
function claimInfo(c) {
  const rows = [];
  if (c.state === 'in_progress') {
    if (c.branch || c.worktree) rows.push(h('div', { class: 'where' }, 'Claimed in ', h('b', null, c.branch || '(detached)'), c.worktree ? ` (${c.worktree})` : ''));
    if ((c.leases || []).length) rows.push(h('div', null, 'Leases ', h('span', { class: 'leases' }, c.leases.join(', ')), c.leaseEnds && Date.parse(c.leaseEnds) <= now() ? ' (expired: no longer enforced)' : ''));
    if ((c.overlaps || []).length) rows.push(h('div', { class: 'overlaps' }, '⚠ these leases overlap those of ', c.overlaps.map(x => h('a', { onclick: () => openDetail(x) }, handle(x) + ' ')), '(task-doctor reports it)'));
  } else if ((c.paths || []).length) rows.push(h('div', { class: 'paths' }, 'Will touch ', c.paths.join(', '), ' (leased when claimed)'));
  return rows.length ? h('div', { class: 'claim' }, rows) : null;
}
function historyList(hist, id) {
  if (hist && hist.length) {
    return h('ul', { class: 'hist' }, hist.map(x => h('li', null,
      h('span', { class: 'dim' }, x.at.replace('T', ' ').replace('Z', '') + ' '), h('b', null, x.kind.replace('_', ' ')),
      x.who ? ` by ${x.who}` : '', x.command ? h('span', { class: 'dim' }, ` (${x.command})`) : '',
      (x.changes || []).length ? h('ul', null, x.changes.map(c => h('li', null, `${c.field}: ${c.old || '(unset)'} → ${c.new || '(unset)'}`))) : null)));
  }
  const seen = S.events.filter(e => e.id === id).slice(0, 20);
  if (!seen.length) return h('div', { class: 'dim' }, S.readOnly ? 'not in the snapshot' : 'no history recorded');
  return h('ul', null, seen.map(e => h('li', null, (e.at || '').slice(11, 19), ' ', e.kind, e.fields ? ` (${e.fields.join(', ')})` : '')));
}
function prioritySelect(cur) {
  const sel = h('select', { name: 'priority', disabled: S.readOnly }, ['', 'high', 'medium', 'low'].map(p => h('option', { value: p }, p || 'none')));
  sel.value = cur;
  return sel;
}

// ---- graph: the filtered active tasks in layers (what must finish first on the left) ----
function renderGraph(buckets) {
  const box = $('#graph-box'), note = $('#graph-note');
  let nodes = [...buckets.ready, ...buckets.blocked, ...buckets.in_progress, ...(S.f.done ? buckets.completed : [])];
  if (S.selected && S.cards.has(S.selected)) {
    const keep = new Set([S.selected]); let frontier = [S.selected];
    for (let depth = 0; depth < 4; depth++) {
      const next = [];
      for (const id of frontier) { const c = S.cards.get(id); if (!c) continue; for (const x of [...(c.blockedBy || []), ...(c.blocks || [])]) if (!keep.has(x) && S.cards.has(x)) { keep.add(x); next.push(x); } }
      frontier = next;
    }
    nodes = [...keep].map(id => S.cards.get(id));
    note.textContent = `Around ${handle(S.selected)} (4 steps each way); close the detail to see all.`;
  } else note.textContent = 'Arrows point from a task to what waits for it. Click a task to see the graph around it.';
  const MAX = 400;
  if (nodes.length > MAX) { note.textContent = `${nodes.length} tasks match: narrow the filter (or pick a task) to draw at most ${MAX}.`; box.replaceChildren(); return; }
  const ids = new Set(nodes.map(n => n.id));
  const layer = new Map();
  const depth = (id, seen) => {
    if (layer.has(id)) return layer.get(id);
    if (seen.has(id)) return 0; // a cycle: task-doctor reports it
    seen.add(id);
    let d = 0;
    for (const b of S.cards.get(id).blockedBy || []) if (ids.has(b)) d = Math.max(d, depth(b, seen) + 1);
    seen.delete(id); layer.set(id, d); return d;
  };
  for (const n of nodes) depth(n.id, new Set());
  const cols = [];
  for (const n of nodes) { const d = layer.get(n.id); (cols[d] = cols[d] || []).push(n); }
  const W = 220, H = 34, GX = 70, GY = 12, pos = new Map();
  cols.forEach((col, x) => col.forEach((n, y) => pos.set(n.id, [20 + x * (W + GX), 20 + y * (H + GY)])));
  const width = 40 + cols.length * (W + GX), height = 40 + Math.max(1, ...cols.map(c => c.length)) * (H + GY);
  const NS = 'http://www.w3.org/2000/svg';
  const s = (tag, attrs, ...kids) => { const el = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v); el.append(...kids); return el; };
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}` });
  const colors = { ready: 'var(--ready)', blocked: 'var(--blocked)', in_progress: 'var(--working)', completed: 'var(--done)', deleted: 'var(--deleted)' };
  for (const n of nodes) for (const b of n.blockedBy || []) if (pos.has(b)) {
    const [x1, y1] = pos.get(b), [x2, y2] = pos.get(n.id);
    svg.append(s('path', { class: 'edge', d: `M${x1 + W},${y1 + H / 2} C${x1 + W + GX / 2},${y1 + H / 2} ${x2 - GX / 2},${y2 + H / 2} ${x2},${y2 + H / 2}`, 'marker-end': '' }));
  }
  for (const n of nodes) {
    const [x, y] = pos.get(n.id);
    const label = n.h + ' ' + (n.subject.length > 28 ? n.subject.slice(0, 27) + '…' : n.subject);
    const g = s('g', { class: 'node', transform: `translate(${x},${y})` }, s('rect', { width: W, height: H, stroke: colors[n.state] }), s('text', { x: 8, y: 21 }, label));
    g.addEventListener('click', () => openDetail(n.id));
    svg.append(g);
  }
  box.replaceChildren(svg);
}

function renderPlans() {
  const sec = $('#plans');
  if (!S.plans.length) { sec.replaceChildren(h('p', { class: 'dim' }, 'No plans (plan create NAME < plan.md makes one).')); return; }
  sec.replaceChildren(...S.plans.map(p => {
    const bar = h('span', { class: 'bar' }, h('i'));
    bar.firstChild.style.width = (p.total ? 100 * p.done / p.total : 0) + '%';
    return h('div', { class: 'plan', onclick: () => { S.f.plan = p.name; $('#f-plan').value = p.name; setView('board'); } },
      h('b', null, p.name), bar, h('span', null, `${p.done}/${p.total} items done`), h('span', { class: 'dim' }, `${p.tasks} tasks`));
  }));
}

function setView(v) {
  S.view = v;
  for (const b of document.querySelectorAll('#views button')) b.classList.toggle('on', b.dataset.view === v);
  $('#board').hidden = v !== 'board'; $('#graph').hidden = v !== 'graph'; $('#plans').hidden = v !== 'plans';
  schedule();
}

// ---- wiring ----
function init() {
  for (const b of document.querySelectorAll('#views button')) b.addEventListener('click', () => setView(b.dataset.view));
  let typing;
  $('#f-text').addEventListener('input', e => { clearTimeout(typing); typing = setTimeout(() => { S.f.text = e.target.value.trim(); resetLimits(); schedule(); }, 120); });
  for (const [sel, key] of [['#f-label', 'label'], ['#f-owner', 'owner'], ['#f-plan', 'plan']]) $(sel).addEventListener('change', e => { S.f[key] = e.target.value; resetLimits(); schedule(); });
  $('#f-done').addEventListener('change', e => { S.f.done = e.target.checked; schedule(); });
  setInterval(schedule, 5000); // lease countdowns (only cards whose text changed are drawn again)
  setInterval(fillFilters, 30000); // owners and labels no longer in use
  const data = document.getElementById('data');
  if (data) {
    // An export: the state is in the page, nothing is live.
    const d = JSON.parse(data.textContent);
    d.readOnly = true; reset(d);
    $('#add-open').hidden = true;
    $('#live').textContent = 'snapshot of ' + (d.now || '').slice(0, 16).replace('T', ' ') + ' UTC';
    for (const e of document.querySelectorAll('.act')) e.hidden = true;
    return;
  }
  const m = location.hash.match(/token=([0-9a-f]+)/);
  if (m) { sessionStorage.setItem('matrixx-token', m[1]); history.replaceState(null, '', location.pathname); }
  S.token = sessionStorage.getItem('matrixx-token') || '';
  const dlg = $('#add');
  $('#add-open').addEventListener('click', () => dlg.showModal());
  $('#add-cancel').addEventListener('click', () => dlg.close());
  $('#add-form').addEventListener('submit', async e => {
    e.preventDefault();
    const fd = new FormData(e.target);
    const list = k => String(fd.get(k) || '').split(',').map(s => s.trim()).filter(Boolean);
    const body = { op: 'add', subject: fd.get('subject'), priority: fd.get('priority') || undefined, description: fd.get('description') || undefined, labels: list('labels'), parentID: String(fd.get('parentID') || '').trim() || undefined, blockedBy: list('blockedBy') };
    const d = await act(body);
    if (d) { toast('added ' + d.id); e.target.reset(); dlg.close(); }
  });
  stream();
}
function resetLimits() { for (const k of STATES) S.limit[k] = PAGE; }
init();
