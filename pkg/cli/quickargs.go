package cli

import "github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"

// The commands agents and hooks run most take their simplest command lines
// without kong (app.QuickParser).

func (c *getCmd) QuickParse(args []string) bool    { return app.QuickArgs(args, &c.Globals, &c.ID) }
func (c *listCmd) QuickParse(args []string) bool   { return app.QuickArgs(args, &c.Globals, nil) }
func (c *createCmd) QuickParse(args []string) bool { return app.QuickArgs(args, &c.Globals, nil) }
func (c *updateCmd) QuickParse(args []string) bool { return app.QuickArgs(args, &c.Globals, &c.ID) }
