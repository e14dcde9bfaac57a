package cli

import (
	"io"
)

// MatrixxHook is the matrixx-hook binary (spec §8). Placeholder until the
// hook issue lands: it has no opinion on any event (exit 0, no output).
func MatrixxHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return 0
}
