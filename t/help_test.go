package t

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/hookcmd"
	"github.com/matrixx-dev/matrixx-tasks/pkg/mcpserver"
	"github.com/matrixx-dev/matrixx-tasks/pkg/porcelain"
)

// mains are the binaries' functions by name, as TestMain registers them.
var mains = map[string]func([]string, io.Reader, io.Writer, io.Writer) int{
	"task-create":  cli.TaskCreate,
	"task-get":     cli.TaskGet,
	"task-list":    cli.TaskList,
	"task-update":  cli.TaskUpdate,
	"task-cleanup": cli.TaskCleanup,
	"task-claim":   cli.TaskClaim,
	"task-doctor":  cli.TaskDoctor,
	"task-sync":    cli.TaskSync,
	"task-feed":    cli.TaskFeed,
	"matrixx-mcp":  mcpserver.Main,
	"plan":         cli.Plan,
	"matrixx-hook": hookcmd.Main,
	"matrixx":      porcelain.Main,
}

// TestHelpExampleFirst: --help of every binary and of every visible
// subcommand shows a short example ("Example: …") in its first two
// paragraphs after the usage line (the one-line summary may precede it).
func TestHelpExampleFirst(t *testing.T) {
	for _, bin := range porcelain.Binaries() {
		run, ok := mains[bin]
		if !ok {
			t.Errorf("%s: not registered in this test", bin)
			continue
		}
		model := porcelain.GrammarOf(bin).Model
		paths := [][]string{nil}
		for _, c := range model.Children {
			if c.Type == kong.CommandNode && !c.Hidden {
				paths = append(paths, []string{c.Name})
			}
		}
		for _, p := range paths {
			var out bytes.Buffer
			run(append(append([]string{}, p...), "--help"), strings.NewReader(""), &out, io.Discard)
			paras := strings.Split(strings.TrimSpace(out.String()), "\n\n")
			ok := false
			for i := 1; i < len(paras) && i <= 2; i++ {
				ok = ok || strings.HasPrefix(paras[i], "Example: ") && strings.Contains(strings.SplitN(paras[i], "\n", 2)[0], bin)
			}
			if !ok {
				t.Errorf("%s %s --help: no \"Example: %s …\" first:\n%s", bin, strings.Join(p, " "), bin, out.String())
			}
		}
	}
}
