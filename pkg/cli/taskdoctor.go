package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
)

// doctorDoc is task-doctor's stdin document.
type doctorDoc struct {
	Strict bool `json:"strict,omitzero"`
	Repair bool `json:"repair,omitzero"`
}

// doctorCmd is task-doctor's command line (commands.TaskDoctor) and what it runs.
type doctorCmd struct{ commands.TaskDoctor }

// TaskDoctor is the task-doctor binary.
func TaskDoctor(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &doctorCmd{}
	return app.Run("task-doctor", commands.Help("task-doctor"), c, c.run, args, stdin, stdout, stderr)
}

func (c *doctorCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	doc := doctorDoc{Strict: c.Strict, Repair: c.Repair}
	given := ""
	if c.Strict || c.Repair {
		given = "flags"
	}
	data, _, err := a.ReadInput(given, app.DocOptional)
	if err != nil {
		return err
	}
	if given == "" {
		if err := input.Decode(data, &doc); err != nil {
			return err
		}
	}
	rep, err := a.Ops(&c.Globals, &c.WriteFlags).Doctor(doc.Repair)
	if err != nil {
		return err
	}
	a.Emit(rep)
	a.Exit = ops.DoctorExit(rep, doc.Strict)
	return nil
}
