package guard

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// mutator reports whether name is a command that writes the files named
// by its arguments (handled by mutate).
func mutator(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put",
		"touch", "truncate", "tee", "sponge", "mkfifo", "mknod", "chmod", "chown", "chgrp", "chattr",
		"setfacl", "setfattr", "xattr", "ln", "link", "mv", "dos2unix", "unix2dos", "mac2unix", "unix2mac",
		"mkdir", "cp", "install", "rsync", "scp", "dd", "sed", "gsed", "sort", "uniq", "split", "csplit",
		"patch", "curl", "wget", "tar", "gtar", "bsdtar", "unzip", "mktemp", "iconv", "pandoc", "yq", "sd",
		"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4",
		"pigz", "brotli", "compress", "uncompress",
		"ed", "ex", "vi", "vim", "nvim", "gvim", "nano", "pico", "emacs", "emacsclient", "micro", "kak",
		"hx", "helix", "joe", "mcedit", "code", "subl", "gedit", "kate", "sudoedit",
		"prettier", "gofmt", "goimports", "shfmt", "clang-format", "black", "isort", "autopep8", "yapf",
		"ruff", "eslint", "rustfmt", "mdformat", "markdownlint", "markdownlint-cli2", "rubocop", "biome",
		"dprint", "perltidy", "stylua", "taplo",
		"cpio", "7z", "7za", "7zr", "7zz", "zip", "jar", "unrar", "rar":
		return true
	}
	return false
}

// mutate checks the paths a writing command changes.
func (s *shell) mutate(name string, args []string, in input) {
	if !mutator(name) {
		return
	}
	switch name {
	case "rm", "rmdir", "unlink", "srm", "trash", "trash-put":
		// They remove a symlink itself, not what it points to.
		recursive := name == "trash" || name == "trash-put"
		ops := scan(name, args, func(opt, _ string) {
			recursive = recursive || opt == "r" || opt == "R" || opt == "--recursive"
		})
		for _, p := range ops {
			s.unlink(p, name)
		}
		if recursive {
			s.writeTree(name+" -r", ops)
		}
	case "chmod", "chown", "chgrp", "setfacl":
		if name == "chmod" && chmodKeepsOwner(args, false) {
			return // u+w, 755, go-w: the owner keeps rwx, the binaries keep working
		}
		if name == "chown" && chownSelf(args) {
			return // chown -R $(id -u) .: the user who runs the binaries
		}
		recursive := false
		ops := scan(name, args, func(opt, _ string) {
			recursive = recursive || opt == "R" || opt == "--recursive"
		})
		s.writeAll(name, ops, true)
		if recursive {
			s.writeTree(name+" -R", ops)
		}
	case "ed", "ex", "vi", "vim", "nvim", "gvim", "nano", "pico", "emacs", "emacsclient", "micro", "kak",
		"hx", "helix", "joe", "mcedit", "code", "subl", "gedit", "kate":
		s.editorScript(name, args, in)
		s.editor(name, args)
	case "shred", "touch", "truncate", "tee", "sponge", "chattr", "setfattr", "xattr",
		"dos2unix", "unix2dos", "mac2unix", "unix2mac", "sudoedit":
		s.writeAll(name, scan(name, args, nil), true)
	case "mkdir", "mkfifo", "mknod":
		for _, p := range scan(name, args, nil) {
			if name != "mkdir" || !s.storeDir(p) {
				s.write(p, name, false)
			}
		}
	case "mv":
		s.copy(name, args, true)
	case "cp", "install", "ln", "link", "rsync", "scp":
		s.copy(name, args, false)
	case "dd":
		for _, a := range args {
			if p, ok := strings.CutPrefix(a, "of="); ok {
				s.write(p, "dd of=", true)
			}
		}
	case "sed", "gsed":
		s.sed(name, args)
	case "sort", "iconv", "pandoc":
		scan(name, args, func(opt, val string) {
			if opt == "o" || opt == "--output" {
				s.write(val, name+" -o", true)
			}
		})
	case "uniq":
		if ops := scan(name, args, nil); len(ops) >= 2 {
			s.write(ops[1], name, true)
		}
	case "split":
		ops := scan(name, args, nil)
		prefix := "x"
		if len(ops) >= 2 {
			prefix = ops[1]
		}
		s.write(prefix+"aa", name, true)
	case "csplit":
		prefix := "xx"
		scan(name, args, func(opt, val string) {
			if opt == "f" || opt == "--prefix" {
				prefix = val
			}
		})
		s.write(prefix+"00", name, true)
	case "patch":
		s.patch(args, in)
	case "curl":
		s.curl(args)
	case "wget":
		s.wget(args)
	case "tar", "gtar", "bsdtar":
		s.tar(args)
	case "cpio", "7z", "7za", "7zr", "7zz", "zip", "jar", "unrar", "rar":
		s.archive(name, args)
	case "unzip":
		dir := "."
		list := false
		// The members named after the archive, up to -x (the names
		// left out).
		var members []string
		for i := 0; i < len(args); i++ {
			if args[i] == "-x" {
				args = args[:i]
				break
			}
		}
		ops := scan(name, args, func(opt, val string) {
			switch opt {
			case "d":
				dir = val
			case "l", "v", "t", "z", "Z", "p":
				list = true
			}
		})
		if len(ops) > 1 {
			members = ops[1:]
		}
		if !list {
			s.write(dir, "unzip", true)
			for _, m := range members[:min(len(members), maxFields)] {
				s.write(strings.TrimSuffix(dir, "/")+"/"+m, "unzip", true)
			}
		}
	case "mktemp":
		dir := ""
		ops := scan(name, args, func(opt, val string) {
			switch {
			case opt == "p":
				dir = val
			case strings.HasPrefix(opt, "--tmpdir") && val != "":
				dir = val
			}
		})
		tmpl := "tmp.XXXXXXXXXX"
		if len(ops) > 0 {
			tmpl = ops[0]
		}
		if dir != "" {
			s.write(dir+"/"+tmpl, name, false)
		} else if len(ops) > 0 {
			s.write(tmpl, name, false)
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4",
		"pigz", "brotli", "compress", "uncompress":
		stdout := false
		ops := scan(name, args, func(opt, val string) {
			switch opt {
			case "c", "l", "t", "--stdout", "--to-stdout", "--list", "--test":
				stdout = true
			case "o", "--output":
				s.write(val, name+" -o", true)
			}
		})
		if !stdout {
			s.writeAll(name, ops, true)
		}
	case "yq":
		inplace := false
		ops := scan(name, args, func(opt, _ string) {
			if opt == "i" || opt == "--inplace" {
				inplace = true
			}
		})
		if inplace && len(ops) > 1 {
			s.writeAll("yq -i", ops[1:], true)
		}
	case "sd":
		preview := false
		ops := scan(name, args, func(opt, _ string) {
			if opt == "p" || opt == "--preview" {
				preview = true
			}
		})
		if !preview && len(ops) > 2 {
			s.writeAll(name, ops[2:], true)
		}
	default:
		s.formatter(name, args)
	}
}

// writeTree checks the operands of a recursive change (rm -r, chmod -R):
// a directory that holds a guarded directory is reached through it (rm
// -rf . in a project removes its .matrixx); a glob operand is expanded
// against the disk (rm -rf ../* reaches ../proj/.matrixx). When the
// store reached is not the one of the project the agent works in (a
// snapshot, a backup), the reason says how such a copy goes.
func (s *shell) writeTree(cmd string, ops []string) {
	f := treeFilter{maxDepth: -1, hidden: true}
	for _, op := range ops[:min(len(ops), maxFields)] {
		starts := s.expandGlob(op)
		if len(starts) == 0 {
			starts = []string{op}
		}
		for _, p := range starts {
			for _, r := range s.reach(p, &f, false) {
				if proj := s.copyOf(r); proj != "" {
					s.globs()
					if loc := s.e.locate(s.cwd, r, false); loc.st != outside {
						s.refuse(copyReason("Bash ("+cmd+")", loc.st, r, loc.resolved, proj), "bash:"+cmd)
						continue
					}
				}
				s.write(r, cmd, true)
			}
		}
	}
}

// copyOf returns the directory holding the .matrixx of the guarded path
// r when it is not the project the agent works in (the event's cwd is
// not in it): a snapshot or a backup, guarded all the same, which only
// the user can remove (copyReason); "" otherwise.
func (s *shell) copyOf(r string) string {
	a := cleanPath(joinPath(s.cwd, slashes(s.tilde(r))))
	i := indexFold(a+"/", "/.matrixx/")
	if i < 0 || !isAbs(a) || strings.IndexByte(a, unknown) >= 0 {
		return ""
	}
	proj := a[:i]
	if proj == "" {
		proj = "/"
	}
	if s.e.cwd != "" && hasPathPrefixFold(s.e.cwd, proj) {
		return ""
	}
	return proj
}

// maxGlobDirs bounds the directories a glob expansion reads.
const maxGlobDirs = 8

// expandGlob expands the glob characters of p ("*", "?", "[…]") against
// the disk as the shell would: a name starting with a dot only for a
// pattern that starts with one, or under dotglob. Each directory is read
// for at most maxReachEntries entries (and a .matrixx in it is always
// looked up by name), at most maxGlobDirs directories in all, and at
// most maxFields paths come out. nil when p has no glob, a part that is
// not known, or nothing matches (the shell then passes the word as it
// is).
func (s *shell) expandGlob(p string) []string {
	if !strings.ContainsAny(p, "*?[") || strings.IndexByte(p, unknown) >= 0 {
		return nil
	}
	p = slashes(s.tilde(p))
	comps := strings.Split(p, "/")
	cur := []string{""}
	dirs := 0
	for k, c := range comps {
		next := make([]string, 0, len(cur))
		for _, pre := range cur {
			join := func(name string) string {
				if k == 0 {
					return name
				}
				return pre + "/" + name
			}
			if !strings.ContainsAny(c, "*?[") {
				next = append(next, join(c))
				continue
			}
			dir := pre
			switch {
			case k == 0:
				dir = s.cwd
			case pre == "":
				dir = "/"
			default:
				dir = cleanPath(joinPath(s.cwd, pre))
			}
			if !isAbs(dir) || strings.ContainsAny(dir, "*?[") || dirs >= maxGlobDirs || !s.e.charge(1, len(dir)) {
				return nil
			}
			dirs++
			matches := func(name string) bool {
				return name != "." && name != ".." && (name[0] != '.' || c[0] == '.' || s.dotglob) &&
					shellMatch(c, name, false)
			}
			seen := ""
			if matches(".matrixx") {
				if _, err := os.Lstat(filepath.FromSlash(dir + "/.matrixx")); err == nil {
					next = append(next, join(".matrixx"))
					seen = ".matrixx"
				}
			}
			d, err := os.Open(filepath.FromSlash(dir))
			if err != nil {
				continue
			}
			entries, _ := d.ReadDir(maxReachEntries)
			d.Close()
			for _, en := range entries {
				if n := en.Name(); n != seen && matches(n) && len(next) < maxFields && s.e.charge(1, len(n)) {
					next = append(next, join(n))
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		cur = next[:min(len(next), maxFields)]
	}
	return cur
}

// editorScript checks the commands an editor is given to run: ed and ex
// read them on stdin, vim from -c, --cmd, +CMD and (with -e/-s) stdin,
// emacs from --eval. A script that names a guarded path (e FILE, w FILE,
// !rm …) is denied whatever the flags, and so are store paths piped in as
// commands.
func (s *shell) editorScript(name string, args []string, in input) {
	var parts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case len(a) > 1 && a[0] == '+':
			parts = append(parts, a[1:])
		case (a == "-c" || a == "--cmd" || a == "--eval" || a == "-eval" || a == "--execute" ||
			len(a) > 2 && a[0] == '-' && a[1] != '-' && a[len(a)-1] == 'c') && i+1 < len(args): // ex -sc CMD
			parts = append(parts, args[i+1])
			i++
		case strings.HasPrefix(a, "--eval="):
			parts = append(parts, a[len("--eval="):])
		}
	}
	if in.known {
		parts = append(parts, in.text)
	}
	via := "Bash (" + name + " script)"
	if len(parts) > 0 {
		code := strings.Join(parts, "\n")
		if hit, st := s.e.codeMention(code); st != outside {
			s.refuse(writeReason(via, st, hit, ""), "bash:"+name+" script")
			return
		}
		if containsFold(code, "matrixx") {
			// e .matrixx/task?/…, an unusual spelling: the editor opens it.
			s.refuse(writeReason(via, root, ".matrixx", ""), "bash:"+name+" script")
			return
		}
	}
	if hit := stdinStore(in); hit != "" && (name == "ed" || name == "ex" || strings.Contains(name, "vi")) {
		s.refuse(writeReason(via, s.e.classify(hit), hit, ""), "bash:"+name+" script")
	}
}

// editor checks an editor: it writes its file operands, unless it is
// started read-only (vim -R, vim -M, view, nano -v, code --diff): Bash
// may read plans (docs/guard.md, File tools).
func (s *shell) editor(name string, args []string) {
	for _, a := range args {
		switch a {
		case "-R", "-M":
			if name == "vi" || name == "vim" || name == "nvim" || name == "gvim" || name == "ex" {
				return
			}
		case "-v", "--view":
			if name == "nano" || name == "pico" {
				return
			}
		case "-d", "--diff":
			if name == "code" || name == "vim" || name == "nvim" {
				return
			}
		}
	}
	s.writeAll(name, scan(name, args, nil), true)
}

// writeAll checks every operand as a write.
func (s *shell) writeAll(cmd string, ops []string, rootToo bool) {
	for _, p := range ops {
		s.write(p, cmd, rootToo)
	}
}

// copy checks cp, mv, install, ln, rsync and scp: the destination (the
// last operand or -t DIR) and what lands in it (DEST/base(source)); mv
// also removes its sources, rsync --remove-source-files too, and install
// -d creates every operand. A hard link (ln, cp -l) to a store file is a
// way around the guard: its source counts as written. A symbolic link
// (ln -s, cp -s) writes only the link; it is remembered, so that a later
// write through it in the same command is seen through (the symlinks
// that exist are resolved anyway).
func (s *shell) copy(name string, args []string, move bool) {
	target, dirs, removeSrc := "", false, move
	symbolic, hard, noDeref := false, name == "ln" || name == "link", false
	noTarget := false // -T: DEST is the copy itself, never a directory to copy into
	recursive, del, delExcluded := false, false, false
	var rules []rsyncRule
	ops := scan(name, args, func(opt, val string) {
		if name == "rsync" {
			switch opt {
			case "--delete", "--del", "--delete-before", "--delete-during", "--delete-delay", "--delete-after":
				del = true
			case "--delete-excluded":
				del, delExcluded = true, true
			case "--exclude", "--include", "f", "--filter", "F", "--exclude-from", "--include-from":
				rules = rsyncRules(rules, opt, val)
			}
		}
		switch opt {
		case "r", "a", "--recursive", "--archive":
			recursive = name == "cp" || name == "rsync" || name == "scp"
		case "R":
			recursive = recursive || name == "cp"
		}
		switch opt {
		case "t", "--target-directory":
			if name != "rsync" && name != "scp" {
				target = val
			}
		case "d", "--directory":
			dirs = name == "install"
		case "--remove-source-files":
			removeSrc = name == "rsync"
		case "s", "--symbolic", "--symbolic-link":
			if name == "ln" || name == "cp" {
				symbolic, hard = true, false
			}
		case "l", "--link":
			hard = hard || name == "cp"
		case "n", "T", "--no-dereference", "--no-target-directory":
			noDeref = name == "ln" || opt == "T" || opt == "--no-target-directory"
			noTarget = noTarget || (opt == "T" || opt == "--no-target-directory") && name != "rsync" && name != "scp"
		}
	})
	if dirs {
		for _, p := range ops {
			if !s.storeDir(p) {
				s.write(p, name, false)
			}
		}
		return
	}
	dest := target
	srcs := ops
	if dest == "" {
		if len(ops) < 2 {
			if name != "ln" || len(ops) == 0 {
				return
			}
			dest = "." // ln -s TARGET: ./base(TARGET)
		} else {
			dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
		}
	}
	if hard {
		for _, p := range srcs {
			s.write(p, name, false)
		}
	}
	if remote(dest) {
		dest = ""
	}
	if removeSrc {
		for _, p := range srcs {
			if !remote(p) {
				s.unlink(p, name)
			}
		}
	}
	if dest == "" {
		return
	}
	contents := false // "cp -r dir/ dest" copies what is in dir
	for _, p := range srcs {
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") {
			contents = true
		}
	}
	// DEST is a file when one source goes to a name that is not an
	// existing directory (or a link to one, unless -n/-T).
	intoDir := !noTarget && (target != "" || len(srcs) > 1 || strings.HasSuffix(dest, "/") || dest == "." ||
		(!noDeref && s.isDir(dest)))
	if !symbolic {
		s.write(dest, name, contents)
	} else if !intoDir {
		s.unlink(dest, name)
	}
	for _, p := range srcs {
		made := dest
		if b := path.Base(slashes(p)); intoDir && b != "." && b != "/" && b != ".." {
			made = strings.TrimSuffix(dest, "/") + "/" + b
			s.write(made, name, false)
		}
		s.remember(made, p, symbolic)
	}
	if recursive && !symbolic && !hard {
		s.copyTree(name, srcs, dest, intoDir, rules, del, delExcluded)
	}
}

// copyTree checks what a recursive copy (cp -r, rsync -a, scp -r) does
// below its destination: the guarded directories a source holds land in
// the destination, which counts when they land in a store that exists
// (rsync -a backup/ ./ with a backup/.matrixx/tasks); and rsync --delete
// removes from the directory it fills whatever the source lacks, so a
// guarded directory below it counts (rsync -a --delete /tmp/empty/ ./),
// unless an --exclude or --filter rule keeps it out of the deletion.
func (s *shell) copyTree(name string, srcs []string, dest string, intoDir bool, rules []rsyncRule, del, delExcluded bool) {
	all := treeFilter{maxDepth: -1, hidden: true}
	// A source glob is expanded against the disk, as the shell would
	// (cp -a /tmp/snap/.matrix* . copies /tmp/snap/.matrixx).
	var expanded []string
	for _, p := range srcs[:min(len(srcs), maxFields)] {
		if x := s.expandGlob(p); len(x) > 0 && !remote(p) {
			expanded = append(expanded, x...)
		} else {
			expanded = append(expanded, p)
		}
	}
	for _, p := range expanded[:min(len(expanded), maxFields)] {
		local := p
		if remote(p) {
			local = p[strings.IndexByte(p, ':')+1:]
		}
		sp := slashes(local)
		// What the source's entries land in, and their path in the
		// transfer (rsync's filter rules are relative to it).
		land, base := dest, ""
		contents := strings.HasSuffix(sp, "/.") || sp == "." || sp == ".." ||
			name == "rsync" && strings.HasSuffix(sp, "/")
		if b := path.Base(sp); !contents && (intoDir || name == "rsync") && b != "/" {
			land, base = strings.TrimSuffix(dest, "/")+"/"+b, b
		}
		inTransfer := func(rel string) string {
			if base != "" {
				return base + "/" + rel
			}
			return rel
		}
		if del {
			prefix := strings.TrimSuffix(land, "/") + "/"
			for _, r := range s.reach(land, &all, false) {
				if !rsyncKeeps(rules, inTransfer(strings.TrimPrefix(r, prefix)), true, delExcluded) {
					s.write(r, name+" --delete", true)
				}
			}
		}
		if local != p {
			continue
		}
		prefix := strings.TrimSuffix(p, "/") + "/"
		for _, r := range s.reach(p, &all, false) {
			rel := strings.TrimPrefix(r, prefix)
			if name == "rsync" && rsyncKeeps(rules, inTransfer(rel), false, false) {
				continue
			}
			if l := strings.TrimSuffix(land, "/") + "/" + rel; s.isDir(path.Dir(l)) {
				s.write(l, name, false)
			}
		}
	}
}

// rsyncRule is a filter rule of rsync: kind '-' exclude, '+' include,
// 'P' protect, 'R' risk, 'H' hide, 'S' show, '?' one the guard does not
// read (a merge file, --exclude-from): nothing after it is trusted.
type rsyncRule struct {
	kind byte
	pat  string
}

// rsyncRules adds the rule an rsync option gives (--exclude PAT,
// --include PAT, --filter RULE, -F, --exclude-from FILE).
func rsyncRules(rules []rsyncRule, opt, val string) []rsyncRule {
	if len(rules) >= maxFields {
		return append(rules[:maxFields-1], rsyncRule{kind: '?'})
	}
	if strings.IndexByte(val, unknown) >= 0 {
		return append(rules, rsyncRule{kind: '?'})
	}
	switch opt {
	case "--exclude":
		return append(rules, rsyncRule{'-', val})
	case "--include":
		return append(rules, rsyncRule{'+', val})
	case "f", "--filter":
	default: // -F, --exclude-from, --include-from: rules in files
		return append(rules, rsyncRule{kind: '?'})
	}
	if val == "!" || val == "clear" {
		return rules[:0]
	}
	head, pat, ok := strings.Cut(val, " ")
	if !ok && len(val) > 1 && strings.IndexByte("-+PRHS", val[0]) >= 0 {
		head, pat, ok = strings.Cut(val, "_")
	}
	kind := byte('?')
	switch head {
	case "-", "exclude":
		kind = '-'
	case "+", "include":
		kind = '+'
	case "P", "protect":
		kind = 'P'
	case "R", "risk":
		kind = 'R'
	case "H", "hide":
		kind = 'H'
	case "S", "show":
		kind = 'S'
	case "-s":
		kind = 'H' // an exclude for the sending side only
	case "-r":
		kind = 'P'
	case "+s":
		kind = 'S'
	case "+r":
		kind = 'R'
	}
	if !ok || pat == "" {
		kind = '?'
	}
	return append(rules, rsyncRule{kind, pat})
}

// rsyncKeeps reports whether rsync's filter rules keep rel (a path in
// the transfer) out of the deletion on the receiving side (receiver) or
// out of the transfer: a directory above rel is excluded (or protected,
// hidden) by the first rule that matches it. With --delete-excluded the
// exclude rules do not protect.
func rsyncKeeps(rules []rsyncRule, rel string, receiver, delExcluded bool) bool {
	if len(rules) == 0 {
		return false
	}
	comps := strings.Split(rel, "/")
	for k := 1; k < len(comps); k++ {
		q := strings.Join(comps[:k], "/")
	rules:
		for _, r := range rules {
			switch r.kind {
			case '?':
				return false
			case 'H', 'S':
				if receiver {
					continue
				}
			case 'P', 'R':
				if !receiver {
					continue
				}
			case '-':
				if receiver && delExcluded {
					continue
				}
			}
			if !rsyncMatch(r.pat, q) {
				continue
			}
			switch r.kind {
			case '-', 'P', 'H':
				return true
			}
			break rules // included at this level
		}
	}
	return false
}

// rsyncMatch matches an rsync filter pattern against the directory q (a
// path in the transfer): a pattern without "/" matches the last
// component, one with "/" the last components, one starting with "/" the
// whole path; "*" stays within a component, "**" does not; "dir/***"
// matches dir and what lies in it.
func rsyncMatch(pat, q string) bool {
	if strings.HasSuffix(pat, "/***") {
		return rsyncMatch(pat[:len(pat)-4], q) || rsyncMatch(pat[:len(pat)-2], q)
	}
	pat = strings.TrimRight(pat, "/")
	if pat == "" {
		return false
	}
	anchored := pat[0] == '/'
	pat = strings.TrimLeft(pat, "/")
	if strings.Contains(pat, "**") {
		return shellMatch(pat, q, false) || !anchored && shellMatch("*/"+pat, q, false)
	}
	pc, qc := strings.Split(pat, "/"), strings.Split(q, "/")
	if len(pc) > len(qc) || anchored && len(pc) != len(qc) {
		return false
	}
	off := len(qc) - len(pc)
	for i := range pc {
		if !shellMatch(pc[i], qc[off+i], false) {
			return false
		}
	}
	return true
}

// chmodKeepsOwner reports whether chmod's mode leaves the owner read,
// write and search (execute) permission on every file and directory it
// changes: such a chmod cannot take the stores away from the binaries
// (they run as the owner). Numeric modes whose owner digit is 7 (755,
// 0700, 1777); symbolic clauses that add (u+w, +x, a+rX), that do not
// touch the owner (go-w, o=, g=rx), that take from the owner only s or t
// (u-s), or that set the owner to r, w and x or X (u=rwX, a=rwx). A
// numeric mode with another owner digit (644 strips the directories'
// x), another "-" or "=", --reference and a mode written as an option
// (-w) may take the owner's permissions away.
//
// With files (find -type f -exec chmod …: the targets are files only)
// the owner's search permission does not matter: an owner digit of 6 or
// 7, and "-x", "=rw", "u=rw" pass too.
func chmodKeepsOwner(args []string, files bool) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--reference") {
			return false
		}
		// chmod -w FILE, chmod -x,go-w FILE: a symbolic mode that looks
		// like an option is the mode.
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rwxXstugoa=+-,01234567") {
			return strings.Trim(a, "rwxXstugoa=+-,") == "" && symbolicKeepsOwner(a, files)
		}
	}
	ops := scan("chmod", args, nil)
	if len(ops) == 0 || ops[0] == "" {
		return false
	}
	mode := ops[0]
	if strings.Trim(mode, "01234567") == "" {
		v, err := strconv.ParseUint(mode, 8, 32)
		need := uint64(7)
		if files {
			need = 6
		}
		return err == nil && v <= 0o7777 && len(mode) >= 3 && (v>>6)&need == need
	}
	return symbolicKeepsOwner(mode, files)
}

// symbolicKeepsOwner is chmodKeepsOwner for a symbolic mode (u+w,go-r,
// -x): every clause leaves the owner read and write, and search unless
// files.
func symbolicKeepsOwner(mode string, files bool) bool {
	for _, cl := range strings.Split(mode, ",") {
		i := 0
		for i < len(cl) && strings.IndexByte("ugoa", cl[i]) >= 0 {
			i++
		}
		owner := i == 0 || strings.ContainsAny(cl[:i], "ua")
		if i == len(cl) {
			return false
		}
		for i < len(cl) {
			op := cl[i]
			if op != '+' && op != '-' && op != '=' {
				return false
			}
			j := i + 1
			for j < len(cl) && strings.IndexByte("rwxXstugo", cl[j]) >= 0 {
				j++
			}
			perms := cl[i+1 : j]
			i = j
			switch {
			case !owner || op == '+':
			case op == '-' && strings.ContainsAny(perms, "rwugo") || op == '-' && !files && strings.ContainsAny(perms, "xX"):
				return false
			case op == '=' && (strings.ContainsAny(perms, "ugo") || !strings.ContainsRune(perms, 'r') ||
				!strings.ContainsRune(perms, 'w') || !files && !strings.ContainsAny(perms, "xX")):
				return false
			}
		}
	}
	return true
}

// selfUser is the value of $(id -u), $(id -un), $(whoami), $USER,
// $LOGNAME, $UID and $EUID when the command does not set them: the user
// who runs the command (and the binaries). It starts with the unknown
// byte, so it is unknown everywhere else.
const selfUser = "\x00\x02"

// chownSelf reports whether chown gives the files to the user who runs
// it (chown -R $(id -u) ., chown -R "$USER:$(id -g)" .): the owner keeps
// the stores. Any other owner (one the guard cannot tell from the user),
// --reference and a group alone stay checked.
func chownSelf(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--reference") {
			return false
		}
	}
	ops := scan("chown", args, nil)
	if len(ops) == 0 {
		return false
	}
	owner, _, ok := strings.Cut(ops[0], ":")
	if !ok {
		owner, _, _ = strings.Cut(ops[0], ".")
	}
	return owner == selfUser
}

// storeDir reports whether p (relative to the current directory) is a
// store directory itself — .matrixx/tasks, .matrixx/plans, .matrixx/state,
// an Extra or State directory — not something inside one: mkdir of it
// makes an empty store, which the binaries would make anyway.
func (s *shell) storeDir(p string) bool {
	a := cleanPath(joinPath(s.cwd, slashes(s.tilde(p))))
	if a == "" || strings.IndexByte(a, unknown) >= 0 {
		return false
	}
	s.globs()
	if dir, base := path.Split(a); dir != "" && s.e.classify(strings.TrimSuffix(dir, "/")) == root &&
		(s.e.is(base, "tasks") || s.e.is(base, "plans") || s.e.is(base, "state")) {
		return true
	}
	for _, list := range [...][]string{s.e.extra, s.e.state} {
		for _, x := range list {
			if strings.EqualFold(a, x) {
				return true
			}
		}
	}
	return false
}

// remember records that the command made made from src (a symbolic link
// to src when symbolic; a copy, a move or a hard link otherwise).
func (s *shell) remember(made, src string, symbolic bool) {
	if strings.IndexByte(made, unknown) >= 0 || strings.IndexByte(src, unknown) >= 0 {
		return
	}
	m := cleanPath(joinPath(s.cwd, slashes(s.tilde(made))))
	var t string
	if symbolic {
		// A relative symlink target is relative to the link's directory.
		t = cleanPath(joinPath(path.Dir(m), slashes(s.tilde(src))))
	} else {
		t = cleanPath(joinPath(s.cwd, slashes(s.tilde(src))))
	}
	if m == "" || t == "" || m == t || !s.e.charge(1, len(m)+len(t)) {
		return
	}
	if symbolic {
		if s.e.links == nil {
			s.e.links = make(map[string]string)
		}
		if len(s.e.links) < maxFields {
			s.e.links[m] = t
		}
		return
	}
	if s.e.copies == nil {
		s.e.copies = make(map[string]string)
	}
	if len(s.e.copies) < maxFields {
		s.e.copies[m] = t
	}
}

// isDir reports whether p (relative to the current directory) is an
// existing directory (following links).
func (s *shell) isDir(p string) bool {
	a := cleanPath(joinPath(s.cwd, slashes(s.tilde(p))))
	if !isAbs(a) || strings.ContainsAny(a, "\x00*?[") {
		return false
	}
	if t := s.e.throughLinks(a, false); t != "" {
		a = t
	}
	fi, err := os.Stat(filepath.FromSlash(a))
	return err == nil && fi.IsDir()
}

// remote reports whether an rsync/scp operand names another host.
func remote(p string) bool {
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return false
	}
	if i == 1 && isLetter(p[0]) { // C:\…
		return false
	}
	return strings.IndexByte(p[:i], '/') < 0
}

// sed checks sed -i (every file operand) and the w commands of a script.
func (s *shell) sed(name string, args []string) {
	inplace := false
	var scripts []string
	ops := scan(name, args, func(opt, val string) {
		switch {
		case opt == "i" || opt == "I" || strings.HasPrefix(opt, "--in-place"):
			inplace = true
		case opt == "e" || opt == "--expression":
			scripts = append(scripts, val)
		case opt == "f" || opt == "--file":
			scripts = append(scripts, "")
		}
	})
	// -i.bak: scan reads ".bak" as more flags; only -i matters.
	files := ops
	if len(scripts) == 0 && len(ops) > 0 {
		scripts, files = ops[:1], ops[1:]
	}
	if inplace {
		s.writeAll(name+" -i", files, true)
	}
	for _, sc := range scripts {
		for _, p := range sedWrites(sc) {
			s.write(p, name+" w", true)
		}
		// GNU sed's e command runs its text as a shell command; the e
		// flag of s/// runs the pattern space, text the guard does not
		// know: denied when the command names .matrixx.
		for _, c := range sedExecs(sc) {
			s.script(c, nil)
		}
		if s.denied() {
			return
		}
		if (sedExecFlag(sc) || sedBareExec(sc)) && s.e.taint {
			hit, st := s.e.codeMention(sc)
			if st == outside {
				hit, st = ".matrixx", root
			}
			s.refuse(writeReason("Bash ("+name+" s///e runs text as shell code)", st, hit, ""), "bash:"+name+" e")
			return
		}
	}
}

// sedExecs are the shell commands of the e commands of a sed script
// (GNU: "e COMMAND" runs COMMAND).
func sedExecs(sc string) []string {
	var out []string
	for i := 0; i < len(sc); i++ {
		if sc[i] != 'e' || i+1 < len(sc) && sc[i+1] != ' ' && sc[i+1] != '\t' {
			continue
		}
		if i > 0 {
			switch p := sc[i-1]; {
			case p == ';' || p == '\n' || p == '{' || p == '}' || p == ' ' || p == '\t' || p == '/' || p == '$' || p == '!' ||
				p >= '0' && p <= '9':
			default:
				continue
			}
		}
		rest := sc[min(i+2, len(sc)):]
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		if c := strings.TrimSpace(rest); c != "" && len(out) < maxFields {
			out = append(out, c)
		}
	}
	return out
}

// sedBareExec reports whether a sed script holds an e command without a
// command (GNU: it runs the pattern space as a shell command).
func sedBareExec(sc string) bool {
	for i := 0; i < len(sc); i++ {
		if sc[i] != 'e' {
			continue
		}
		before := i == 0 || strings.IndexByte(";\n{}$!/ \t0123456789", sc[i-1]) >= 0
		after := i+1 == len(sc) || strings.IndexByte(";\n}", sc[i+1]) >= 0
		if before && after {
			return true
		}
	}
	return false
}

// sedExecFlag reports whether a sed script may hold an s command with the
// e flag (s/x/y/e: the result is run as a shell command), read loosely:
// any s followed by a delimiter, two fields and flags holding e.
func sedExecFlag(sc string) bool {
	for i := 0; i+1 < len(sc); i++ {
		if sc[i] != 's' {
			continue
		}
		d := sc[i+1]
		if d == '\\' || d == '\n' || d == ' ' || isLetter(d) || d >= '0' && d <= '9' {
			continue
		}
		j, fields := i+2, 0
		for ; j < len(sc) && fields < 2; j++ {
			switch sc[j] {
			case '\\':
				j++
			case d:
				fields++
			}
		}
		if fields < 2 {
			continue
		}
		for ; j < len(sc) && strings.IndexByte("gpiImMe0123456789", sc[j]) >= 0; j++ {
			if sc[j] == 'e' {
				return true
			}
		}
	}
	return false
}

// sedWrites are the files named by the w/W commands (and the w flag of
// s///) of a sed script.
func sedWrites(sc string) []string {
	var out []string
	for i := 0; i < len(sc); i++ {
		c := sc[i]
		if c != 'w' && c != 'W' || i+1 >= len(sc) || sc[i+1] != ' ' {
			continue
		}
		if i > 0 {
			switch p := sc[i-1]; {
			case p == ';' || p == '\n' || p == '{' || p == '}' || p == ' ' || p == '/' || p == '$' ||
				p >= '0' && p <= '9' || strings.IndexByte("gpiImMe", p) >= 0:
			default:
				continue
			}
		}
		rest := sc[i+2:]
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		if f := strings.TrimSpace(rest); f != "" && len(out) < maxFields {
			out = append(out, f)
		}
	}
	return out
}

// patch checks patch: the file operand, -o FILE, or the files a diff on
// stdin names.
func (s *shell) patch(args []string, in input) {
	c := s
	ops := scan("patch", args, func(opt, val string) {
		switch opt {
		case "o", "--output":
			s.write(val, "patch -o", true)
		case "d", "--directory":
			c = s.sub()
			c.cwd = cleanPath(joinPath(s.cwd, slashes(val)))
		}
	})
	if len(ops) > 0 {
		c.write(ops[0], "patch", true)
	} else if in.known {
		for _, p := range diffTargets(in.text) {
			c.write(p, "patch", true)
		}
	}
	if c != s {
		s.absorb(c)
	}
}

// curl checks the files curl writes: -o, --output-dir, -D, -c, --trace…;
// -O writes into the current directory.
func (s *shell) curl(args []string) {
	scan("curl", args, func(opt, val string) {
		switch opt {
		case "o", "--output", "--output-dir", "D", "--dump-header", "c", "--cookie-jar", "--trace",
			"--trace-ascii", "--libcurl", "--etag-save", "--stderr":
			s.write(val, "curl "+flagName(opt), true)
		case "O", "--remote-name", "--remote-name-all", "J", "--remote-header-name":
			s.write("curl-download", "curl -O", true)
		}
	})
}

// wget checks the files wget writes: -O, -P, -o/-a logs, else the
// current directory.
func (s *shell) wget(args []string) {
	explicit, spider := false, false
	scan("wget", args, func(opt, val string) {
		switch opt {
		case "O", "--output-document", "o", "--output-file", "a", "--append-output":
			s.write(val, "wget "+flagName(opt), true)
			if opt == "O" || opt == "--output-document" {
				explicit = true
			}
		case "P", "--directory-prefix":
			s.write(val, "wget -P", true)
			explicit = true
		case "--spider":
			spider = true
		}
	})
	if !explicit && !spider {
		s.write("wget-download", "wget", true)
	}
}

// tar checks tar: extraction writes into -C DIR (or the current
// directory), creation writes the -f archive.
func (s *shell) tar(args []string) {
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		args = append([]string{"-" + args[0]}, args[1:]...) // old style: tar xzf a.tgz
	}
	extract, create := false, false
	strip := 0
	var files, dirs []string
	members := scan("tar", args, func(opt, val string) {
		switch opt {
		case "x", "--extract", "--get":
			extract = true
		case "c", "r", "u", "A", "--create", "--append", "--update", "--concatenate", "--delete":
			create = true
		case "f", "--file":
			files = append(files, val)
		case "C", "--directory":
			dirs = append(dirs, val)
		case "--strip-components", "--strip":
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				strip = n
			}
		}
	})
	if extract {
		if len(dirs) == 0 {
			dirs = append(dirs, ".")
		}
		s.writeAll("tar -x", dirs, true)
		// The members named on the command line land in DIR/member
		// (tar xf backup.tar .matrixx/tasks).
		for _, m := range members[:min(len(members), maxFields)] {
			m = strings.TrimLeft(slashes(m), "/")
			for k := 0; k < strip && m != ""; k++ {
				_, m, _ = strings.Cut(m, "/")
			}
			if m == "" {
				continue
			}
			for _, d := range dirs[:min(len(dirs), maxFields)] {
				s.write(strings.TrimSuffix(d, "/")+"/"+m, "tar -x", true)
			}
		}
	}
	if create {
		s.writeAll("tar -c", files, true)
	}
}

// archive checks the archivers besides tar and unzip: cpio -i (into the
// current directory or -D DIR), cpio -p DIR, cpio -o -F/-O FILE; 7z x/e
// (into -oDIR or the current directory) and 7z a/u/d/rn (the archive);
// zip (the archive, and with -m the files it moves in); jar x (the
// current directory) and jar c/u with f (the archive); unrar/rar x/e
// (into the directory operand or the current directory).
func (s *shell) archive(name string, args []string) {
	switch name {
	case "cpio":
		mode, dir := byte(0), "."
		ops := scan(name, args, func(opt, val string) {
			switch opt {
			case "i", "--extract":
				mode = 'i'
			case "p", "--pass-through":
				mode = 'p'
			case "o", "--create":
				mode = 'o'
			case "D", "--directory":
				dir = val
			case "F", "O", "--file":
				if mode != 'i' {
					s.write(val, "cpio "+flagName(opt), true)
				}
			}
		})
		switch {
		case mode == 'i':
			s.write(dir, "cpio -i", true)
		case mode == 'p' && len(ops) > 0:
			s.write(ops[len(ops)-1], "cpio -p", true)
		}
	case "7z", "7za", "7zr", "7zz":
		var ops []string
		out := "."
		for _, a := range args {
			switch {
			case strings.HasPrefix(a, "-o"):
				out = a[2:]
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, a)
			}
		}
		if len(ops) == 0 {
			return
		}
		switch ops[0] {
		case "x", "e":
			s.write(out, name+" "+ops[0], true)
		case "a", "u", "d", "rn":
			if len(ops) > 1 {
				s.write(ops[1], name+" "+ops[0], true)
			}
		}
	case "zip":
		move, del := false, false
		ops := scan(name, args, func(opt, _ string) {
			switch opt {
			case "m", "--move":
				move = true
			case "d", "--delete":
				del = true
			}
		})
		if len(ops) == 0 {
			return
		}
		s.write(ops[0], "zip", true)
		if move && !del {
			s.writeAll("zip -m", ops[1:], true)
		}
	case "jar":
		if len(args) == 0 {
			return
		}
		mode := strings.TrimLeft(args[0], "-")
		switch {
		case strings.ContainsRune(mode, 'x'):
			s.write(".", "jar x", true)
		case strings.ContainsAny(mode, "cu") && strings.ContainsRune(mode, 'f') && len(args) > 1:
			s.write(args[1], "jar", true)
		}
	case "unrar", "rar":
		var ops []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) == 0 {
			return
		}
		switch ops[0] {
		case "x", "e":
			dir := "."
			if len(ops) > 2 && strings.HasSuffix(ops[len(ops)-1], "/") {
				dir = ops[len(ops)-1]
			}
			s.write(dir, name+" "+ops[0], true)
		case "a", "u", "d", "m":
			if len(ops) > 1 {
				s.write(ops[1], name+" "+ops[0], true)
			}
		}
	}
}

// formatter checks code formatters and linters that rewrite their
// operands in place: always (black, isort, rustfmt, mdformat, stylua)
// unless a check-only flag is given, or with their write flag or
// subcommand (prettier --write, gofmt -w, clang-format -i, eslint --fix,
// rubocop -a, ruff format, …).
func (s *shell) formatter(name string, args []string) {
	always := false
	switch name {
	case "black", "isort", "rustfmt", "mdformat", "stylua":
		always = true
	}
	write, check := false, false
	var ops []string
	for _, a := range args {
		switch a {
		case "--write", "-w", "--fix", "-i", "--in-place", "--apply", "--apply-unsafe":
			write = true
		case "-a", "-A", "--autocorrect", "--autocorrect-all", "-x":
			write = write || name == "rubocop"
		case "-b":
			write = write || name == "perltidy"
		case "format", "fmt":
			write = write || name == "ruff" || name == "dprint" || name == "taplo"
		case "--check", "--diff", "--check-only", "--dry-run":
			check = true
		default:
			if !strings.HasPrefix(a, "-") && a != "check" {
				ops = append(ops, a)
			}
		}
	}
	if (always && !check) || (write && !(check && name == "ruff")) {
		s.writeAll(name, ops, true)
	}
}

// flagName writes an option as typed: "o" → "-o", "--output" stays.
func flagName(opt string) string {
	if strings.HasPrefix(opt, "-") {
		return opt
	}
	return "-" + opt
}
