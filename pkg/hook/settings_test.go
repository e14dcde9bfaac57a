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
			if len(h) != 5 || h["Stop"][0][0] != "=/x/matrixx-hook" || h["PreToolUse"][0][0] != Entries[0].Matcher+"=/x/matrixx-hook" {
				t.Errorf("%v", h)
			}
		}},
		{"already installed", `{"hooks":{
			"PreToolUse":[{"matcher":"Bash|Write|Edit|MultiEdit|NotebookEdit|Read|mcp__.*","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"PostToolUse":[{"matcher":"Bash|mcp__.*","hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"Stop":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"SubagentStop":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}],
			"SessionStart":[{"hooks":[{"type":"command","command":"/x/matrixx-hook"}]}]}}`, false, nil},
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
	res, err := Install([]byte("{\n// c\n\"a\": 1, /* d */\n}"), "matrixx-hook")
	if err != nil || !res.DroppedComments {
		t.Errorf("comments: %v %v", err, res.DroppedComments)
	}
	res, err = Install([]byte(`{"url":"http://x/*y*/"}`), "matrixx-hook")
	if err != nil || res.DroppedComments {
		t.Errorf("no comments: %v %v", err, res.DroppedComments)
	}
}
