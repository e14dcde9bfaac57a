package hookcmd

import (
	"fmt"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// otherHost reports whether the flag names a host other than Claude Code.
func otherHost(f commands.HookHostFlag) (hook.Host, bool) {
	h, err := hook.ParseHost(f.Host)
	return h, err == nil && (h == hook.HostCodex || h == hook.HostGemini)
}

// hostFile is the settings file of a host that the flags name.
func hostFile(a *app.App, f *commands.HookSettingsFlags, h hook.Host) (string, error) {
	home, herr := a.Env.Home()
	if f.User {
		if herr != nil || home == "" {
			return "", errcode.New(errcode.InternalError, "cannot find your home directory for --user")
		}
		return hook.HostSettings(h, "", home, a.Env.Getenv("CODEX_HOME"), true), nil
	}
	root, err := project.CheckoutRoot(f.Dir, a.Env)
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	return hook.HostSettings(h, root, home, "", false), nil
}

// installHost is install --host codex|gemini: our entries (HostEntries)
// in the host's settings file, running this binary with --host; every
// other key, event and hook of the file stays. Running it again changes
// nothing.
func (c *installCmd) installHost(a *app.App, h hook.Host) error {
	path, err := hostFile(a, &c.HookSettingsFlags, h)
	if err != nil {
		return err
	}
	command, err := c.hookCommand()
	if err != nil {
		return err
	}
	if !hook.IsOurs(command) {
		return errcode.New(errcode.InvalidArguments, "the hook command %q does not run %s, so uninstall could not recognise it: install it under that name, or use --command", command, hook.Binary)
	}
	command += " --host " + h.String()
	file, orig, mode, err := loadSettings(path)
	if err != nil {
		return err
	}
	res, err := hook.InstallEntries(orig, command, hook.HostEntries(h))
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; fix the file and run install again (nothing was written)", path, err)
	}
	if c.Print {
		_, _ = a.Stdout.Write(res.Data)
		return nil
	}
	if err := saveInstall(a, file, path, command, hook.HostEntries(h), res, mode, "note: "+path+" had comments, which the rewritten file does not keep"); err != nil {
		return err
	}
	switch h {
	case hook.HostCodex:
		a.Warnf("note: Codex CLI runs hooks only once you trust them: review and trust them with /hooks in codex (it records the trust in config.toml), or run codex exec --dangerously-bypass-hook-trust in automation; a project's .codex/ is read only in a trusted project (docs/hosts.md)")
	case hook.HostGemini:
		a.Warnf("note: Gemini CLI asks once before it runs a project's hooks and remembers the answer in ~/.gemini/trusted_hooks.json (docs/hosts.md)")
	}
	return nil
}

// uninstallHost removes our entries from the host's settings file (and
// the file, when nothing else was in it).
func (c *uninstallCmd) uninstallHost(a *app.App, h hook.Host) error {
	path, err := hostFile(a, &c.HookSettingsFlags, h)
	if err != nil {
		return err
	}
	file, orig, mode, err := loadSettings(path)
	if err != nil {
		return err
	}
	if orig == nil {
		fmt.Fprintf(a.Stdout, "%s: nothing to remove: %s does not exist\n", a.Name, path)
		return nil
	}
	res, err := hook.Uninstall(orig)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; nothing was changed", path, err)
	}
	_, err = saveUninstall(a, c.Print, path, file, res, mode, "")
	return err
}
