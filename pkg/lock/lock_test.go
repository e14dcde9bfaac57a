package lock

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestAcquireReleaseAndContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks")
	l, err := Acquire(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	rec, ok := parse(data)
	if !ok || rec.ID != l.ID() || rec.Timestamp <= 0 || rec.PID != os.Getpid() || !rec.Flock {
		t.Fatalf("lock content %s", data)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Fatal(".lock left after release")
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	assertNoTemps(t, dir)
}

func TestReleaseNeverDeletesAnotherHoldersLock(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, Options{NoKernel: true})
	if err != nil {
		t.Fatal(err)
	}
	other := []byte(`{"id":"successor","timestamp":1}`)
	os.WriteFile(filepath.Join(dir, FileName), other, 0o644)
	if errcode.Of(l.Check()) != errcode.TaskLockUnavailable {
		t.Fatal("Check did not notice the lost lock")
	}
	if err := l.Release(); err == nil {
		t.Fatal("Release of a lost lock should report it")
	}
	got, _ := os.ReadFile(filepath.Join(dir, FileName))
	if string(got) != string(other) {
		t.Fatalf("successor's lock changed: %s", got)
	}
}

func TestTimeoutNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UnixMilli()
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"id":"holder-1","timestamp":`+strconv.FormatInt(now, 10)+`,"pid":1,"host":"h"}`), 0o644)
	start := time.Now()
	_, err := Acquire(dir, Options{Timeout: 150 * time.Millisecond})
	if errcode.Of(err) != errcode.TaskLockUnavailable || !strings.Contains(err.Error(), "holder-1") || !strings.Contains(err.Error(), "pid 1 on h") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

func TestStaleness(t *testing.T) {
	now := time.Now()
	old := now.Add(-time.Minute)
	host := hostname()
	tests := []struct {
		name   string
		rec    record
		parsed bool
		mtime  time.Time
		kernel bool
		stale  bool
	}{
		{"fresh", record{ID: "a", Timestamp: float64(now.UnixMilli())}, true, now, false, false},
		{"old both", record{ID: "a", Timestamp: float64(old.UnixMilli())}, true, old, false, true},
		{"old stamp fresh mtime", record{ID: "a", Timestamp: float64(old.UnixMilli())}, true, now, false, false},
		{"fresh stamp old mtime", record{ID: "a", Timestamp: float64(now.UnixMilli())}, true, old, false, false},
		{"unparsed old mtime", record{}, false, old, false, true},
		{"future stamp old mtime", record{ID: "a", Timestamp: float64(now.Add(time.Hour).UnixMilli())}, true, old, false, true},
		{"future stamp fresh mtime", record{ID: "a", Timestamp: float64(now.Add(time.Hour).UnixMilli())}, true, now, false, false},
		{"unparsed fresh mtime", record{}, false, now, false, false},
		{"marked dead pid, we hold flock", record{ID: "a", Timestamp: float64(now.UnixMilli()), PID: 1 << 30, Host: host, Flock: true}, true, now, true, true},
		{"marked dead pid, no flock", record{ID: "a", Timestamp: float64(now.UnixMilli()), PID: 1 << 30, Host: host, Flock: true}, true, now, false, false},
		{"marked live pid", record{ID: "a", Timestamp: float64(now.UnixMilli()), PID: os.Getpid(), Host: host, Flock: true}, true, now, true, false},
		{"marked other host", record{ID: "a", Timestamp: float64(now.UnixMilli()), PID: 1 << 30, Host: "elsewhere", Flock: true}, true, now, true, false},
	}
	for _, tt := range tests {
		l := &Lock{}
		if tt.kernel {
			l.kernel = flock.New(t.TempDir()) // only its presence matters
		}
		if got := l.isStale(tt.rec, tt.parsed, now, tt.mtime, StaleAfter); got != tt.stale {
			t.Errorf("%s: stale = %v, want %v", tt.name, got, tt.stale)
		}
	}
}

// TestMutualExclusionWithStaleLock: many contenders start together on a
// directory holding a stale lock; all of them try to evict it, yet no two
// ever hold the lock at once (D5: "two contenders evicting the same stale
// lock must not both win").
func TestMutualExclusionWithStaleLock(t *testing.T) {
	for _, kernel := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		os.WriteFile(path, []byte(`{"id":"dead","timestamp":1000}`), 0o644)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(path, old, old)
		var inside, maxInside, done atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range 5 {
					l, err := Acquire(dir, Options{NoKernel: !kernel, Timeout: 20 * time.Second})
					if err != nil {
						t.Error(err)
						return
					}
					n := inside.Add(1)
					for {
						m := maxInside.Load()
						if n <= m || maxInside.CompareAndSwap(m, n) {
							break
						}
					}
					time.Sleep(time.Millisecond)
					if err := l.Check(); err != nil {
						t.Error(err)
					}
					inside.Add(-1)
					if err := l.Release(); err != nil {
						t.Error(err)
					}
					done.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if maxInside.Load() != 1 || done.Load() != 60 {
			t.Fatalf("kernel=%v: max holders at once %d, completed %d", kernel, maxInside.Load(), done.Load())
		}
		assertNoTemps(t, dir)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("leftover %s", e.Name())
		}
	}
}

func TestRefresh(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, Options{NoKernel: true})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := l.Refresh(later); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	rec, ok := parse(data)
	if !ok || rec.ID != l.ID() || int64(rec.Timestamp) != later.UnixMilli() {
		t.Fatalf("after refresh: %s", data)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"id":"other","timestamp":1}`), 0o644)
	if errcode.Of(l.Refresh(time.Now())) != errcode.TaskLockUnavailable {
		t.Fatal("refreshing a lost lock must fail")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, FileName)); !strings.Contains(string(got), "other") {
		t.Fatalf("refresh overwrote another holder's lock: %s", got)
	}
	assertNoTemps(t, dir)
}

// TestContentIsTheRecord: the hand-written .lock content is exactly
// json.Marshal of the record (the original implementation and older
// versions of ours parse it), with and without the kernel lock.
func TestContentIsTheRecord(t *testing.T) {
	now := time.UnixMilli(1796172385465)
	for _, kernel := range []bool{false, true} {
		l := &Lock{id: "b4925d14-b6ea-4e8d-b8d7-99cb8a514b6b", host: "h\"ost\\é"}
		if kernel {
			l.kernel = flock.New(t.TempDir())
		}
		got, err := l.content(now)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(record{ID: l.id, Timestamp: float64(now.UnixMilli()), PID: os.Getpid(), Host: l.host, Flock: kernel})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("content = %s, want %s", got, want)
		}
		if rec, ok := parse(got); !ok || rec.ID != l.id || rec.Flock != kernel {
			t.Errorf("parse(content) = %+v %v", rec, ok)
		}
	}
}

// TestFutureMtimeLock: a .lock whose mtime was set far into the future
// (touch -d, a clock running ahead) is judged by its ctime, which only the
// clock sets: it is evicted once that is older than the stale age, not
// when the clock catches up with the mtime. With and without the kernel
// lock; a plain lock of the original implementation and an odd one (a
// FIFO) alike.
func TestFutureMtimeLock(t *testing.T) {
	future := time.Now().Add(365 * 24 * time.Hour)
	later := func() time.Time { return time.Now().Add(2 * StaleAfter) } // the planted lock's ctime is now
	for _, c := range []struct {
		name     string
		noKernel bool
		fifo     bool
	}{{"plain", true, false}, {"kernel", false, false}, {"fifo", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if c.fifo {
				if err := unix.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(`{"id":"planted","timestamp":`+strconv.FormatInt(future.UnixMilli(), 10)+`}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, future, future); err != nil {
				t.Fatal(err)
			}
			// Now: still fresh by its ctime, so honoured.
			if l, err := Acquire(dir, Options{Timeout: 100 * time.Millisecond, NoKernel: c.noKernel}); err == nil {
				l.Release()
				t.Fatal("a lock planted just now was evicted at once")
			}
			// Past the stale age by the ctime: evicted.
			l, err := Acquire(dir, Options{Timeout: 2 * time.Second, NoKernel: c.noKernel, Now: later})
			if err != nil {
				t.Fatalf("a lock with a future mtime and an old ctime was not evicted: %v", err)
			}
			if l.Stats.Evicted != 1 {
				t.Errorf("evicted %d", l.Stats.Evicted)
			}
			l.Release()
		})
	}
}
