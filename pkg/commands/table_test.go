package commands

import (
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestTableConsistent: every binary has a unique name and, but for
// matrixx, a help text and a command line kong accepts; every command
// belongs to a binary of the table (--where to all of them) and names an
// existing subcommand; tool names and schema stems are unique.
func TestTableConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range Binaries() {
		if seen[b.Name] {
			t.Errorf("binary %s listed twice", b.Name)
		}
		seen[b.Name] = true
		if b.Summary == "" {
			t.Errorf("%s: no summary", b.Name)
		}
		if b.Name == BinPorcelain {
			if Grammar(b.Name) != nil {
				t.Errorf("matrixx: the porcelain's command line is its own, not the table's")
			}
			continue
		}
		if !strings.HasPrefix(b.Help, "Example: "+b.Name) {
			t.Errorf("%s: help does not start with an example of it: %.40q", b.Name, b.Help)
		}
		if Grammar(b.Name) == nil {
			t.Errorf("%s: kong refuses its command line", b.Name)
		}
	}
	tools, stems := map[string]bool{}, map[string]bool{}
	for _, c := range Commands() {
		if c.Binary == "" {
			if c.Op != "Where" {
				t.Errorf("%+v: a command without a binary that is not --where", c)
			}
		} else if !seen[c.Binary] {
			t.Errorf("%s %s: not a binary of the table", c.Binary, c.Sub)
		}
		if c.Sub != "" {
			k := Grammar(c.Binary)
			if k == nil || !slices.ContainsFunc(k.Model.Children, func(n *kong.Node) bool { return n.Name == c.Sub }) {
				t.Errorf("%s %s: no such subcommand in its command line", c.Binary, c.Sub)
			}
		}
		if c.Schema != "" {
			if stems[c.Schema] {
				t.Errorf("schema stem %s listed twice", c.Schema)
			}
			stems[c.Schema] = true
			if c.Title == "" {
				t.Errorf("%s: a schema without a title", c.Schema)
			}
		}
		if c.Tool != nil {
			if tools[c.Tool.Name] || !OwnTool(c.Tool.Name) {
				t.Errorf("tool %s listed twice or not found", c.Tool.Name)
			}
			tools[c.Tool.Name] = true
			if c.Op == "" || c.Tool.Title == "" || c.Tool.Description == "" || (c.Tool.Tier != TierCore && c.Tool.Tier != TierAll) {
				t.Errorf("tool %s: needs an operation, a title, a description and a tier", c.Tool.Name)
			}
		}
	}
	if !Own("task-get") || Own("task-gets") || Own("") {
		t.Errorf("Own: task-get is ours, task-gets and \"\" are not")
	}
}
