package cli

import (
	"fmt"
	"io"
)

// Plan is the plan binary (spec §9). Placeholder until the plan issue lands.
func Plan(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "plan: not built yet")
	return 2
}
