package guard

import (
	"path/filepath"
	"testing"
)

func TestClassify(t *testing.T) {
	e := &env{extra: []string{"/srv/store"}, config: []string{"/cfg/oc/matrixx.jsonc"}, configDirs: []string{"/cfg/oc"}}
	for _, c := range []struct {
		p     string
		taint bool
		want  store
	}{
		{"/p/.matrixx/tasks", false, tasks},
		{"/p/.matrixx/tasks/T-1.json", false, tasks},
		{"/p/.matrixx/plans/a.md", false, plans},
		{"/p/.MATRIXX/PLANS", false, plans},
		{"/p/.matrixx", false, root},
		{"/p/.matrixx/notepads/x", false, outside},
		{"/p/.matrixx-old/tasks", false, outside},
		{"/p/tasks/.matrixx", false, root},
		{"/p/.matrixx./tasks ", false, tasks},
		{"/p/.m*/tasks/x", false, tasks},
		{"/p/*/tasks/x", false, outside}, // "*" does not match a leading dot
		{"/p/.matrixx/[pt]lans", false, plans},
		{"/p/.matrixx/t[!x]sks", false, tasks},
		{"/p/\x00/tasks/x", false, outside},
		{"/p/\x00/tasks/x", true, tasks},
		{"/p/\x00", true, outside}, // an unknown component is never .matrixx itself
		{"/p/.matrixx/\x00", true, tasks},
		{"/srv/store", false, extra},
		{"/srv/store/T-1.json", false, extra},
		{"/SRV/Store/T-1.json", false, extra},
		{"/srv/storex/T-1.json", false, outside},
		{"/p/.matrixx/matrixx.jsonc", false, config},
		{"/p/.matrixx/MATRIXX.JSON", false, config},
		{"/p/.matrixx/matrixx.jsonc.bak", false, outside},
		{"/p/.matrixx/state", false, state},
		{"/p/.matrixx/state/continue-s.json", false, state},
		{"/h/.config/opencode/matrixx.jsonc", false, config},
		{"/h/.config/opencode/other.json", false, outside},
		{"/cfg/oc/matrixx.jsonc", false, config},
		{"/cfg/oc", false, configDir},
		{"/cfg/oc/x", false, outside},
		{"C:/Users/dev/.matrixx/tasks/T-1.json", false, tasks},
		{"", false, outside},
	} {
		e.taint = c.taint
		if got := e.classify(c.p); got != c.want {
			t.Errorf("classify(%q, taint %v) = %v, want %v", c.p, c.taint, got, c.want)
		}
	}
}

func TestToolKind(t *testing.T) {
	for _, c := range []struct {
		name    string
		command bool
		want    kind
	}{
		{"Bash", false, kindBash},
		{"bash", false, kindBash},
		{"Write", false, kindWrite},
		{"Edit", false, kindWrite},
		{"MultiEdit", false, kindWrite},
		{"NotebookEdit", false, kindWrite},
		{"Read", false, kindRead},
		{"Glob", false, kindNone},
		{"Grep", false, kindNone},
		{"LS", false, kindNone},
		{"NotebookRead", false, kindRead},
		{"TodoWrite", false, kindWrite},
		{"mcp__filesystem__read_file", false, kindRead},
		{"mcp__filesystem__read_text_file", false, kindRead},
		{"mcp__filesystem__read_multiple_files", false, kindRead},
		{"mcp__filesystem__write_file", false, kindWrite},
		{"mcp__filesystem__edit_file", false, kindWrite},
		{"mcp__filesystem__create_directory", false, kindWrite},
		{"mcp__filesystem__move_file", false, kindWrite},
		{"mcp__filesystem__list_directory", false, kindNone},
		{"mcp__filesystem__directory_tree", false, kindNone},
		{"mcp__filesystem__search_files", false, kindNone},
		{"mcp__filesystem__get_file_info", false, kindNone},
		{"mcp__filesystem__list_allowed_directories", false, kindNone},
		{"mcp__github__get_file_contents", false, kindRead},
		{"mcp__github__create_or_update_file", false, kindWrite},
		{"mcp__x__frobnicate", false, kindWrite},
		{"mcp__matrixx__task_update", false, kindNone},
		{"mcp__matrixx__plan_read", false, kindNone},
		{"mcp__matrixx__task_claim", false, kindNone},
		{"mcp__matrixx__rewrite_store", true, kindNone},
		{"mcp__Matrixx__delete_everything", false, kindNone},
		{"mcp__plugin_matrixx_matrixx__task_sync", false, kindNone},
		{"mcp__plugin_evil_matrixx__delete_file", false, kindWrite},
		{"mcp__matrixxx__delete_file", false, kindWrite},
		{"mcp__files__matrixx_write", false, kindWrite},
		{"mcp__desktop-commander__execute_command", true, kindBash},
		{"mcp__shell__run", true, kindBash},
		{"mcp__shell__run", false, kindWrite},
		{"mcp__desktop-commander__start_process", true, kindBash},
		{"mcp__x__run_script", true, kindBash},
		{"mcp__x__exec_cmd", true, kindBash},
	} {
		if got := toolKind(c.name, c.command); got != c.want {
			t.Errorf("toolKind(%q, %v) = %v, want %v", c.name, c.command, got, c.want)
		}
	}
	// Only MCP tools with a command are analysed as shell commands.
	if toolKind("SlashCommand", true) == kindBash {
		t.Error("SlashCommand analysed as Bash")
	}
}

func TestWriteIntent(t *testing.T) {
	for _, c := range []struct {
		code string
		awk  bool
		want bool
	}{
		{`open('x','w')`, false, true},
		{`open("x", "a+")`, false, true},
		{`open(p, mode='rb+')`, false, true},
		{`json.dump(d, open(p, 'w'))`, false, true},
		{`Path(p).write_text('x')`, false, true},
		{`os.remove(p)`, false, true},
		{`fs.unlinkSync(p)`, false, true},
		{`File.open(f, "w") { |h| h.puts 1 }`, false, true},
		{`open(my $fh, '>', $f)`, false, true},
		{`open(F, ">$f")`, false, true},
		{`os.system('rm x')`, false, true},
		{`json.load(open(p))`, false, false},
		{`print(d['a'], d['x'])`, false, false},
		{`print "> $_"`, false, false},
		{`console.log(require(p).status)`, false, false},
		{`{print > "out"}`, true, true},
		{`{print $1 >> f}`, true, true},
		{`{print | "sh"}`, true, true},
		{`{system("rm x")}`, true, true},
		{`$2 > 0 {print}`, true, false},
		{`{print $1}`, true, false},
	} {
		if got := writeIntent(c.code, c.awk); got != c.want {
			t.Errorf("writeIntent(%q, awk %v) = %v, want %v", c.code, c.awk, got, c.want)
		}
	}
}

func TestCodeMention(t *testing.T) {
	for _, c := range []struct {
		code string
		want store
	}{
		{`open('.matrixx/tasks/T-1.json')`, tasks},
		{`open(".MATRIXX\\Plans\\p.md")`, plans},
		{`open('.matrixx\/tasks\/x')`, tasks},
		{`os.path.join('.matrixx', 'tasks', f)`, tasks},
		{`Path(".matrixx") / "plans"`, plans},
		{`shutil.rmtree('.matrixx')`, root},
		{`open('.matrixx/notepads/x')`, outside},
		{`print('.matrixx')`, outside},
		{`open('/srv/store/T-1.json')`, extra},
		{`open('.matrixx/matrixx.jsonc', 'w')`, config},
		{`open(os.path.join('.matrixx', 'matrixx.json'), 'w')`, config},
		{`open('/home/u/.config/opencode/matrixx.jsonc', 'w')`, config},
		{`open('.matrixx/state/continue.json', 'w')`, state},
	} {
		e := &env{extra: []string{"/srv/store"}, config: []string{"/home/u/.config/opencode/matrixx.jsonc"}}
		if _, got := e.codeMention(c.code); got != c.want {
			t.Errorf("codeMention(%q) = %v, want %v", c.code, got, c.want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for _, c := range []struct {
		in   string
		q    quoting
		want string
	}{
		{`\rm`, unquoted, "rm"},
		{`a\ b`, unquoted, "a b"},
		{"a\\\nb", unquoted, "ab"},
		{`a\$b\q`, inDouble, `a$b\q`},
		{`a\"b`, inDouble, `a"b`},
		{`a\"b\$c`, inHdoc, `a\"b$c`},
		{`plain`, unquoted, "plain"},
	} {
		if got := unescape(c.in, c.q); got != c.want {
			t.Errorf("unescape(%q, %v) = %q, want %q", c.in, c.q, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`\x2ematrixx`, ".matrixx"},
		{`\056matrixx`, ".matrixx"},
		{`\u002ematrixx`, ".matrixx"},
		{`a\tb\n`, "a\tb\n"},
		{`\'q\'`, "'q'"},
		{`cut\x00here`, "cut"},
		{`\q`, `\q`},
	} {
		if got := ansiC(c.in); got != c.want {
			t.Errorf("ansiC(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSlashesAndResolve(t *testing.T) {
	for in, want := range map[string]string{
		`C:\Users\dev\.matrixx\tasks`: "C:/Users/dev/.matrixx/tasks",
		"file:///home/dev/x":          "/home/dev/x",
		"file:///C:/x":                "C:/x",
		"/already/posix":              "/already/posix",
		`.matrixx\tasks\T-1.json`:     ".matrixx/tasks/T-1.json",
		"relative/with//double":       "relative/with//double",
		`mixed\path/with\back/slash`:  "mixed/path/with/back/slash",
	} {
		if got := slashes(in); got != want {
			t.Errorf("slashes(%q) = %q, want %q", in, got, want)
		}
	}
	if got := resolve("/nonexistent-guard-test/a/b"); got != "" {
		t.Errorf("resolve of a missing path = %q, want \"\"", got)
	}
	dir := t.TempDir()
	if got, want := resolve(dir+"/missing/x"), filepath.ToSlash(mustEval(t, dir))+"/missing/x"; got != want {
		t.Errorf("resolve(existing/missing) = %q, want %q", got, want)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
