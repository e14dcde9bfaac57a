package porcelain

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Env is what the porcelain reads from its environment (os.Getenv in
// production, a map in tests).
type Env func(key string) string

// style is how one invocation prints for people: colour or not, Unicode
// or ASCII, and the width to fit (0: no limit).
type style struct {
	color bool
	ascii bool
	width int
	now   time.Time
}

// newStyle decides the output style (docs/porcelain.md, "Output"):
//
//   - colour: --color=always or never win; with auto (the default) only
//     when stdout is a terminal, $NO_COLOR is empty and $TERM is not
//     "dumb";
//   - width: the terminal's width; else $COLUMNS when it is a number; else
//     no limit (a pipe gets whole lines);
//   - ASCII: --ascii, or a locale ($LC_ALL, else $LC_CTYPE, else $LANG)
//     that is set and does not name UTF-8; Unicode otherwise.
func newStyle(stdout io.Writer, getenv Env, color string, ascii bool) style {
	s := style{now: time.Now()}
	tty := false
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			s.width = w
		}
	}
	if s.width == 0 {
		if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
			s.width = n
		}
	}
	switch color {
	case "always":
		s.color = true
	case "never":
	default:
		s.color = tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	}
	s.ascii = ascii || !utf8Locale(getenv)
	return s
}

// utf8Locale reports whether the locale allows UTF-8 output: the first of
// LC_ALL, LC_CTYPE, LANG that is set names UTF-8, or none is set.
func utf8Locale(getenv Env) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return true
}

// width is the display width of s: its length for ASCII (the common case,
// without go-runewidth's grapheme segmentation), else runewidth's.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return runewidth.StringWidth(s)
		}
	}
	return len(s)
}

// ANSI SGR colours by status.
const (
	sgrReset = "\x1b[0m"
	sgrBold  = "\x1b[1m"
	sgrDim   = "\x1b[2m"
)

var statusSGR = map[task.Status]string{
	task.Pending:    "\x1b[36m", // cyan
	task.InProgress: "\x1b[33m", // yellow
	task.Completed:  "\x1b[32m", // green
	task.Deleted:    "\x1b[2;31m",
}

// paint wraps text in the status's colour when colour is on.
func (s style) paint(st task.Status, text string) string {
	if !s.color || text == "" {
		return text
	}
	c, ok := statusSGR[st]
	if !ok {
		return text
	}
	return c + text + sgrReset
}

// bold and dim are for headings and secondary text, only with colour.
func (s style) bold(text string) string {
	if !s.color || text == "" {
		return text
	}
	return sgrBold + text + sgrReset
}

func (s style) dim(text string) string {
	if !s.color || text == "" {
		return text
	}
	return sgrDim + text + sgrReset
}

// glyph is the status's mark: ○ ◐ ✓ ✗ (ASCII: o > + x); "?" for a task
// that does not exist.
func (s style) glyph(st task.Status) string {
	u, a := "?", "?"
	switch st {
	case task.Pending:
		u, a = "○", "o"
	case task.InProgress:
		u, a = "◐", ">"
	case task.Completed:
		u, a = "✓", "+"
	case task.Deleted:
		u, a = "✗", "x"
	}
	if s.ascii {
		return a
	}
	return u
}

// ellipsis is what ends a truncated text.
func (s style) ellipsis() string {
	if s.ascii {
		return "~"
	}
	return "…"
}

// pick returns the Unicode or the ASCII form.
func (s style) pick(unicode, ascii string) string {
	if s.ascii {
		return ascii
	}
	return unicode
}

// ago says how long before now t was, for people: "just now", "5m ago",
// "3h ago", "2d ago", "6w ago", "1y ago". Records carry no timestamps: the
// time shown is the record file's modification time, which every write
// (and nothing else) moves (docs/porcelain.md).
func (s style) ago(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := s.now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dw ago", int(d/(7*24*time.Hour)))
	}
	return fmt.Sprintf("%dy ago", int(d/(365*24*time.Hour)))
}

// cell is one table cell: its text and the status colouring it ("" for
// none).
type cell struct {
	text   string
	status task.Status
	dim    bool
}

// table prints aligned columns. Column flex (the subject) takes what the
// width leaves and is truncated with an ellipsis; when even that leaves it
// fewer than minFlex cells, the columns named in drop are left out, in
// that order, first. Without a width limit nothing is cut. The last
// column is not padded.
type table struct {
	head []string
	rows [][]cell
	flex int
	drop []string
	// short holds, per column name, a narrower form (its heading, then
	// one text per row) tried before that column is dropped.
	short map[string][]string
}

// minFlex is the narrowest the flexible column gets before other columns
// are dropped to make room.
const minFlex = 20

// clean makes text one line of printable characters: control characters
// (newlines, tabs, escapes a record may hold) become spaces.
func clean(text string) string {
	if strings.IndexFunc(text, isControl) < 0 {
		return text
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, text)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// truncate cuts text to at most w display columns, ending it with the
// ellipsis when it was cut.
func (s style) truncate(text string, w int) string {
	if len(text) <= w || width(text) <= w {
		return text
	}
	e := s.ellipsis()
	if w <= width(e) {
		return runewidth.Truncate(text, w, "")
	}
	return runewidth.Truncate(text, w, e)
}

func (t *table) write(w io.Writer, s style) {
	n := len(t.head)
	widths := make([]int, n)
	for i, h := range t.head {
		widths[i] = width(h)
	}
	for _, r := range t.rows {
		for i := range r {
			r[i].text = clean(r[i].text)
			widths[i] = max(widths[i], width(r[i].text))
		}
	}
	hidden := make([]bool, n)
	total := func() int {
		sum, cols := 0, 0
		for i, x := range widths {
			if !hidden[i] {
				sum += x
				cols++
			}
		}
		return sum + 2*(cols-1)
	}
	if s.width > 0 && t.flex >= 0 && t.flex < n {
		for _, name := range t.drop {
			if total()-widths[t.flex]+minFlex <= s.width {
				break
			}
			i := indexOf(t.head, name)
			if i < 0 {
				continue
			}
			if alt, ok := t.short[name]; ok && len(alt) == len(t.rows)+1 {
				t.head[i], widths[i] = alt[0], width(alt[0])
				for k, r := range t.rows {
					r[i].text = alt[k+1]
					widths[i] = max(widths[i], width(alt[k+1]))
				}
				delete(t.short, name)
				if total()-widths[t.flex]+minFlex <= s.width {
					break
				}
			}
			hidden[i] = true
		}
		if over := total() - s.width; over > 0 {
			widths[t.flex] = max(widths[t.flex]-over, min(widths[t.flex], 10))
		}
	}
	last := n - 1
	for last > 0 && hidden[last] {
		last--
	}
	// A line is cut to the width, never into its first column (the
	// handle): a task must stay nameable on the narrowest terminal.
	keep := 0
	for i := range n {
		if !hidden[i] {
			keep = widths[i]
			break
		}
	}
	line := func(cells []cell, head bool) {
		var b strings.Builder
		plain := 0
		for i, c := range cells {
			if hidden[i] {
				continue
			}
			text := c.text
			if s.width > 0 {
				text = s.truncate(text, widths[i])
			}
			pad := widths[i] - width(text)
			plain += width(text)
			switch {
			case head:
				text = s.bold(text)
			case c.status != "":
				text = s.paint(c.status, text)
			case c.dim:
				text = s.dim(text)
			}
			b.WriteString(text)
			if i < last {
				b.WriteString(strings.Repeat(" ", pad+2))
				plain += pad + 2
			}
		}
		out := b.String()
		if s.width > 0 && plain > s.width && !s.color {
			out = runewidth.Truncate(out, max(s.width, keep), "")
		}
		fmt.Fprintln(w, strings.TrimRight(out, " "))
	}
	hc := make([]cell, n)
	for i, h := range t.head {
		hc[i] = cell{text: h}
	}
	line(hc, true)
	for _, r := range t.rows {
		line(r, false)
	}
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// bar draws a progress bar of width cells: █ and ░ (ASCII # and .).
func (s style) bar(done, total, width int) string {
	full := 0
	if total > 0 {
		full = done * width / total
	}
	on, off := s.pick("█", "#"), s.pick("░", ".")
	b := strings.Repeat(on, full) + strings.Repeat(off, width-full)
	if s.color && total > 0 && done == total {
		return statusSGR[task.Completed] + b + sgrReset
	}
	return b
}
