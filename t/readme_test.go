package t

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/porcelain"
)

const (
	readmeBegin = "<!-- BEGIN matrixx graph (TestReadmeGraph) -->\n"
	readmeEnd   = "<!-- END matrixx graph -->"
)

// TestReadmeGraph runs the wave example of examples/waves through the real
// binaries' functions up to the middle of wave 1 (frontend completed,
// backend in progress), draws `matrixx graph --all --format mermaid
// --label subject` and requires README.md's block to be exactly that
// (UPDATE_GOLDEN=1 rewrites it).
func TestReadmeGraph(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	call := func(fn func([]string, io.Reader, io.Writer, io.Writer) int, stdin string, args ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		args = append([]string{"--dir", dir}, args...)
		if code := fn(args, strings.NewReader(stdin), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s %s", args, code, out.String(), errb.String())
		}
		return out.Bytes()
	}
	var created struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	must := func(b []byte) {
		t.Helper()
		if err := json.Unmarshal(b, &created, json.RejectUnknownMembers(false)); err != nil {
			t.Fatal(err)
		}
	}
	// Wave 1: two independent tasks, in one batch; wave 2 waits for both.
	must(call(cli.TaskCreate, `{"items":[{"subject":"Build frontend"},{"subject":"Build backend"}]}`, "--session", "demo-session"))
	t1, t2 := created.Tasks[0].ID, created.Tasks[1].ID
	must(call(cli.TaskCreate, `{"subject":"Integration tests","blockedBy":["`+t1+`","`+t2+`"]}`, "--session", "demo-session"))
	t3 := created.Tasks[0].ID
	for _, id := range []string{t1, t2} {
		call(cli.TaskUpdate, `{"id":"`+id+`","addBlocks":["`+t3+`"]}`)
	}
	// Executing wave 1: frontend done, backend under way.
	call(cli.TaskUpdate, "", t1, "--status", "in_progress", "--owner", "morpheus")
	call(cli.TaskUpdate, "", t1, "--status", "completed")
	call(cli.TaskUpdate, "", t2, "--status", "in_progress", "--owner", "morpheus")

	graph := string(call(porcelain.Main, "", "graph", "--all", "--format", "mermaid", "--label", "subject"))
	block := readmeBegin + "```mermaid\n" + graph + "```\n" + readmeEnd

	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i, j := strings.Index(readme, readmeBegin), strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q block", readmeBegin, readmeEnd)
	}
	got := readme[i : j+len(readmeEnd)]
	if got == block {
		return
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile("../README.md", []byte(readme[:i]+block+readme[j+len(readmeEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's graph is stale (UPDATE_GOLDEN=1 go test ./t/ -run TestReadmeGraph rewrites it):\nhave:\n%s\nwant:\n%s", got, block)
}
