package ops

import (
	"reflect"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// TestTableOperations: every operation the command table names is a
// method of *Ops, so the table cannot name an operation that does not
// exist (or was renamed).
func TestTableOperations(t *testing.T) {
	typ := reflect.TypeFor[*Ops]()
	for _, c := range commands.Commands() {
		if c.Op == "" {
			continue
		}
		if _, ok := typ.MethodByName(c.Op); !ok {
			t.Errorf("%s %s: the table names the operation %s, which *ops.Ops does not have", c.Binary, c.Sub, c.Op)
		}
	}
}
