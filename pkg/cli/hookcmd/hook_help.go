package hookcmd

// The hook subcommands' detailed help: a short example first.

func (c *guardCmd) Help() string {
	return "Example: matrixx-hook guard < pretooluse-event.json"
}

func (c *notepadCmd) Help() string {
	return "Example: task-create --subject 'Build backend' | matrixx-hook notepad"
}

func (c *continueCmd) Help() string {
	return "Example: matrixx-hook continue < stop-event.json"
}

func (c *sessionStartCmd) Help() string {
	return "Example: matrixx-hook session-start < sessionstart-event.json"
}

func (c *installCmd) Help() string {
	return "Example: matrixx-hook install"
}

func (c *uninstallCmd) Help() string {
	return "Example: matrixx-hook uninstall"
}

func (c *snippetCmd) Help() string {
	return "Example: matrixx-hook snippet >> AGENTS.md"
}

func (c *acceptCmd) Help() string {
	return "Example: matrixx-hook accept   # in your own terminal, after editing .matrixx/ by hand"
}

func (c *continuationCmd) Help() string {
	return "Example: matrixx-hook continuation off --session ses_123   # or, in the agent's shell, without --session"
}
