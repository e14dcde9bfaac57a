package hook

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/tailscale/hujson"
	"mvdan.cc/sh/v3/syntax"
)

// Binary is matrixx-hook's file name; a settings entry whose command runs
// it with no arguments is ours.
const Binary = "matrixx-hook"

// Entry is one hook entry install writes: the event and its matcher (""
// for events without one: the hook then runs for every Stop, SubagentStop,
// SessionStart source and SessionEnd reason).
type Entry struct {
	Event   string
	Matcher string
}

// Entries are what install adds to Claude Code's settings, in order. The
// PreToolUse matcher covers every tool the guard decides on; PostToolUse
// covers the same tools: the two ways the task tools run (Bash, MCP) for
// the notepads, the common ones for lease renewal (docs/claims.md), and
// every tool that can write for the integrity check (docs/integrity.md);
// PostToolUseFailure covers the tools that can write.
var Entries = []Entry{
	{PreToolUse, "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|TodoWrite|TodoRead|TaskCreate|TaskUpdate|TaskList|TaskGet|mcp__.*"},
	{PostToolUse, "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|mcp__.*"},
	{PostToolUseFailure, "Bash|Write|Edit|MultiEdit|NotebookEdit|mcp__.*"},
	{Stop, ""},
	{SubagentStop, ""},
	{SessionStart, ""},
	{SessionEnd, ""},
}

// Command returns the settings command for a binary path: the path,
// shell-quoted when it needs quoting (Claude Code runs it through a shell).
func Command(path string) (string, error) {
	return syntax.Quote(path, syntax.LangBash)
}

// IsOurs reports whether a settings command runs matrixx-hook with no
// arguments or only a --host flag (whatever its directory): what install writes and uninstall
// removes. The command is parsed as a shell command (mvdan.cc/sh/v3/syntax):
// it must be a single simple command of one word, without redirections or
// assignments, made of literal and quoted text and plain variables; the
// variables count as empty, so "$CLAUDE_PROJECT_DIR"/bin/matrixx-hook is
// ours too. Nothing is expanded or run.
func IsOurs(command string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 || !hostArgs(call.Args[1:]) {
		return false
	}
	word, ok := literal(call.Args[0].Parts)
	return ok && filepath.Base(filepath.ToSlash(word)) == Binary
}

// hostArgs reports whether the words after matrixx-hook are none, or a
// --host flag naming a known host (what install writes for Codex CLI and
// Gemini CLI): "--host HOST" or "--host=HOST".
func hostArgs(args []*syntax.Word) bool {
	var words []string
	for _, a := range args {
		w, ok := literal(a.Parts)
		if !ok {
			return false
		}
		words = append(words, w)
	}
	v := ""
	switch {
	case len(words) == 0:
		return true
	case len(words) == 2 && words[0] == "--host":
		v = words[1]
	case len(words) == 1 && strings.HasPrefix(words[0], "--host="):
		v = strings.TrimPrefix(words[0], "--host=")
	default:
		return false
	}
	h, err := ParseHost(v)
	return err == nil && h != HostAuto
}

// literal renders word parts that need no expansion but plain variables
// (rendered empty); anything else (substitutions, globs' special forms,
// arithmetic, …) is not literal.
func literal(parts []syntax.WordPart) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			s, ok := literal(x.Parts)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.ParamExp:
			if x.Excl || x.Length || x.Width || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Exp != nil || x.Names != 0 {
				return "", false
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// SettingsResult is the outcome of Install or Uninstall.
type SettingsResult struct {
	// Data is the new settings file: JSON, 2-space indented.
	Data []byte
	// Changed is false when the file already said the same.
	Changed bool
	// DroppedComments is set when the input had comments (or trailing
	// commas' company: any JSONC), which the rewritten file does not keep:
	// Claude Code reads settings as strict JSON and ignores a whole file
	// that has comments, so keeping them would leave the hooks inactive.
	DroppedComments bool
	// Empty is set when the result is an empty object ({}), as uninstall
	// leaves a file that held nothing but our hooks.
	Empty bool
	// HooksDisabled is set when the file sets "disableAllHooks": true
	// (Claude Code then runs no hook at all).
	HooksDisabled bool
}

// settingsGroup is one matcher group as install writes it.
type settingsGroup struct {
	Matcher string         `json:"matcher,omitempty"`
	Hooks   []settingsHook `json:"hooks"`
}

type settingsHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// Install adds (or brings up to date) one matcher group per Entries item
// running command, in settings (a Claude Code settings file: JSON, comments
// and trailing commas tolerated; empty means {}). Every other key, event and
// entry is kept in its order. Per event:
//
//   - exactly one handler of ours, alone in its group: brought up to date in
//     place (the group's matcher, the handler's type and command), keeping
//     every other key of the group and the handler (a "timeout", say);
//   - otherwise our handlers are removed (a group emptied by that goes too)
//     and a fresh group is appended, whose handler keeps the other keys of
//     the first handler of ours that was there.
//
// A file where Claude Code would not see what install writes is refused:
// duplicate "hooks" keys at the top level, or a duplicate key anywhere in
// "hooks" (Claude Code, like JSON.parse, keeps only the last one).
func Install(settings []byte, command string) (SettingsResult, error) {
	return InstallEntries(settings, command, Entries)
}

// InstallEntries is Install with other entries (another host's events, in
// a settings file of the same shape: Codex CLI's hooks.json, Gemini CLI's
// settings.json).
func InstallEntries(settings []byte, command string, entries []Entry) (SettingsResult, error) {
	root, res, err := parseSettings(settings)
	if err != nil {
		return res, err
	}
	hooks, err := member(root, "hooks", "{}", true)
	if err != nil {
		return res, err
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return res, fmt.Errorf(`"hooks" is not an object`)
	}
	for _, e := range entries {
		list, err := member(hobj, e.Event, "[]", true)
		if err != nil {
			return res, err
		}
		arr, ok := list.Value.(*hujson.Array)
		if !ok {
			return res, fmt.Errorf(`"hooks.%s" is not an array`, e.Event)
		}
		ours := oursIn(arr)
		if len(ours) == 1 && len(groupHandlers(&arr.Elements[ours[0].group]).Elements) == 1 {
			if err := updateInPlace(&arr.Elements[ours[0].group], ours[0].handler, e, command); err != nil {
				return res, err
			}
			continue
		}
		var extra []hujson.ObjectMember
		if len(ours) > 0 {
			extra = extraMembers(&groupHandlers(&arr.Elements[ours[0].group]).Elements[ours[0].handler])
		}
		removeOurs(arr)
		g, err := newGroup(e, command, extra)
		if err != nil {
			return res, err
		}
		arr.Elements = append(arr.Elements, g)
	}
	return finish(root, settings, res)
}

// ourHandler locates a handler of ours: arr.Elements[group]'s hooks
// array, element handler.
type ourHandler struct{ group, handler int }

// oursIn lists the handlers of ours in an event's groups.
func oursIn(arr *hujson.Array) []ourHandler {
	var out []ourHandler
	for i := range arr.Elements {
		hs := groupHandlers(&arr.Elements[i])
		if hs == nil {
			continue
		}
		for j := range hs.Elements {
			if c, ok := handlerCommand(&hs.Elements[j]); ok && IsOurs(c) {
				out = append(out, ourHandler{i, j})
			}
		}
	}
	return out
}

// updateInPlace brings a group holding only our handler up to date: e's
// matcher (none for events without one), type "command" and command. Other
// members stay where they are.
func updateInPlace(g *hujson.Value, handler int, e Entry, command string) error {
	obj := g.Value.(*hujson.Object)
	if e.Matcher == "" {
		removeMember(obj, "matcher")
	} else if err := setMember(obj, "matcher", e.Matcher); err != nil {
		return err
	}
	h := groupHandlers(g).Elements[handler].Value.(*hujson.Object)
	if err := setMember(h, "type", "command"); err != nil {
		return err
	}
	return setMember(h, "command", command)
}

// setMember sets obj[name] to the string value, in place when present,
// else as the first member.
func setMember(obj *hujson.Object, name, value string) error {
	for i := range obj.Members {
		if memberName(obj.Members[i]) == name {
			obj.Members[i].Value.Value = hujson.String(value)
			return nil
		}
	}
	obj.Members = append([]hujson.ObjectMember{{Name: hujson.Value{Value: hujson.String(name)}, Value: hujson.Value{Value: hujson.String(value)}}}, obj.Members...)
	return nil
}

// removeMember removes every obj[name].
func removeMember(obj *hujson.Object, name string) {
	kept := obj.Members[:0]
	for _, m := range obj.Members {
		if memberName(m) != name {
			kept = append(kept, m)
		}
	}
	obj.Members = kept
}

func memberName(m hujson.ObjectMember) string {
	if lit, ok := m.Name.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

// extraMembers returns a handler's members other than type and command
// (timeout, statusMessage, …), to carry over to the handler that replaces
// it.
func extraMembers(h *hujson.Value) []hujson.ObjectMember {
	obj, ok := h.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	var out []hujson.ObjectMember
	for _, m := range obj.Members {
		if n := memberName(m); n != "type" && n != "command" {
			out = append(out, hujson.ObjectMember{Name: m.Name.Clone(), Value: m.Value.Clone()})
		}
	}
	return out
}

// newGroup is e's matcher group running command, its handler carrying the
// extra members.
func newGroup(e Entry, command string, extra []hujson.ObjectMember) (hujson.Value, error) {
	g := settingsGroup{Matcher: e.Matcher, Hooks: []settingsHook{{Type: "command", Command: command}}}
	b, err := json.Marshal(g)
	if err != nil {
		return hujson.Value{}, err
	}
	v, err := hujson.Parse(b)
	if err != nil {
		return hujson.Value{}, err
	}
	if len(extra) > 0 {
		h := groupHandlers(&v).Elements[0].Value.(*hujson.Object)
		h.Members = append(h.Members, extra...)
	}
	return v, nil
}

// Uninstall removes every handler of ours (IsOurs) from every event of
// settings, then the groups, event lists and "hooks" object that this left
// empty. Everything else stays.
func Uninstall(settings []byte) (SettingsResult, error) {
	root, res, err := parseSettings(settings)
	if err != nil {
		return res, err
	}
	hooks, err := member(root, "hooks", "", false)
	if err != nil || hooks == nil {
		return finish(root, settings, res)
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return res, fmt.Errorf(`"hooks" is not an object`)
	}
	kept := hobj.Members[:0]
	for _, m := range hobj.Members {
		arr, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			kept = append(kept, m)
			continue
		}
		if removeOurs(arr) && len(arr.Elements) == 0 {
			continue
		}
		kept = append(kept, m)
	}
	emptied := len(kept) == 0 && len(hobj.Members) > 0
	hobj.Members = kept
	if emptied {
		obj := root.Value.(*hujson.Object)
		for i, m := range obj.Members {
			if m.Name.Value.(hujson.Literal).String() == "hooks" {
				obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
				break
			}
		}
	}
	return finish(root, settings, res)
}

// parseSettings parses a settings file; the top level must be an object.
func parseSettings(data []byte) (*hujson.Value, SettingsResult, error) {
	var res SettingsResult
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, res, fmt.Errorf("not valid JSON: %w", err)
	}
	res.DroppedComments = hasComments(&v)
	v.Standardize()
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, res, fmt.Errorf("the top level is not a JSON object")
	}
	if err := checkDuplicates(obj); err != nil {
		return nil, res, err
	}
	return &v, res, nil
}

// checkDuplicates refuses duplicate keys where Claude Code would read
// something else than install edits: "hooks" twice at the top level, or a
// duplicate key anywhere inside "hooks". Claude Code keeps the last of
// duplicate keys, install and uninstall would edit the first.
func checkDuplicates(obj *hujson.Object) error {
	var hooks *hujson.Value
	for i, m := range obj.Members {
		if memberName(m) != "hooks" {
			continue
		}
		if hooks != nil {
			return fmt.Errorf(`"hooks" appears more than once; Claude Code reads only the last one, so hooks written into the first would never run: merge them into one "hooks" object`)
		}
		hooks = &obj.Members[i].Value
	}
	if hooks == nil {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(hooks.Pack()), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadValue(); err != nil {
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && se.Err != nil {
			return fmt.Errorf(`duplicate key hooks%s (%v): Claude Code reads only the last of duplicate keys, so install would edit one it ignores: merge them into one`, se.JSONPointer, se.Err)
		}
		return fmt.Errorf(`in "hooks": %v`, err)
	}
	return nil
}

// hasComments reports whether v holds a comment. Standardize turns
// comments into spaces and leaves string contents alone, so comment
// markers that disappear were comments.
func hasComments(v *hujson.Value) bool {
	b := v.Pack()
	std, err := hujson.Standardize(append([]byte(nil), b...))
	if err != nil {
		return false
	}
	count := func(x []byte) int { return bytes.Count(x, []byte("//")) + bytes.Count(x, []byte("/*")) }
	return count(b) > count(std)
}

// member finds obj[name] (obj is an *hujson.Object or a *hujson.Value
// holding one). When absent and create is set, it appends name with the
// value parsed from init.
func member(obj any, name, init string, create bool) (*hujson.Value, error) {
	var o *hujson.Object
	switch x := obj.(type) {
	case *hujson.Object:
		o = x
	case *hujson.Value:
		var ok bool
		if o, ok = x.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("not an object")
		}
	}
	for i := range o.Members {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &o.Members[i].Value, nil
		}
	}
	if !create {
		return nil, nil
	}
	v, err := hujson.Parse([]byte(init))
	if err != nil {
		return nil, err
	}
	o.Members = append(o.Members, hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(name)}, Value: v})
	return &o.Members[len(o.Members)-1].Value, nil
}

// groupHandlers returns a group's hooks array (nil when it has none).
func groupHandlers(g *hujson.Value) *hujson.Array {
	v, err := member(g, "hooks", "", false)
	if err != nil || v == nil {
		return nil
	}
	arr, _ := v.Value.(*hujson.Array)
	return arr
}

// handlerCommand returns a handler's command when it is a command hook.
func handlerCommand(h *hujson.Value) (string, bool) {
	if t, _ := member(h, "type", "", false); t != nil {
		if lit, ok := t.Value.(hujson.Literal); !ok || lit.String() != "command" {
			return "", false
		}
	}
	c, _ := member(h, "command", "", false)
	if c == nil {
		return "", false
	}
	lit, ok := c.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// removeOurs removes our handlers from every group of arr, and the groups
// this left empty. It reports whether it removed anything.
func removeOurs(arr *hujson.Array) bool {
	removed := false
	kept := arr.Elements[:0]
	for i := range arr.Elements {
		g := arr.Elements[i]
		hs := groupHandlers(&g)
		if hs == nil {
			kept = append(kept, g)
			continue
		}
		before := len(hs.Elements)
		hk := hs.Elements[:0]
		for j := range hs.Elements {
			if c, ok := handlerCommand(&hs.Elements[j]); ok && IsOurs(c) {
				continue
			}
			hk = append(hk, hs.Elements[j])
		}
		hs.Elements = hk
		if len(hk) < before {
			removed = true
			if len(hk) == 0 {
				continue
			}
		}
		kept = append(kept, g)
	}
	arr.Elements = kept
	return removed
}

// finish renders root as 2-space-indented JSON and compares it with the
// original document rendered the same way, so a file that already says the
// same is reported unchanged (and is not rewritten) whatever its layout.
func finish(root *hujson.Value, orig []byte, res SettingsResult) (SettingsResult, error) {
	out, err := render(root)
	if err != nil {
		return res, err
	}
	res.Data = out
	res.Empty = bytes.Equal(bytes.TrimSpace(out), []byte("{}"))
	if in, err := Inspect(out); err == nil {
		res.HooksDisabled = in.HooksDisabled
	}
	before, _, err := parseSettings(orig)
	if err != nil {
		return res, err
	}
	was, err := render(before)
	if err != nil {
		return res, err
	}
	res.Changed = !bytes.Equal(out, was)
	return res, nil
}

func render(v *hujson.Value) ([]byte, error) {
	out := jsontext.Value(v.Pack())
	if err := out.Indent(jsontext.WithIndent("  ")); err != nil {
		return nil, err
	}
	return append([]byte(out), '\n'), nil
}

// Inspection is what Inspect finds in a settings file.
type Inspection struct {
	// Commands are the commands of our handlers (IsOurs), per event, in
	// order.
	Commands []string
	// HooksDisabled is set when the file sets "disableAllHooks": true.
	HooksDisabled bool
}

// Inspect reads a settings file (JSONC tolerated; empty means {}) and
// reports the handlers of ours in it, so install can tell when another
// settings file already runs matrixx-hook (Claude Code merges the user, the
// project and the local settings: each entry would run).
func Inspect(settings []byte) (Inspection, error) {
	var in Inspection
	root, _, err := parseSettings(settings)
	if err != nil {
		return in, err
	}
	hooks, err := member(root, "hooks", "", false)
	if err != nil {
		return in, err
	}
	if v, err := member(root, "disableAllHooks", "", false); err == nil && v != nil {
		if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == 't' {
			in.HooksDisabled = true
		}
	}
	if hooks == nil {
		return in, nil
	}
	hobj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return in, nil
	}
	for _, m := range hobj.Members {
		arr, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for _, o := range oursIn(arr) {
			c, _ := handlerCommand(&groupHandlers(&arr.Elements[o.group]).Elements[o.handler])
			in.Commands = append(in.Commands, c)
		}
	}
	return in, nil
}
