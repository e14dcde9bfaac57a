package cli

import (
	"reflect"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// The commands agents and hooks run most take their simplest command lines
// without kong (app.QuickParser): -C, --session, --pretty and an id, and
// the flags of a swarm worker's loop, "task-claim --owner W [--lease DUR]
// [ID]" and "task-update ID --status completed --expect-owner W".

func (c *getCmd) QuickParse(args []string) bool    { return app.QuickArgs(args, &c.Globals, &c.ID) }
func (c *listCmd) QuickParse(args []string) bool   { return app.QuickArgs(args, &c.Globals, nil) }
func (c *createCmd) QuickParse(args []string) bool { return app.QuickArgs(args, &c.Globals, nil) }

func (c *updateCmd) QuickParse(args []string) bool {
	statuses := strings.Split(tagOf[commands.TaskUpdate]("Status", "enum"), ",")
	return app.QuickArgs(args, &c.Globals, &c.ID,
		app.QuickEnum("status", &c.Status, statuses...),
		app.QuickString("expect-owner", &c.ExpectOwner))
}

func (c *claimCmd) QuickParse(args []string) bool {
	var id string
	if !app.QuickArgs(args, &c.Globals, &id,
		app.QuickString("owner", &c.Owner),
		app.QuickDuration("lease", &c.Lease)) {
		return false
	}
	if id != "" { // the quick path takes no empty word: kong parses those
		c.ID = &id
	}
	c.RemoteName = tagOf[commands.TaskClaim]("RemoteName", "default")
	return true
}

// tagOf returns the value of key in the struct tag of field of the command
// line T: the quick path takes enums and defaults from where kong does.
func tagOf[T any](field, key string) string {
	f, _ := reflect.TypeFor[T]().FieldByName(field)
	return f.Tag.Get(key)
}
