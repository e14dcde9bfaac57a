package guard

import (
	"strings"
)

// find analyses find: -delete removes the start points (and the paths
// its -path patterns select), -exec/-execdir/-ok run a command on them,
// -fprint* write a file.
func (s *shell) find(args []string) {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O")) {
		i++
	}
	if i < len(args) && args[i] == "-D" {
		i += 2
	}
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if a != "" && (a[0] == '-' || a == "(" || a == "!" || a == ")" || a == ",") {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = append(starts, ".")
	}
	var patterns []string
	var execs [][]string
	destroy := false
	negated := false
	for ; i < len(args); i++ {
		a := args[i]
		neg := negated
		negated = a == "!" || a == "-not"
		switch a {
		case "-delete":
			destroy = true
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			execs = append(execs, args[i+1:j])
			i = j
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				s.write(args[i+1], "find "+a, true)
				i++
			}
			if a == "-fprintf" {
				i++
			}
		case "-path", "-wholename", "-ipath", "-iwholename", "-regex", "-iregex":
			if i+1 < len(args) {
				if !neg {
					patterns = append(patterns, args[i+1])
				}
				i++
			}
		case "-prune":
			if len(patterns) > 0 {
				patterns = patterns[:len(patterns)-1]
			}
		case "-name", "-iname", "-type", "-xtype", "-newer", "-anewer", "-cnewer", "-maxdepth",
			"-mindepth", "-size", "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-user",
			"-group", "-uid", "-gid", "-perm", "-lname", "-ilname", "-printf", "-samefile", "-links",
			"-inum", "-used", "-fstype", "-context", "-regextype", "-files0-from":
			i++
		default:
			if strings.HasPrefix(a, "-newer") {
				i++
			}
		}
	}
	targets := append(starts, patterns...)
	execTargets := targets[:min(len(targets), maxFields)]
	if destroy {
		for _, t := range targets {
			s.write(t, "find -delete", true)
		}
	}
	for _, ex := range execs {
		if len(ex) == 0 {
			continue
		}
		for _, t := range execTargets {
			argv := make([]string, len(ex))
			for k, a := range ex {
				argv[k] = strings.ReplaceAll(a, "{}", t)
			}
			s.call(argv, input{})
		}
	}
}
