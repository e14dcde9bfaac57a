// Drives matrixx board in a real headless Chromium (puppeteer-core, the
// system's chromium: nothing is downloaded). Run by browser_test.go with:
//   BOARD_URL      the page's URL as matrixx board printed it (secret after #)
//   FOREIGN_URL    a page on another origin (another port of 127.0.0.1)
//   BOARD_SELF     the test binary, which is every binary with BOARD_EXEC=name
//   BOARD_ROOT     the project
//   BOARD_N        how many tasks the store holds
//   CHROMIUM       the browser
//   BOARD_SCREENSHOT  where to save a screenshot (optional)
// Prints one JSON line of measurements on success; exits 1 with the reason
// on the first failed check.
'use strict';
const puppeteer = require('puppeteer-core');
const { execFileSync } = require('child_process');

const env = process.env;
const N = Number(env.BOARD_N);
const LIVE_LIMIT_MS = Number(env.BOARD_LIVE_LIMIT_MS || 2000);

function run(name, ...args) {
  const out = execFileSync(env.BOARD_SELF, ['-C', env.BOARD_ROOT, ...args], { env: { ...env, BOARD_EXEC: name }, encoding: 'utf8' });
  return out;
}
function getTask(id) { return JSON.parse(run('task-get', id)).task; }
function fail(msg) { console.error('browser: ' + msg); process.exit(1); }
function check(ok, msg) { if (!ok) fail(msg); }
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function until(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) fail('timed out waiting for ' + what);
    await sleep(25);
  }
}
const subjects = page => page.$$eval('.card .subj', els => els.map(e => e.textContent));

(async () => {
  const browser = await puppeteer.launch({
    executablePath: env.CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
  });
  const res = {};
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(e.message));
    await page.setViewport({ width: 1400, height: 900 });

    // 1. The page shows the tasks.
    await page.goto(env.BOARD_URL);
    await page.waitForFunction(n => window.__board && window.__board.cards.size === n && document.body.dataset.painted === '1', { timeout: 60000 }, N);
    res.firstPaintMs = Math.round(await page.evaluate(() => window.__paintedAt));
    check(!(await page.evaluate(() => location.hash)), 'the secret stays in the address bar');
    const counts = await page.$eval('#counts', e => e.textContent);
    check(counts.startsWith(N + ' tasks'), 'counts line: ' + counts);
    check((await subjects(page)).includes('Task 1'), 'Task 1 is not on the board');
    const cardsDrawn = await page.$$eval('.card', els => els.length);
    check(cardsDrawn <= 4 * 100 + 4, 'drew ' + cardsDrawn + ' cards (columns are paged)');
    const m = await page.metrics();
    res.jsHeapMB = Math.round(m.JSHeapUsedSize / 1048576 * 10) / 10;
    res.domNodes = m.Nodes;

    // 2. A task created by task-create appears without a reload.
    const made = JSON.parse(run('task-create', '--subject', 'Made by task-create', '--priority', 'high', '--paths', 'src/api/**')).tasks[0].id;
    const t0 = Date.now();
    await page.waitForFunction(() => [...document.querySelectorAll('.card .subj')].some(e => e.textContent === 'Made by task-create'), { timeout: 20000, polling: 'raf' });
    res.writeToPageMs = Date.now() - t0;
    res.writeToPatchMs = (await page.evaluate(() => window.__patchAt)) - t0; // the server's part
    res.renderMs = Math.round(await page.evaluate(() => window.__renderMs));
    check(res.writeToPageMs <= LIVE_LIMIT_MS, `the new task took ${res.writeToPageMs}ms to appear (limit ${LIVE_LIMIT_MS}ms)`);

    // Before a claim, the card says which paths the task will touch.
    const touches = await page.$eval(`.card[data-id="${made}"] .paths`, e => e.textContent).catch(() => '');
    check(touches === 'touches src/api/**', 'the card does not show the declared paths: ' + touches);

    // 3. A claim from the page lands on disk, through task-claim's
    // operation: owner, lease, the branch it was made on, the paths leased.
    const card = await page.$(`.card[data-id="${made}"]`);
    check(card, 'no card for the new task');
    const claimBtn = await card.$('button[data-act=claim]');
    check(claimBtn, 'the ready card has no Claim button');
    await claimBtn.click();
    const claimed = await until('the claim on disk', () => { const t = getTask(made); return t.status === 'in_progress' && t.owner === 'pat' ? t : null; });
    const mc = claimed.metadata && claimed.metadata.claim;
    check(mc && mc.owner === 'pat' && mc.expiresAt, 'the claim has no metadata.claim with a lease: ' + JSON.stringify(mc));
    check(mc.branch === 'feature' && mc.worktree === env.BOARD_ROOT, 'the claim does not record its checkout: ' + JSON.stringify(mc));
    check(JSON.stringify(mc.paths) === '["src/api/**"]', 'the claim does not lease the declared paths: ' + JSON.stringify(mc));
    await page.waitForFunction(id => { const c = document.querySelector(`.card[data-id="${id}"]`); return c && c.dataset.state === 'in_progress'; }, { timeout: 20000 }, made);
    // What the agent holds is on its card: owner, lease left, branch, leases.
    const held = await page.$eval(`.card[data-id="${made}"] .meta`, e => e.textContent);
    for (const want of ['◐ pat', 'left', '⎇ feature', '🔒 src/api/**']) check(held.includes(want), `the in-progress card does not show "${want}": ${held}`);

    // A lease that ended is marked expired on the card, without a reload.
    const late = JSON.parse(run('task-list', '--ready')).tasks.find(t => t.subject === 'Task 4');
    check(late, 'Task 4 is not ready');
    run('task-claim', late.id, '--owner', 'bot-7', '--lease', '1s');
    await until('the expired lease on the card', () => page.$eval(`.card[data-id="${late.id}"] .lease`, e => e.classList.contains('expired') && e.textContent).catch(() => null));
    res.expiredShown = true;

    // 4. A stale page's action is refused: the page holds the old version of
    // a task that another program renamed meanwhile, and clicks Claim.
    const ids = JSON.parse(run('task-list', '--ready')).tasks.filter(t => t.subject === 'Task 2');
    check(ids.length === 1, 'Task 2 is not ready');
    const stale = ids[0].id;
    const old = await page.evaluate(id => JSON.parse(JSON.stringify(window.__board.cards.get(id))), stale);
    run('task-update', stale, '--subject', 'Renamed elsewhere');
    await page.waitForFunction(() => [...document.querySelectorAll('.card .subj')].some(e => e.textContent === 'Renamed elsewhere'), { timeout: 20000 });
    await page.evaluate(c => window.__board.cards.set(c.id, c), old); // the page has not seen the rename
    await (await page.$(`.card[data-id="${stale}"] button[data-act=claim]`)).click();
    await page.waitForFunction(() => { const t = document.querySelector('#toast'); return !t.hidden && t.textContent.includes('Not done'); }, { timeout: 20000 });
    const toast = await page.$eval('#toast', e => e.textContent);
    check(toast.includes('subject: Task 2 → Renamed elsewhere'), 'the conflict does not say what changed: ' + toast);
    const after = getTask(stale);
    check(after.status === 'pending' && !after.owner, 'the stale claim was written: ' + JSON.stringify(after));

    // 5. Requests without the secret, or from another origin, are refused.
    const v = (await page.evaluate(id => window.__board.cards.get(id).v, stale));
    const body = JSON.stringify({ op: 'claim', id: stale, v });
    const noSecret = await page.evaluate(b => fetch('api/action', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: b }).then(r => r.status), body);
    check(noSecret === 401, 'a request without the secret got ' + noSecret);
    const token = new URL(env.BOARD_URL).hash.replace('#token=', '');
    const api = new URL('/api/action', env.BOARD_URL).href;
    const foreign = await browser.newPage();
    await foreign.goto(env.FOREIGN_URL);
    const tries = await foreign.evaluate(async (api, b, token) => {
      const out = [];
      for (const init of [
        { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Matrixx-Token': token }, body: b },
        { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: b },
        { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: b },
        { method: 'GET' },
      ]) {
        try { const r = await fetch(init.method === 'GET' ? api.replace('action', 'board') : api, init); out.push(r.type === 'opaque' ? 'opaque' : r.status); } catch (e) { out.push('blocked'); }
      }
      return out;
    }, api, body, token);
    check(tries.every(x => x === 'blocked' || x === 'opaque' || x >= 400), 'a foreign page got an answer: ' + tries);
    res.foreignPage = tries;
    const still = getTask(stale);
    check(still.status === 'pending' && !still.owner, 'a foreign page changed the task: ' + JSON.stringify(still));
    await foreign.close();

    // 6. Live latency once more, on a quiet page: completion by another program.
    const t1 = Date.now();
    run('task-update', made, '--status', 'completed', '--expect-owner', 'pat');
    await page.waitForFunction(id => { const c = window.__board.cards.get(id); return c && c.state === 'completed'; }, { timeout: 20000, polling: 'raf' }, made);
    res.completeToPageMs = Date.now() - t1;
    res.completeToPatchMs = (await page.evaluate(() => window.__patchAt)) - t1;

    if (env.BOARD_SCREENSHOT) {
      await page.evaluate(() => { document.querySelector('#toast').hidden = true; });
      await page.screenshot({ path: env.BOARD_SCREENSHOT });
    }
    check(errors.length === 0, 'errors on the page: ' + errors.join('; '));
    console.log(JSON.stringify(res));
  } finally {
    await browser.close();
  }
})().catch(e => fail(e.stack || String(e)));
