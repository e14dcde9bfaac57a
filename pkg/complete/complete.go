// Package complete is shell completion for every binary of the toolkit
// (bash, zsh, fish), driven by the binaries' kong models: it completes
// subcommands, flags, enum values (statuses, priorities, formats), task
// handles (described by their subjects), plan names and labels. The scripts
// (Script) call `matrixx __complete SHELL -- WORDS…` on each key press;
// Complete answers from the model. See docs/porcelain.md, "Completion".
package complete

import (
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// Candidate is one completion: the value to insert and what it is.
type Candidate struct {
	Value string
	Desc  string
}

// Predictor supplies the values that come from the project: task handles,
// plan names and the labels in use. dir is the -C/--dir given on the line
// being completed ("" when none). Tasks offers the active tasks, or the
// finished ones (completed, deleted) when finished is set: an argument
// tagged tasks:"finished" (matrixx reopen) takes those.
type Predictor interface {
	Tasks(dir string, finished bool) []Candidate
	Plans(dir string) []Candidate
	Labels(dir string) []Candidate
}

// taskFlags are flag names whose values are task ids, beside every flag
// whose placeholder is ID.
var taskFlags = map[string]bool{
	"parent": true, "after": true, "blocks": true, "blocked-by": true,
	"add-blocks": true, "add-blocked-by": true, "task": true,
}

// Result is what Complete found: the candidates, and the text before the
// value being completed inside the current word ("--status=" when
// completing "--status=pe"; bash replaces only the part after "=").
type Result struct {
	Candidates []Candidate
	Prefix     string
}

// Complete completes the last of words (the command line up to the
// cursor: words[0] is the binary, the last word is the one being typed,
// "" after a space) against the kong model app. Candidates are filtered
// by the typed prefix and keep the model's order.
func Complete(app *kong.Application, words []string, p Predictor) Result {
	if len(words) == 0 {
		return Result{}
	}
	cur := words[len(words)-1]
	done := words[1 : len(words)-1]
	node := app.Node
	pos := 0
	dashdash := false
	var want *kong.Flag // a flag whose value is the current word
	dir := ""
	for i := 0; i < len(done); i++ {
		w := done[i]
		switch {
		case !dashdash && w == "--":
			dashdash = true
		case !dashdash && strings.HasPrefix(w, "--"):
			name, val, eq := strings.Cut(w[2:], "=")
			f := flagOf(node, func(f *kong.Flag) bool { return f.Name == name || slices.Contains(f.Aliases, name) })
			if f == nil || !takesValue(f) || eq {
				if f != nil && f.Name == "dir" {
					dir = val
				}
				continue
			}
			if i+1 < len(done) {
				if f.Name == "dir" {
					dir = done[i+1]
				}
				i++
			} else {
				want = f
			}
		case !dashdash && strings.HasPrefix(w, "-") && len(w) > 1:
			short := []rune(w[1:])
			f := flagOf(node, func(f *kong.Flag) bool { return f.Short == short[len(short)-1] })
			if f == nil || !takesValue(f) || len(short) > 1 && !isShortCluster(node, short) {
				continue
			}
			if i+1 < len(done) {
				if f.Name == "dir" {
					dir = done[i+1]
				}
				i++
			} else {
				want = f
			}
		default:
			if c := child(node, w); c != nil && pos == 0 {
				node = c
				continue
			}
			pos++
		}
	}
	var out []Candidate
	prefix := ""
	typed := cur
	switch {
	case want != nil:
		out = values(want.Value, want.PlaceHolder, true, dir, p)
	case !dashdash && strings.HasPrefix(cur, "--") && strings.Contains(cur, "="):
		name, val, _ := strings.Cut(cur[2:], "=")
		if f := flagOf(node, func(f *kong.Flag) bool { return f.Name == name }); f != nil && takesValue(f) {
			out = values(f.Value, f.PlaceHolder, true, dir, p)
		}
		prefix, typed = "--"+name+"=", val
	case !dashdash && strings.HasPrefix(cur, "-"):
		for n := node; n != nil; n = n.Parent {
			for _, f := range n.Flags {
				if !f.Hidden {
					out = append(out, Candidate{Value: "--" + f.Name, Desc: firstSentence(f.Help)})
				}
			}
		}
	default:
		if pos == 0 {
			for _, c := range node.Children {
				if c.Type == kong.CommandNode && !c.Hidden {
					out = append(out, Candidate{Value: c.Name, Desc: firstSentence(c.Help)})
				}
			}
		}
		if args := node.Positional; len(args) > 0 {
			a := args[min(pos, len(args)-1)]
			if pos < len(args) || a.IsSlice() {
				out = append(out, values(a, a.Tag.PlaceHolder, false, dir, p)...)
			}
		}
	}
	kept := out[:0]
	for _, c := range out {
		if strings.HasPrefix(c.Value, typed) {
			kept = append(kept, c)
		}
	}
	return Result{Candidates: kept, Prefix: prefix}
}

// isShortCluster reports whether every rune of a -abc group is a short
// flag of the path (only the last may take a value).
func isShortCluster(node *kong.Node, short []rune) bool {
	for _, r := range short[:len(short)-1] {
		if flagOf(node, func(f *kong.Flag) bool { return f.Short == r }) == nil {
			return false
		}
	}
	return true
}

// flagOf finds a flag of node or its ancestors.
func flagOf(node *kong.Node, match func(*kong.Flag) bool) *kong.Flag {
	for n := node; n != nil; n = n.Parent {
		for _, f := range n.Flags {
			if match(f) {
				return f
			}
		}
	}
	return nil
}

func takesValue(f *kong.Flag) bool { return !f.IsBool() && !f.IsCounter() }

// child is node's subcommand called name.
func child(node *kong.Node, name string) *kong.Node {
	for _, c := range node.Children {
		if c.Type == kong.CommandNode && (c.Name == name || slices.Contains(c.Aliases, name)) {
			return c
		}
	}
	return nil
}

// values predicts the values of a flag or positional argument: its enum,
// task handles for ids, plan names for a plan's name.
func values(v *kong.Value, placeholder string, isFlag bool, dir string, p Predictor) []Candidate {
	if v.Enum != "" {
		var out []Candidate
		for _, e := range v.EnumSlice() {
			if e != "" {
				out = append(out, Candidate{Value: e})
			}
		}
		return out
	}
	switch {
	case placeholder == "ID" || (isFlag && taskFlags[v.Name]) || (!isFlag && v.Name == "id"):
		return p.Tasks(dir, v.Tag != nil && v.Tag.Get("tasks") == "finished")
	case !isFlag && v.Name == "name", placeholder == "PLAN":
		return p.Plans(dir)
	case placeholder == "LABEL":
		return p.Labels(dir)
	}
	return nil
}

// firstSentence shortens a help text to its first sentence.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
