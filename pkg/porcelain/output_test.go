package porcelain

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

// A buffer is not a terminal: colour only when asked for; width from
// $COLUMNS; ASCII when the locale says so.
func TestNewStyle(t *testing.T) {
	var b bytes.Buffer
	cases := []struct {
		env         map[string]string
		color       string
		wantColor   bool
		wantASCII   bool
		wantColumns int
	}{
		{nil, "auto", false, false, 0},
		{nil, "always", true, false, 0},
		{map[string]string{"NO_COLOR": "1"}, "always", true, false, 0},
		{nil, "never", false, false, 0},
		{map[string]string{"COLUMNS": "72"}, "auto", false, false, 72},
		{map[string]string{"COLUMNS": "wide"}, "auto", false, false, 0},
		{map[string]string{"LANG": "C"}, "auto", false, true, 0},
		{map[string]string{"LANG": "en_US.UTF-8"}, "auto", false, false, 0},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, "auto", false, true, 0},
		{map[string]string{"LC_CTYPE": "de_DE.utf8"}, "auto", false, false, 0},
	}
	for _, c := range cases {
		s := newStyle(&b, envOf(c.env), c.color, false)
		if s.color != c.wantColor || s.ascii != c.wantASCII || s.width != c.wantColumns {
			t.Errorf("env %v --color=%s: color %v ascii %v width %d; want %v %v %d",
				c.env, c.color, s.color, s.ascii, s.width, c.wantColor, c.wantASCII, c.wantColumns)
		}
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := style{now: now}
	for d, want := range map[time.Duration]string{
		10 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago",
		47 * time.Hour: "47h ago", 72 * time.Hour: "3d ago", 21 * 24 * time.Hour: "3w ago",
		800 * 24 * time.Hour: "2y ago",
	} {
		if got := s.ago(now.Add(-d)); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
	if s.ago(time.Time{}) != "" {
		t.Error("a zero time should print nothing")
	}
}

// The table fits the width: the flexible column is cut with an ellipsis,
// named columns are dropped first when it would get too narrow, and
// control characters in cells never reach the terminal.
func TestTableFits(t *testing.T) {
	mk := func() *table {
		return &table{
			head: []string{"ID", "SUBJECT", "CHANGED"}, flex: 1, drop: []string{"CHANGED"},
			rows: [][]cell{
				{{text: "7f3a", status: task.Pending}, {text: "A subject\nwith a newline and \x1b[31mescapes\x1b[0m that goes on and on"}, {text: "3h ago"}},
			},
		}
	}
	var b bytes.Buffer
	mk().write(&b, style{width: 40})
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if width(l) > 40 {
			t.Errorf("line wider than 40: %q", l)
		}
		if strings.ContainsAny(l, "\n\x1b") {
			t.Errorf("control character in %q", l)
		}
	}
	if !strings.Contains(b.String(), "…") || !strings.Contains(b.String(), "CHANGED") {
		t.Errorf("want the subject cut and CHANGED kept at 40 columns:\n%s", b.String())
	}
	b.Reset()
	mk().write(&b, style{width: 30})
	if strings.Contains(b.String(), "CHANGED") {
		t.Errorf("at 30 columns CHANGED should be dropped for the subject:\n%s", b.String())
	}
	b.Reset()
	mk().write(&b, style{})
	if !strings.Contains(b.String(), "goes on and on") {
		t.Errorf("without a width nothing is cut:\n%s", b.String())
	}
	b.Reset()
	mk().write(&b, style{color: true})
	if !strings.Contains(b.String(), "\x1b[36m7f3a\x1b[0m") {
		t.Errorf("with colour the handle is coloured by status:\n%q", b.String())
	}
}
