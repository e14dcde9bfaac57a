package hook

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Log says what each hook decided and why. It is off unless
// MATRIXX_DEBUG is set (lines go to stderr) or MATRIXX_HOOK_LOG names a file
// (lines are appended to it); both may be on. One line per note:
//
//	2026-09-27T16:20:10.393Z matrixx-hook[4242] PreToolUse Bash task-edit-guard: deny (rule bash-redirect): …
//
// A log file that cannot be opened is reported once on stderr and ignored.
// The lines hold whole commands and paths, so a log file is created
// readable by its owner only (0600); an existing file keeps its mode.
type Log struct {
	out   []io.Writer
	file  *os.File
	now   func() time.Time
	pid   int
	where string // "<event> <tool>" prefix once known
}

// openLog builds the log from the environment.
func openLog(getenv func(string) string, stderr io.Writer, now func() time.Time) *Log {
	l := &Log{now: now, pid: os.Getpid()}
	if v := getenv("MATRIXX_DEBUG"); v != "" && v != "0" && v != "false" {
		l.out = append(l.out, stderr)
	}
	if path := getenv("MATRIXX_HOOK_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "matrixx-hook: MATRIXX_HOOK_LOG: %v (logging to it is off)\n", err)
		} else {
			l.file = f
			l.out = append(l.out, f)
		}
	}
	return l
}

// Enabled reports whether notes go anywhere.
func (l *Log) Enabled() bool { return l != nil && len(l.out) > 0 }

// Printf writes one note for hook (a hook name such as task-edit-guard, or
// "dispatch").
func (l *Log) Printf(hook, format string, args ...any) {
	if !l.Enabled() {
		return
	}
	msg := fmt.Sprintf(format, args...)
	msg = strings.ReplaceAll(msg, "\n", `\n`)
	line := fmt.Sprintf("%s matrixx-hook[%d] %s%s: %s\n",
		l.now().UTC().Format("2006-01-02T15:04:05.000Z"), l.pid, l.where, hook, msg)
	for _, w := range l.out {
		_, _ = io.WriteString(w, line)
	}
}

// at sets the event and tool shown on later lines.
func (l *Log) at(ev *Event) {
	if l == nil {
		return
	}
	var b strings.Builder
	for _, s := range []string{ev.Name, ev.Tool} {
		if s != "" {
			b.WriteString(s)
			b.WriteByte(' ')
		}
	}
	l.where = b.String()
}

// Close closes the log file.
func (l *Log) Close() {
	if l != nil && l.file != nil {
		_ = l.file.Close()
	}
}
