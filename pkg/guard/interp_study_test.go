package guard

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// TestLibraryInterpGaps records why the guard keeps its own expander
// (docs/guard.md, "Why not mvdan.cc/sh/v3/interp"): each command below is
// evaluated by mvdan.cc/sh/v3/interp with handlers that run nothing (every
// external command recorded, every open answered by a buffer, every
// directory present), and bash would write the store in each, but the
// library reports no command or open naming .matrixx/tasks; the guard
// denies each. When an upgrade of the library makes one of them visible,
// this test fails: the decision is then worth revisiting.
func TestLibraryInterpGaps(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // <(…) makes a real FIFO there
	for _, src := range []string{
		`PS4='$(rm -f .matrixx/tasks/T-1.json)'; set -x; true`, // bash runs PS4's substitution
		`x='a[$(rm -f .matrixx/tasks/T-1.json)]'; echo $((x))`, // and an arithmetic subscript's
		`x='$(rm -f .matrixx/tasks/T-1.json)'; echo "${x@P}"`,  // and a prompt expansion's
		`hash -p /bin/rm ls; ls .matrixx/tasks/T-1.json`,       // hash -p is ignored: ls runs
		`ls .matrixx/tasks/T-1.json; rm -f $_`,                 // $_ is not the last argument
		`cd .matrixx/tasks; cd /tmp; rm -f ~-/T-1.json`,        // ~- is not expanded
		`if false; then rm -f .matrixx/tasks/T-1.json; fi`,     // one branch only is evaluated
		`truncate -s0 /dev/stdin < .matrixx/tasks/T-1.json`,    // seen, but as a read and /dev/stdin
		`CDPATH=.matrixx; cd tasks && rm -f T-1.json`,          // CDPATH is not used
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		var seen []string
		r, err := interp.New(
			interp.Env(nil),
			interp.Dir(dir),
			interp.StdIO(nil, io.Discard, io.Discard),
			interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
				return func(ctx context.Context, args []string) error {
					seen = append(seen, strings.Join(args, " "))
					return nil
				}
			}),
			interp.OpenHandler(func(_ context.Context, path string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
				if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
					seen = append(seen, "write "+path)
				}
				return nopFile{}, nil
			}),
			interp.AccessHandler(func(context.Context, string, interp.AccessMode) error { return nil }),
			interp.StatHandler(func(_ context.Context, name string, _ bool) (fs.FileInfo, error) {
				return dirInfo(name), nil
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = r.Run(ctx, f)
		cancel()
		for _, s := range seen {
			if strings.Contains(s, ".matrixx/tasks") && !strings.HasPrefix(s, "ls ") {
				t.Errorf("%q: the library now reports %q: revisit docs/guard.md", src, s)
			}
		}
		if d := check(Request{Tool: "Bash", Cwd: testCwd, Command: src}); !d.Deny {
			t.Errorf("%q: the guard allows it", src)
		}
	}
	if e, _ := os.ReadDir(tmp); len(e) != 0 {
		t.Logf("note: the library left %d entries in TMPDIR", len(e))
	}
}

type nopFile struct{}

func (nopFile) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopFile) Write(p []byte) (int, error) { return len(p), nil }
func (nopFile) Close() error                { return nil }

type dirInfo string

func (d dirInfo) Name() string     { return string(d) }
func (dirInfo) Size() int64        { return 0 }
func (dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (dirInfo) ModTime() time.Time { return time.Time{} }
func (dirInfo) IsDir() bool        { return true }
func (dirInfo) Sys() any           { return nil }
