package t

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// internalID matches what a reader with only this repository cannot look
// up: sections of the original's spec ("spec §8"), of the team's design card
// ("DESIGN §3", "D13"), and decision numbers of notes ("S46", "H10", "P21",
// "M4").
var internalID = regexp.MustCompile(`§|\b[SDHPM][0-9]{1,3}\b`)

// TestNoInternalIDsInGo keeps internal ids out of the shipping Go code:
// comments and strings state the rule in words, or name a document of the
// repository and its section by title.
func TestNoInternalIDsInGo(t *testing.T) {
	var bad []string
	for _, root := range []string{"../cmd", "../pkg", "../bench", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := internalID.FindString(line); m != "" {
					bad = append(bad, path[3:]+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d lines cite internal ids (state the rule in words instead):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
