package commands

import (
	"time"

	"github.com/alecthomas/kong"
)

// Globals are the flags every task binary takes.
type Globals struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git), resolved through symbolic links."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID, else \"no-session\"); reads ignore it."`
	Pretty  bool             `help:"Indent the JSON answer."`
	Where   bool             `help:"Print what this command would use and why (project root, task store, config files and settings, session id, environment) as JSON, and do nothing else."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

// WhereGlobals gives Run the common flags of a command that embeds them,
// so --where is handled in one place for every binary.
func (g *Globals) WhereGlobals() *Globals { return g }

// WriteFlags are the flags of binaries that take the lock.
type WriteFlags struct {
	LockTimeout *time.Duration `name:"lock-timeout" placeholder:"DUR" help:"Budget for taking the lock (task store or plans), e.g. 500ms, 30s (default: $MATRIXX_LOCK_TIMEOUT_MS, else 10s)."`
}

// stdinRule is the --help paragraph of the task binaries about flags and
// stdin (the stdin rules of app.ReadInput); stdinOptional is task-list's
// and stdinCleanup task-cleanup's.
const stdinRule = `Give flags (or an id argument) or a JSON document on stdin. With flags, stdin is only looked
at (for up to 10 ms), never read: a document there too (its first non-blank character is "{") is
ignored with a warning on stderr (give </dev/null to silence it), and other text (the ids a
"while read" loop is reading) is left to its reader.`

// stdinRequired is stdinRule for the binaries whose stdin is their input
// when no flags are given (docs/design/decisions.md).
const stdinRequired = stdinRule + `
Without flags, stdin is read to its end: a pipe until it closes; a socket (an agent host's) that
sends nothing within 3 s is "no input" (exit 2), and one that sends a document and then stays
silent for 3 s is read as that document (see docs/design/decisions.md).`

const stdinOptional = stdinRule + `
Without flags, stdin is read only when its first non-blank character is "{"; anything else is
left unread (a bare task-list in a "while read" loop does not eat the loop's input). A socket
stdin (an agent host's) that sends nothing within 250 ms is not waited for: the defaults apply.`

// stdinDoctor is stdinOptional for task-doctor, which takes no id
// argument.
const stdinDoctor = `Give flags or a JSON document on stdin. With flags, stdin is only looked at (for up to 10 ms),
never read: a document there too (its first non-blank character is "{") is ignored with a warning
on stderr (give </dev/null to silence it), and other text is left to its reader. Without flags,
stdin is read only when its first non-blank character is "{"; anything else is left unread (a
bare task-doctor in a "while read" loop does not eat the loop's input). A socket stdin (an agent
host's) that sends nothing within 250 ms is not waited for: the defaults apply.`

const stdinCleanup = `Give flags or a JSON document on stdin, not both: with flags, stdin is only looked at (for up to
10 ms), never read, and a document there too (its first non-blank character is "{") is a usage
error (exit 2) and nothing is deleted; give </dev/null if stdin is meant for something else.
Without flags, stdin is read only when its first non-blank character is "{"; anything else (the
ids a "while read" loop is reading) is left unread. A socket stdin (an agent host's) that sends
nothing within 250 ms deletes nothing: it is a usage error (exit 2), since a document could still
come; give flags, or </dev/null for the defaults.`
