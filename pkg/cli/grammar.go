package cli

import (
	"io"

	"github.com/alecthomas/kong"
)

// grammars are the binaries of this package with a fresh command-line
// model and help text each, for Grammar.
var grammars = map[string]func() (any, string){
	"task-create":  func() (any, string) { return &createCmd{}, createHelp },
	"task-get":     func() (any, string) { return &getCmd{}, getHelp },
	"task-list":    func() (any, string) { return &listCmd{}, listHelp },
	"task-update":  func() (any, string) { return &updateCmd{}, updateHelp },
	"task-cleanup": func() (any, string) { return &cleanupCmd{}, cleanupHelp },
	"task-claim":   func() (any, string) { return &claimCmd{}, claimHelp },
	"task-doctor":  func() (any, string) { return &doctorCmd{}, doctorHelp },
	"task-sync":    func() (any, string) { return &syncCmd{}, syncHelp },
	"task-feed":    func() (any, string) { return &feedCmd{}, feedHelp },
	"plan":         func() (any, string) { return &planCmd{}, planHelp },
}

// Binaries lists the binaries Grammar knows, in a stable order.
func Binaries() []string {
	return []string{"task-create", "task-get", "task-list", "task-update", "task-cleanup", "task-claim", "task-doctor", "task-sync", "task-feed", "plan"}
}

// Grammar returns a kong parser holding binary name's command line (flags,
// subcommands, arguments, their help and enums), for shell completion; nil
// when name is not one of Binaries. The parser is never run.
func Grammar(name string) *kong.Kong {
	mk, ok := grammars[name]
	if !ok {
		return nil
	}
	m, help := mk()
	k, err := kong.New(m, kong.Name(name), kong.Description(help), kong.Writers(io.Discard, io.Discard),
		kong.Exit(func(int) {}), kong.Vars{"version": name})
	if err != nil {
		return nil
	}
	return k
}
