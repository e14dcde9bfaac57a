package porcelain

import (
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/complete"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" placeholder:"SHELL" help:"bash, zsh or fish."`
}

func (c *completionCmd) Help() string {
	return `Example: source <(matrixx completion bash)

Prints the completion script for matrixx and every plumbing binary (task-create, task-get,
task-list, task-update, task-cleanup, plan, matrixx-hook, ...): subcommands, flags, statuses and
other enum values, task handles (described by their subjects) and plan names. Install it once:

  bash:  echo 'source <(matrixx completion bash)' >> ~/.bashrc
  zsh:   echo 'source <(matrixx completion zsh)' >> ~/.zshrc      (after compinit)
  fish:  echo 'matrixx completion fish | source' >> ~/.config/fish/config.fish

The scripts ask matrixx for the candidates on each Tab, so they never go stale.`
}

// Binaries are the binaries the completion scripts cover: every binary of
// the command table, matrixx first.
func Binaries() []string {
	return commands.Names()
}

// GrammarOf is the kong parser of binary bin (for completion and tests),
// nil when it is not one of Binaries.
func GrammarOf(bin string) *kong.Kong {
	if bin == Name {
		return Grammar()
	}
	return commands.Grammar(bin)
}

func (c *completionCmd) run(r *runner) error {
	return complete.Script(r.stdout, c.Shell, Name, Binaries())
}

type completeCmd struct {
	Shell string   `arg:"" enum:"bash,zsh,fish" help:"Shell asking."`
	Words []string `arg:"" optional:"" passthrough:"" help:"The command line up to the cursor, one word per argument, the last being completed."`
}

func (c *completeCmd) run(r *runner) error {
	words := c.Words
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	bin := strings.TrimSuffix(filepath.Base(words[0]), ".exe")
	k := GrammarOf(bin)
	if k == nil {
		return nil // not ours: nothing to offer
	}
	res := complete.Complete(k.Model, words, predictor{r})
	complete.Write(r.stdout, c.Shell, res)
	return nil
}

// predictor reads task handles and plan names from the project; failures
// (no project, unreadable store) offer nothing.
type predictor struct{ r *runner }

func (p predictor) open(dir string) *ops.Project {
	pr, err := ops.Open(Name, dir, "", io.Discard)
	if err != nil {
		return nil
	}
	return pr
}

// Tasks offers the active tasks (pending, in_progress), or with finished
// the completed and deleted ones: their shortest unique handles, described
// by their subjects.
func (p predictor) Tasks(dir string, finished bool) []complete.Candidate {
	pr := p.open(dir)
	if pr == nil {
		return nil
	}
	snap, err := pr.Store.Scan(store.ScanOptions{})
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(snap.Entries)+len(snap.Problems))
	for _, e := range snap.Entries {
		ids = append(ids, e.Task.ID)
	}
	for _, pb := range snap.Problems {
		if id := strings.TrimSuffix(pb.File, ".json"); task.ValidID(id) {
			ids = append(ids, id)
		}
	}
	hs := task.ShortHandles(ids)
	var out []complete.Candidate
	for i, e := range snap.Entries {
		t := e.Task
		if t.Status.Active() == finished {
			continue
		}
		desc := clean(t.Subject)
		if t.Status != task.Pending {
			desc += " [" + string(t.Status) + "]"
		}
		out = append(out, complete.Candidate{Value: hs[i], Desc: desc})
	}
	return out
}

// Labels offers the labels the store's tasks carry (metadata.labels), each
// described by how many active tasks carry it. It reads every record, as
// Tasks does.
func (p predictor) Labels(dir string) []complete.Candidate {
	pr := p.open(dir)
	if pr == nil {
		return nil
	}
	snap, err := pr.Store.Scan(store.ScanOptions{})
	if err != nil {
		return nil
	}
	count := map[string]int{}
	var order []string
	for _, e := range snap.Entries {
		for _, l := range e.Task.Labels() {
			if _, ok := count[l]; !ok {
				order = append(order, l)
				count[l] = 0
			}
			if e.Task.Status.Active() {
				count[l]++
			}
		}
	}
	sort.Strings(order)
	out := make([]complete.Candidate, 0, len(order))
	for _, l := range order {
		out = append(out, complete.Candidate{Value: l, Desc: itoa(count[l]) + " active"})
	}
	return out
}

// Plans offers the plan names, described by their progress.
func (p predictor) Plans(dir string) []complete.Candidate {
	pr := p.open(dir)
	if pr == nil {
		return nil
	}
	res, err := pr.Plans().List()
	if err != nil {
		return nil
	}
	out := make([]complete.Candidate, 0, len(res.Plans))
	for _, pl := range res.Plans {
		out = append(out, complete.Candidate{Value: pl.Name, Desc: itoa(pl.Progress.Done) + "/" + itoa(pl.Progress.Total) + " done"})
	}
	return out
}

// Grammar returns matrixx's kong parser (for completion and tests); it is
// never run.
func Grammar() *kong.Kong {
	k, _ := newParser(&model{}, io.Discard, io.Discard)
	return k
}
