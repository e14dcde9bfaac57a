package mcpserver

import (
	"slices"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// TestEveryToolBound: every tool of the command table has its binding here
// (an input schema and a call), and every binding is a tool of the table:
// the tool list is the table's, nothing is offered that the table does not
// describe.
func TestEveryToolBound(t *testing.T) {
	bs := bindings()
	var names []string
	for _, c := range commands.Tools() {
		names = append(names, c.Tool.Name)
		if _, ok := bs[c.Tool.Name]; !ok {
			t.Errorf("%s: in the command table, but the server has no binding for it", c.Tool.Name)
		}
	}
	for name := range bs {
		if !slices.Contains(names, name) {
			t.Errorf("%s: bound here, but not a tool of the command table", name)
		}
	}
	if got := len(Tools()); got != len(names) {
		t.Errorf("Tools() has %d tools, the table %d", got, len(names))
	}
}
