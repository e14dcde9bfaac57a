package hook

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestIsOurs(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"matrixx-hook", true},
		{"/usr/local/bin/matrixx-hook", true},
		{"'/opt/my tools/matrixx-hook'", true},
		{`"$CLAUDE_PROJECT_DIR"/bin/matrixx-hook`, true},
		{"matrixx-hook guard", false},
		{"matrixx-hook-old", false},
		{"/bin/sh -c matrixx-hook", false},
		{"audit-bash", false},
		{"'unterminated", false},
		{"$(touch /tmp/x)/matrixx-hook", false},
		{"<(touch /tmp/x)", false},
		{"`matrixx-hook`", false},
		{"matrixx-hook > /dev/null", false},
		{"X=1 matrixx-hook", false},
		{"matrixx-hook &", false},
		{"matrixx-hook; rm -rf /", false},
		{"${HOME:-/x}/matrixx-hook", false},
		{"$HOME/bin/matrixx-hook", true},
		{`/opt/my\ tools/matrixx-hook`, true},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsOurs(tt.cmd); got != tt.want {
			t.Errorf("IsOurs(%q) = %v", tt.cmd, got)
		}
	}
}

// hooksOf decodes a settings file's hooks as event → commands per group.
func hooksOf(t *testing.T, data []byte) map[string][][]string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	out := map[string][][]string{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			var cmds []string
			for _, h := range g.Hooks {
				cmds = append(cmds, g.Matcher+"="+h.Command)
			}
			out[ev] = append(out[ev], cmds)
		}
	}
	return out
}

func TestInstallUninstall(t *testing.T) {
	tests := []struct {
		name, in string
		changed  bool
		check    func(t *testing.T, h map[string][][]string)
	}{
		{"empty file", "", true, func(t *testing.T, h map[string][][]string) {
			if len(h) != 7 || h["Stop"][0][0] != "=/x/matrixx-hook" || h["PreToolUse"][0][0] != Entries[0].Matcher+"=/x/matrixx-hook" {
				t.Errorf("%v", h)
			}
		}},
		{"already installed", `{"hooks":{
			"PreToolUse":[{"matcher":"Bash|Write|Edit|MultiEdit|NotebookEdit|Read|TodoWrite|TodoRead|TaskCreate|TaskUpdate|TaskList|TaskGet|mcp__.*","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"PostToolUse":[{"matcher":"Bash|Write|Edit|MultiEdit|NotebookEdit|Read|mcp__.*","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"PostToolUseFailure":[{"matcher":"Bash|Write|Edit|MultiEdit|NotebookEdit|mcp__.*","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"Stop":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"SubagentStop":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"SessionStart":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"SessionEnd":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}]}}`, false, nil},
		{"old matcher is replaced", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}]}}`, true,
			func(t *testing.T, h map[string][][]string) {
				if len(h["PreToolUse"]) != 1 || h["PreToolUse"][0][0] != Entries[0].Matcher+"=/x/matrixx-hook" {
					t.Errorf("%v", h["PreToolUse"])
				}
			}},
		{"shared group keeps the other handler", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"},{"type":"command","command":"/old/matrixx-hook"}]}]}}`, true,
			func(t *testing.T, h map[string][][]string) {
				if len(h["Stop"]) != 2 || len(h["Stop"][0]) != 1 || h["Stop"][0][0] != "=say done" || h["Stop"][1][0] != "=/x/matrixx-hook" {
					t.Errorf("%v", h["Stop"])
				}
			}},
		{"duplicates collapse", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]},{"hooks":[{"type":"command","command":"matrixx-hook"}]}]}}`, true,
			func(t *testing.T, h map[string][][]string) {
				if len(h["Stop"]) != 1 {
					t.Errorf("%v", h["Stop"])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Install([]byte(tt.in), "/x/matrixx-hook")
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed != tt.changed {
				t.Errorf("changed %v", res.Changed)
			}
			if tt.check != nil {
				tt.check(t, hooksOf(t, res.Data))
			}
			again, err := Install(res.Data, "/x/matrixx-hook")
			if err != nil || again.Changed || string(again.Data) != string(res.Data) {
				t.Errorf("second install changed the file (err %v)", err)
			}
			un, err := Uninstall(res.Data)
			if err != nil {
				t.Fatal(err)
			}
			for ev, groups := range hooksOf(t, un.Data) {
				for _, g := range groups {
					for _, c := range g {
						if strings.HasSuffix(c, "matrixx-hook") {
							t.Errorf("%s still has %s", ev, c)
						}
					}
				}
			}
		})
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, in := range []string{`[]`, `{"hooks":[]}`, `{"hooks":{"Stop":{}}}`, `{"a":`, `{"a":1} x`} {
		if _, err := Install([]byte(in), "matrixx-hook"); err == nil {
			t.Errorf("Install(%s): no error", in)
		}
	}
	// duplicate keys: Claude Code reads the last, install and uninstall
	// would edit the first
	for _, in := range []string{
		`{"hooks":{"Stop":[]},"model":"x","hooks":{}}`,
		`{"hooks":{"Stop":[],"Stop":[]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a","command":"matrixx-hook"}]}]}}`,
	} {
		if _, err := Install([]byte(in), "matrixx-hook"); err == nil {
			t.Errorf("Install(%s): no error", in)
		}
		if _, err := Uninstall([]byte(in)); err == nil {
			t.Errorf("Uninstall(%s): no error", in)
		}
	}
	if _, err := Install([]byte(`{"hooks":{"Stop":[]},"hooks":{}}`), "matrixx-hook"); err == nil || !strings.Contains(err.Error(), `"hooks" appears more than once`) {
		t.Errorf("duplicate hooks: %v", err)
	}
	if _, err := Install([]byte(`{"hooks":{"Stop":[],"Stop":[]}}`), "matrixx-hook"); err == nil || !strings.Contains(err.Error(), "duplicate key hooks/Stop") {
		t.Errorf("duplicate event: %v", err)
	}
	// duplicates elsewhere are not ours to judge
	if _, err := Install([]byte(`{"model":"a","model":"b"}`), "matrixx-hook"); err != nil {
		t.Errorf("duplicate model: %v", err)
	}
	res, err := Install([]byte("{\n// c\n\"a\": 1, /* d */\n}"), "matrixx-hook")
	if err != nil || !res.DroppedComments {
		t.Errorf("comments: %v %v", err, res.DroppedComments)
	}
	res, err = Install([]byte(`{"url":"http://x/*y*/"}`), "matrixx-hook")
	if err != nil || res.DroppedComments {
		t.Errorf("no comments: %v %v", err, res.DroppedComments)
	}
}

// TestInstallKeepsExtraKeys: a key the user added to our handler (a
// timeout) or group survives a re-install, whether the entry is updated in
// place or moved out of a shared group.
func TestInstallKeepsExtraKeys(t *testing.T) {
	type handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	type group struct {
		Matcher string    `json:"matcher"`
		Note    string    `json:"note"`
		Hooks   []handler `json:"hooks"`
	}
	decode := func(data []byte) map[string][]group {
		var doc struct {
			Hooks map[string][]group `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		return doc.Hooks
	}
	tests := []struct{ name, in string }{
		{"in place", `{"hooks":{"PreToolUse":[{"matcher":"Bash","note":"mine","hooks":[{"type":"command","command":"/old/matrixx-hook","timeout":30}]}],"Stop":[{"matcher":"*","hooks":[{"command":"/old/matrixx-hook","timeout":30}]}]}}`},
		{"out of a shared group", `{"hooks":{"PreToolUse":[{"matcher":"Bash","note":"mine","hooks":[{"type":"command","command":"audit"},{"type":"command","command":"/old/matrixx-hook","timeout":30}]}],"Stop":[{"hooks":[{"type":"command","command":"/a/matrixx-hook","timeout":30}]},{"hooks":[{"type":"command","command":"/b/matrixx-hook","timeout":99}]}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Install([]byte(tt.in), "/x/matrixx-hook")
			if err != nil || !res.Changed {
				t.Fatalf("err %v changed %v", err, res.Changed)
			}
			h := decode(res.Data)
			pre := h["PreToolUse"][len(h["PreToolUse"])-1]
			if pre.Matcher != Entries[0].Matcher || len(pre.Hooks) != 1 || pre.Hooks[0] != (handler{"command", "/x/matrixx-hook", 30}) {
				t.Errorf("PreToolUse %+v\n%s", h["PreToolUse"], res.Data)
			}
			if tt.name == "in place" && (len(h["PreToolUse"]) != 1 || pre.Note != "mine") {
				t.Errorf("group key lost: %+v", h["PreToolUse"])
			}
			if len(h["Stop"]) != 1 || h["Stop"][0].Matcher != "" || h["Stop"][0].Hooks[0] != (handler{"command", "/x/matrixx-hook", 30}) {
				t.Errorf("Stop %+v\n%s", h["Stop"], res.Data)
			}
			again, err := Install(res.Data, "/x/matrixx-hook")
			if err != nil || again.Changed {
				t.Errorf("second install: err %v changed %v", err, again.Changed)
			}
		})
	}
}

// TestUninstallEmpty: a file that held only our hooks is empty after
// uninstall (the command line then removes it); disableAllHooks is seen.
func TestUninstallEmpty(t *testing.T) {
	res, err := Install(nil, "/x/matrixx-hook")
	if err != nil || res.Empty {
		t.Fatalf("install: %v, empty %v", err, res.Empty)
	}
	un, err := Uninstall(res.Data)
	if err != nil || !un.Changed || !un.Empty {
		t.Errorf("uninstall: err %v changed %v empty %v: %s", err, un.Changed, un.Empty, un.Data)
	}
	un, err = Uninstall([]byte(`{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"matrixx-hook"}]}]}}`))
	if err != nil || un.Empty {
		t.Errorf("other keys: err %v empty %v", err, un.Empty)
	}
	res, err = Install([]byte(`{"disableAllHooks":true}`), "/x/matrixx-hook")
	if err != nil || !res.HooksDisabled {
		t.Errorf("disableAllHooks: err %v, HooksDisabled %v", err, res.HooksDisabled)
	}
}
