//go:build unix

package hook

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLogFileMode: MATRIXX_HOOK_LOG holds whole commands, so the file is
// created for its owner only, whatever the umask allows.
func TestLogFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "hook.log")
	r := &Runner{Env: testEnv(dir, "MATRIXX_HOOK_LOG", path), Stdout: io.Discard, Stderr: io.Discard}
	r.Run(Dispatch, strings.NewReader(`{"hook_event_name":"Notification","session_id":"s"}`))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("log file mode %o, want 600", mode)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte("no hook for this event")) {
		t.Errorf("log %q", data)
	}
}
