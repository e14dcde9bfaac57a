package input

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestClassify(t *testing.T) {
	for in, want := range map[string]verdict{
		"":                        undecided,
		" \n\t\r\n":               undecided,
		"\uFEFF\u00a0\u3000\n":    undecided,
		"\n\n  {}":                document,
		"\uFEFF{":                 document,
		"T-1\nT-2\n":              notDocument,
		"[1]":                     notDocument,
		"\uFFFD{":                 notDocument,
		" \xe3":                   undecided, // a cut rune: more to come
		" \xff{":                  notDocument,
		strings.Repeat(" ", 9000): undecided,
	} {
		if got, _ := classify([]byte(in)); got != want {
			t.Errorf("classify(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPendingPipe(t *testing.T) {
	tee := runtime.GOOS == "linux" // elsewhere any byte in a pipe counts
	for _, tt := range []struct {
		name, data string
		close      bool
		want       bool
	}{
		{"document, closed", `{"dryRun":true}`, true, true},
		{"document, left open", `{"dryRun":true}`, false, true},
		{"nothing, closed", "", true, false},
		{"white space, closed", " \n\t\r\n", true, !tee},
		{"space then a document", "\n\n  {}", false, true},
		{"ids for a while-read loop", "T-1\nT-2\n", true, !tee},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(tt.data)
		if tt.close {
			w.Close()
		}
		if got := Pending(r, PeekWait); got != tt.want {
			t.Errorf("%s: Pending = %v, want %v", tt.name, got, tt.want)
		}
		// nothing was taken from the pipe
		w.Close()
		if rest, _ := io.ReadAll(r); string(rest) != tt.data {
			t.Errorf("%s: the pipe now holds %q, want %q", tt.name, rest, tt.data)
		}
		r.Close()
	}
}

// TestPendingPipeSilent: a writer that keeps stdin open and sends nothing
// (or only white space) costs the bound, and nothing is seen.
func TestPendingPipeSilent(t *testing.T) {
	for _, data := range []string{"", "  \n"} {
		if data != "" && runtime.GOOS != "linux" {
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(data)
		start := time.Now()
		if Pending(r, PeekWait) {
			t.Errorf("%q: an open, silent pipe counts as a document", data)
		}
		if d := time.Since(start); d < PeekWait || d > PeekWait+200*time.Millisecond {
			t.Errorf("%q: waited %v, want about %v", data, d, PeekWait)
		}
		r.Close()
		w.Close()
	}
}

func TestPendingSocket(t *testing.T) {
	a, b, err := socketPair(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Skip(err)
	}
	defer a.Close()
	defer b.Close()
	b.Write([]byte(" {}"))
	if !Pending(a, PeekWait) {
		t.Error("a document on a socket: not seen")
	}
	buf := make([]byte, 8)
	if n, _ := a.Read(buf); string(buf[:n]) != " {}" {
		t.Errorf("the socket now holds %q", buf[:n])
	}
}

func socketPair(path string) (*os.File, *os.File, error) {
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	done := make(chan net.Conn)
	go func() { c, _ := l.Accept(); done <- c }()
	c1, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	c2 := <-done
	f1, err := c1.(*net.UnixConn).File()
	if err != nil {
		return nil, nil, err
	}
	f2, err := c2.(*net.UnixConn).File()
	c1.Close()
	c2.Close()
	return f1, f2, err
}

func TestPendingFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(data string, skip int64) *os.File {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Seek(skip, io.SeekStart)
		t.Cleanup(func() { f.Close() })
		return f
	}
	if f := file(`{"id":"T-1"}`, 0); !Pending(f, PeekWait) {
		t.Error("a regular file with a document: not seen")
	} else if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
		t.Errorf("the offset moved to %d", off)
	}
	if !Pending(file(strings.Repeat(" ", 100<<10)+"{}", 0), PeekWait) {
		t.Error("a document after 100 KiB of spaces: not seen")
	}
	// white space of 3-byte runes cut at the 32 KiB chunk boundary
	if !Pending(file(strings.Repeat("\u3000", 20000)+"{}", 0), PeekWait) {
		t.Error("a document after ideographic spaces: not seen")
	}
	if Pending(file(strings.Repeat("\u3000", 20000)+"x", 0), PeekWait) {
		t.Error("text after ideographic spaces counts as a document")
	}
	if Pending(file("\n \n", 0), PeekWait) || Pending(file("", 0), PeekWait) {
		t.Error("an empty or blank file counts as a document")
	}
	// a while-read loop over a file: the rest of the lines is not a document
	if Pending(file("T-1\nT-2\n", 4), PeekWait) {
		t.Error("ids count as a document")
	}
	if !Pending(file("T-1\n{}\n", 4), PeekWait) {
		t.Error("the document at the offset: not seen")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if Pending(null, PeekWait) {
		t.Error("/dev/null counts as a document")
	}
	if Pending(strings.NewReader("{}"), 0) {
		t.Error("a reader that is not a file is looked at")
	}
}

// TestPendingPipeBlankClosed: white space from a writer that is gone is
// answered at once, not after the bound.
func TestPendingPipeBlankClosed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs tee(2)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("\n")
	w.Close()
	start := time.Now()
	if Pending(r, time.Second) {
		t.Fatal("white space counts as a document")
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("waited %v for a closed pipe", d)
	}
}

// TestPendingUnbounded: with Unbounded, Pending waits for the first byte
// that is not white space (or end of file), however late it comes, and
// still takes nothing.
func TestPendingUnbounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs tee(2)")
	}
	for _, tt := range []struct {
		first, later string
		want         bool
	}{
		{"", `{"ready":true}`, true},
		{" \n", `{"ready":true}`, true},
		{"\n", "T-1\nT-2\n", false},
		{"  ", "", false}, // white space, then the writer closes
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(tt.first)
		go func() {
			time.Sleep(5 * PeekWait)
			w.WriteString(tt.later)
			w.Close()
		}()
		if got := Pending(r, Unbounded); got != tt.want {
			t.Errorf("%q then %q: Pending = %v, want %v", tt.first, tt.later, got, tt.want)
		}
		if rest, _ := io.ReadAll(r); string(rest) != tt.first+tt.later {
			t.Errorf("%q then %q: the pipe now holds %q", tt.first, tt.later, rest)
		}
		r.Close()
	}
	if Lookable(strings.NewReader("{}")) {
		t.Error("a reader that is not a file counts as lookable")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if Lookable(null) {
		t.Error("/dev/null counts as lookable")
	}
}

// TestPendingWriterClosesBetweenPeekAndPoll: a writer that sends its
// document and closes stdin after a peek saw only white space, before the
// poll that sees the hang-up, must not have its document taken for
// absent (found by a tester with strace delaying poll: task-cleanup then
// ran without its {"dryRun":true}).
func TestPendingWriterClosesBetweenPeekAndPoll(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs tee(2)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString(" ")
	calls := 0
	peek := func(fd int, buf []byte) (int, error) {
		n, err := peekPipe(fd, buf)
		if calls++; calls == 1 {
			w.WriteString(`{"dryRun":true}`)
			w.Close()
		}
		return n, err
	}
	if pendingStream(int(r.Fd()), Unbounded, peek) != Present {
		t.Fatal("the document written just before the hang-up was missed")
	}
}

// TestPendingLongBlankPrefix: more white space than one look can hold
// (64 KiB) before the document: Pending cannot see the document, so it
// answers true and the reader decides; it never drops it.
func TestPendingLongBlankPrefix(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs tee(2)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	doc := strings.Repeat(" ", 200000) + `{"status":"completed"}`
	go func() {
		w.WriteString(doc)
		w.Close()
	}()
	if !Pending(r, Unbounded) {
		t.Fatal("a document after 200,000 blanks was taken for absent")
	}
	if rest, _ := io.ReadAll(r); string(rest) != doc {
		t.Errorf("the pipe lost bytes: %d of %d left", len(rest), len(doc))
	}
}

// TestLookSocketSilent: a socket that neither sends nor closes is Silent
// within the bound, not Absent (task-cleanup must tell the two apart), and
// ReadSocket gives up on it after its wait.
func TestLookSocketSilent(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	defer a.Close()
	defer b.Close()
	if !IsSocket(a) {
		t.Fatal("IsSocket = false for a socket")
	}
	if got := Look(a, 20*time.Millisecond); got != Silent {
		t.Fatalf("Look = %v, want Silent", got)
	}
	_, empty, silent, err := ReadSocket(a, 0, 20*time.Millisecond)
	if err != nil || !empty || !silent {
		t.Fatalf("ReadSocket: empty=%v silent=%v err=%v, want empty, silent", empty, silent, err)
	}
	b.WriteString(`{"a":1}`)
	data, empty, silent, err := ReadSocket(a, 0, 20*time.Millisecond)
	if err != nil || empty || !silent || string(data) != `{"a":1}` {
		t.Fatalf("ReadSocket = %q empty=%v silent=%v err=%v", data, empty, silent, err)
	}
}
