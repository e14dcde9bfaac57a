package guard

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// assign records a variable assignment.
func (s *shell) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil {
		return
	}
	var vals []string
	switch {
	case a.Array != nil:
		for _, el := range a.Array.Elems {
			if el.Index != nil {
				s.nested(el.Index)
			}
			if el.Value != nil {
				vals = s.appendFields(vals, el.Value)
			}
		}
	case a.Value != nil:
		vals = s.quotedFields(a.Value)
	default:
		vals = []string{""}
	}
	if a.Index != nil {
		s.nested(a.Index)
		// BASH_CMDS[name]=path is bash's command hash: name runs path.
		if a.Name.Value == "BASH_CMDS" && len(vals) == 1 {
			if w, ok := a.Index.(*syntax.Word); ok {
				if k := s.fields(w); len(k) == 1 {
					s.e.hash(k[0], vals[0])
				}
			}
		}
	}
	if a.Append {
		if old, ok := s.lookup(a.Name.Value); ok {
			vals = s.e.product(slices.Clone(old), vals)
		}
	}
	s.set(a.Name.Value, vals)
}

func (s *shell) set(name string, vals []string) {
	if len(vals) > maxFields {
		vals = vals[:maxFields]
	}
	switch {
	case s.vars == nil:
		s.vars = make(map[string][]string)
	case s.sharedVars:
		s.e.charge(len(s.vars), 0)
		s.vars = maps.Clone(s.vars)
	}
	s.sharedVars = false
	s.vars[name] = vals
	s.dataCode(vals)
	if name == "GLOBIGNORE" {
		// bash turns dotglob on when GLOBIGNORE gets a value (an empty
		// one changes nothing).
		for _, v := range vals {
			if v != "" {
				s.dotglob = true
			}
		}
	}
}

// lookup returns the candidate values of a variable (through the
// namerefs the command declared: declare -n r=x).
func (s *shell) lookup(name string) ([]string, bool) {
	for range 8 {
		t, ok := s.e.refs[name]
		if !ok {
			break
		}
		name = t
	}
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	switch name {
	case "PWD":
		if s.cwd != "" {
			return []string{s.cwd}, true
		}
	case "HOME":
		if s.e.home != "" {
			return []string{s.e.home}, true
		}
	case "OLDPWD":
		if s.oldpwd != "" {
			return []string{s.oldpwd}, true
		}
	case "_":
		if s.last != "" {
			return []string{s.last}, true
		}
	case "IFS":
		return []string{" \t\n"}, true // bash's default
	case "USER", "LOGNAME", "UID", "EUID":
		return []string{selfUser}, true
	case "@", "*":
		if s.pos != nil {
			return s.positional(), true
		}
	}
	if s.pos != nil && len(name) == 1 && name[0] >= '0' && name[0] <= '9' {
		if i := int(name[0] - '0'); i < len(s.pos) {
			return s.pos[i : i+1], true
		}
		return []string{""}, true
	}
	return nil, false
}

func (s *shell) positional() []string {
	if len(s.pos) > 1 {
		return s.pos[1:]
	}
	return nil
}

// dataCode analyses text that holds command substitutions in quotes
// ('$(rm …)', '`rm …`') as the code it becomes when bash evaluates the
// text again: PS4 with set -x, ${x@P}, arithmetic on 'a[$(…)]', eval.
// Only when the command names .matrixx (taint): such text elsewhere
// cannot name a store.
func (s *shell) dataCode(vals []string) {
	if !s.e.taint {
		return
	}
	for _, v := range vals {
		if strings.Contains(v, "$(") || strings.IndexByte(v, '`') >= 0 {
			s.script(": "+v, s.pos)
		}
	}
}
