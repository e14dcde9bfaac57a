package notepad

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestNoWriteThroughLinks: a bucket, or .matrixx/notepads itself, that is a
// symbolic link to a directory outside .matrixx is refused: Create fails
// naming the link and nothing appears outside. A notepad file replaced by a
// link is never appended to on completion.
func TestNoWriteThroughLinks(t *testing.T) {
	for _, at := range []string{"notepads/adhoc", "notepads"} {
		t.Run(at, func(t *testing.T) {
			root := t.TempDir()
			outside := t.TempDir()
			link := filepath.Join(root, ".matrixx", filepath.FromSlash(at))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			w := &Writer{Root: root}
			_, err := w.Create(&task.Task{ID: "T-1", Subject: "Linked", Status: task.Pending})
			if !errors.Is(err, safefile.ErrLink) {
				t.Fatalf("Create through a link: want ErrLink, got %v", err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) > 0 {
				t.Errorf("files written outside .matrixx: %v", ents)
			}
		})
	}
	t.Run("notepad file", func(t *testing.T) {
		root := t.TempDir()
		w := &Writer{Root: root}
		res, err := w.Create(&task.Task{ID: "T-2", Subject: "Stamped", Status: task.Pending})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, res.Path)
		outside := filepath.Join(t.TempDir(), "victim.md")
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(outside, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, path); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Complete(&task.Task{ID: "T-2", Subject: "Stamped", Status: task.Completed}); err == nil {
			t.Error("Complete appended through a link")
		}
		if after, _ := os.ReadFile(outside); string(after) != string(data) {
			t.Error("the file behind the link was changed")
		}
	})
}
