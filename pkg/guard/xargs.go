package guard

import (
	"strings"
)

// xargs analyses the command xargs runs, with the paths named upstream
// (or an unknown argument) as its input.
func (s *shell) xargs(args []string, in input) {
	replace := ""
	i := 0
loop:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			break loop
		case len(a) < 2 || a[0] != '-':
			break loop
		case a == "-I":
			if i+1 < len(args) {
				replace = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "-I"):
			replace = a[2:]
		case a == "-i" || a == "--replace":
			replace = "{}"
		case strings.HasPrefix(a, "--replace="):
			replace = a[len("--replace="):]
		case strings.HasPrefix(a, "-i") && len(a) > 2:
			replace = a[2:]
		case a == "-n" || a == "-P" || a == "-L" || a == "-s" || a == "-d" || a == "-a" || a == "-E":
			i++
		case a == "--max-args" || a == "--max-procs" || a == "--max-lines" || a == "--max-chars" ||
			a == "--delimiter" || a == "--arg-file" || a == "--eof" || a == "--process-slot-var":
			i++
		}
	}
	cmd := args[min(i, len(args)):]
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	inputs := xargsInputs(in)
	if replace == "" {
		argv := append(append(make([]string, 0, len(cmd)+len(inputs)), cmd...), inputs...)
		s.call(argv, input{})
		return
	}
	for _, v := range inputs {
		argv := make([]string, len(cmd))
		for k, a := range cmd {
			argv[k] = strings.ReplaceAll(a, replace, v)
		}
		s.call(argv, input{})
	}
}

func xargsInputs(in input) []string {
	var vals []string
	if in.known {
		for f := range strings.FieldsSeq(in.text) {
			if len(vals) == maxFields {
				break
			}
			vals = append(vals, f)
		}
	}
	vals = append(vals, in.paths...)
	if len(vals) == 0 {
		vals = append(vals, string(unknown))
	}
	return vals[:min(len(vals), maxFields)]
}

// parallel analyses GNU parallel: the command before ":::" with the
// arguments after it.
func (s *shell) parallel(args []string) {
	for i, a := range args {
		if a != ":::" && a != "::::" {
			continue
		}
		cmd, inputs := args[:i], args[i+1:]
		for len(cmd) > 0 && strings.HasPrefix(cmd[0], "-") {
			cmd = cmd[1:]
		}
		if len(cmd) == 0 || a == "::::" {
			return
		}
		inputs = inputs[:min(len(inputs), maxFields)]
		for _, v := range inputs {
			argv := make([]string, 0, len(cmd)+1)
			replaced := false
			for _, c := range cmd {
				if strings.Contains(c, "{}") {
					replaced = true
				}
				argv = append(argv, strings.ReplaceAll(c, "{}", v))
			}
			if !replaced {
				argv = append(argv, v)
			}
			s.call(argv, input{})
		}
		return
	}
}
