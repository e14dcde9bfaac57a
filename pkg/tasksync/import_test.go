package tasksync

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// blankLines reads as n bytes of lines of spaces (1 MiB each): lines
// the import skips, so only the input cap can refuse them.
type blankLines struct{ left, col int }

func (b *blankLines) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && b.left > 0 {
		if b.col == 1<<20-1 {
			p[n], b.col = '\n', 0
		} else {
			p[n] = ' '
			b.col++
		}
		n++
		b.left--
	}
	return n, nil
}

// An import whose input is over 128 MiB is refused with input_too_large
// and nothing is written, even its valid first line.
func TestImportTotalCap(t *testing.T) {
	dir := t.TempDir()
	o := Options{TasksDir: filepath.Join(dir, "tasks"), PlansDir: filepath.Join(dir, "plans")}
	for _, d := range []string{o.TasksDir, o.PlansDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	line := `{"task":{"id":"T-first","subject":"x","description":"","status":"pending","blocks":[],"blockedBy":[]},"mtimeMs":1764626400000}` + "\n"
	in := io.MultiReader(strings.NewReader(line), &blankLines{left: 128<<20 + 1})
	res, err := Import(o, in, "newer")
	if errcode.Of(err) != errcode.InputTooLarge || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Import of 128 MiB + a line: %+v, %v; want input_too_large", res, err)
	}
	if _, err := os.Stat(filepath.Join(o.TasksDir, "T-first.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused import wrote its first line: %v", err)
	}
	// Just under the cap, the same import passes.
	in = io.MultiReader(strings.NewReader(line), &blankLines{left: 128<<20 - len(line) - 1})
	if res, err := Import(o, in, "newer"); err != nil || res.Created != 1 {
		t.Fatalf("Import under the cap: %+v, %v", res, err)
	}
}
