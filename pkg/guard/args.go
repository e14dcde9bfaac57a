package guard

import (
	"strings"
)

// scan walks the arguments of cmd GNU style (options may follow operands,
// "--" ends them), calls opt (when not nil) for every option with its
// value, and returns the operands. Short options are named by their
// letter ("t"), long ones with their dashes ("--target-directory");
// valued says which take a value. An option not known to take a value is
// a flag: guessing wrong that way can only turn a value into an operand,
// which is checked like any operand, never hide an operand.
func scan(cmd string, args []string, opt func(name, val string)) []string {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(ops, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			ops = append(ops, a)
			continue
		}
		if a[1] == '-' {
			name, val, has := strings.Cut(a, "=")
			if !has && valued(cmd, name) && i+1 < len(args) {
				i++
				val = args[i]
			}
			if opt != nil {
				opt(name, val)
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			name := a[j : j+1]
			if valued(cmd, name) {
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				if opt != nil {
					opt(name, val)
				}
				break
			}
			if opt != nil {
				opt(name, "")
			}
		}
	}
	return ops
}

// valued reports whether option name of cmd takes a value.
func valued(cmd, name string) bool {
	switch cmd {
	case "cp", "mv", "ln", "install":
		switch name {
		case "t", "S", "m", "o", "g", "--target-directory", "--suffix", "--mode", "--owner", "--group":
			return true
		}
	case "touch":
		switch name {
		case "r", "d", "t", "--reference", "--date":
			return true
		}
	case "truncate":
		switch name {
		case "s", "r", "--size", "--reference":
			return true
		}
	case "chmod", "chown", "chgrp":
		switch name {
		case "--reference", "--from":
			return true
		}
	case "mkdir", "mkfifo", "mknod":
		switch name {
		case "m", "--mode":
			return true
		}
	case "shred":
		switch name {
		case "n", "s", "--iterations", "--size", "--random-source":
			return true
		}
	case "setfacl":
		switch name {
		case "m", "x", "M", "X", "--modify", "--remove", "--set", "--set-file", "--modify-file", "--remove-file":
			return true
		}
	case "setfattr":
		switch name {
		case "n", "v", "x", "--name", "--value", "--remove", "--restore":
			return true
		}
	case "sed":
		switch name {
		case "e", "f", "l", "--expression", "--file", "--line-length":
			return true
		}
	case "sort":
		switch name {
		case "k", "t", "o", "S", "T", "--key", "--field-separator", "--output", "--buffer-size",
			"--temporary-directory", "--parallel", "--files0-from", "--compress-program", "--sort",
			"--random-source", "--batch-size":
			return true
		}
	case "uniq":
		switch name {
		case "f", "s", "w", "--skip-fields", "--skip-chars", "--check-chars":
			return true
		}
	case "split":
		switch name {
		case "l", "b", "C", "n", "a", "t", "--lines", "--bytes", "--line-bytes", "--number",
			"--suffix-length", "--additional-suffix", "--separator", "--filter":
			return true
		}
	case "csplit":
		switch name {
		case "f", "b", "n", "--prefix", "--suffix-format", "--digits":
			return true
		}
	case "patch":
		switch name {
		case "p", "i", "o", "d", "D", "B", "F", "r", "V", "Y", "z", "--strip", "--input", "--output",
			"--directory", "--ifdef", "--prefix", "--fuzz", "--reject-file", "--version-control",
			"--basename-prefix", "--suffix":
			return true
		}
	case "rsync":
		switch name {
		case "e", "f", "T", "B", "M", "--rsh", "--filter", "--exclude", "--include", "--exclude-from",
			"--include-from", "--files-from", "--temp-dir", "--backup-dir", "--suffix", "--chmod",
			"--log-file", "--partial-dir", "--compare-dest", "--copy-dest", "--link-dest",
			"--block-size", "--timeout", "--contimeout", "--port", "--password-file", "--remote-option",
			"--max-size", "--min-size", "--max-delete", "--bwlimit", "--out-format", "--log-file-format",
			"--info", "--debug", "--usermap", "--groupmap", "--chown", "--iconv", "--rsync-path",
			"--sockopts", "--outbuf", "--stop-after", "--stop-at", "--modify-window", "--checksum-choice",
			"--compress-choice", "--compress-level", "--skip-compress", "--write-batch",
			"--only-write-batch", "--read-batch", "--protocol", "--address":
			return true
		}
	case "scp":
		switch name {
		case "P", "i", "o", "F", "l", "c", "S", "J", "D", "X":
			return true
		}
	case "curl":
		switch name {
		case "o", "D", "c", "d", "H", "X", "u", "A", "e", "F", "T", "b", "K", "m", "w", "x", "r", "E",
			"U", "y", "Y", "z", "C", "Q", "t", "--output", "--output-dir", "--dump-header",
			"--cookie-jar", "--trace", "--trace-ascii", "--libcurl", "--etag-save", "--stderr",
			"--data", "--data-raw", "--data-binary", "--data-urlencode", "--header", "--request",
			"--user", "--user-agent", "--referer", "--form", "--upload-file", "--cookie", "--config",
			"--max-time", "--write-out", "--proxy", "--range", "--cert", "--connect-timeout",
			"--retry", "--url", "--json", "--resolve", "--cacert", "--key":
			return true
		}
	case "wget":
		switch name {
		case "O", "P", "o", "a", "t", "T", "w", "U", "e", "B", "i", "l", "A", "R", "D", "X", "I", "Q",
			"--output-document", "--directory-prefix", "--output-file", "--append-output", "--tries",
			"--timeout", "--wait", "--user-agent", "--execute", "--base", "--input-file", "--user",
			"--password", "--header", "--post-data", "--post-file", "--load-cookies", "--save-cookies",
			"--level", "--accept", "--reject", "--domains", "--exclude-directories",
			"--include-directories", "--quota":
			return true
		}
	case "tar":
		switch name {
		case "f", "C", "T", "X", "b", "H", "I", "K", "N", "V", "g", "L", "--file", "--directory",
			"--files-from", "--exclude-from", "--exclude", "--use-compress-program", "--to-command",
			"--transform", "--owner", "--group", "--mode", "--mtime", "--newer", "--format", "--label",
			"--tape-length", "--blocking-factor", "--record-size", "--listed-incremental",
			"--info-script", "--checkpoint-action", "--rsh-command", "--volno-file", "--index-file",
			"--strip-components", "--strip":
			return true
		}
	case "unzip":
		switch name {
		case "d", "P":
			return true
		}
	case "cpio":
		switch name {
		case "D", "F", "O", "I", "E", "H", "R", "M", "C", "--directory", "--file", "--format",
			"--pattern-file", "--owner", "--message", "--io-size", "--rsh-command":
			return true
		}
	case "zip":
		switch name {
		case "b", "n", "t", "tt", "x", "i", "P", "Z", "--temp-path", "--suffixes", "--exclude",
			"--include", "--password", "--compression-method":
			return true
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd",
		"lz4", "pigz", "brotli", "compress", "uncompress":
		switch name {
		case "S", "o", "--suffix", "--output":
			return true
		}
	case "mktemp":
		switch name {
		case "p", "--suffix":
			return true
		}
	case "iconv":
		switch name {
		case "f", "t", "o", "--from-code", "--to-code", "--output":
			return true
		}
	case "pandoc":
		switch name {
		case "o", "f", "t", "r", "w", "M", "V", "F", "c", "H", "B", "A", "--output", "--from", "--to",
			"--read", "--write", "--template", "--metadata", "--variable", "--data-dir",
			"--resource-path", "--lua-filter", "--filter", "--css", "--reference-doc",
			"--include-in-header", "--include-before-body", "--include-after-body", "--bibliography",
			"--csl", "--highlight-style", "--pdf-engine", "--log":
			return true
		}
	case "yq":
		switch name {
		case "o", "p", "I", "--output-format", "--input-format", "--indent":
			return true
		}
	case "sd":
		switch name {
		case "f", "n", "--flags", "--max-replacements":
			return true
		}
	case "vi", "vim", "nvim", "ex", "view", "gvim":
		switch name {
		case "c", "S", "u", "U", "i", "T", "w", "W", "s", "t", "q", "--cmd":
			return true
		}
	case "time":
		switch name {
		case "f", "o", "--format", "--output":
			return true
		}
	case "strace", "ltrace":
		switch name {
		case "o", "e", "p", "s", "u", "E", "a", "b", "I", "O", "S", "X", "P":
			return true
		}
	case "read":
		switch name {
		case "a", "d", "i", "n", "N", "p", "t", "u":
			return true
		}
	case "mapfile", "readarray":
		switch name {
		case "d", "n", "O", "s", "u", "C", "c":
			return true
		}
	case "git-checkout":
		switch name {
		case "b", "B", "--orphan", "--conflict", "--pathspec-from-file":
			return true
		}
	case "git-restore":
		switch name {
		case "s", "--source", "--pathspec-from-file":
			return true
		}
	case "git-clean":
		switch name {
		case "e", "--exclude":
			return true
		}
	case "ls":
		switch name {
		case "I", "w", "T", "--ignore", "--hide", "--width", "--tabsize", "--block-size", "--format",
			"--sort", "--time", "--time-style", "--quoting-style", "--indicator-style":
			return true
		}
	case "git-worktree":
		switch name {
		case "b", "B", "--reason":
			return true
		}
	case "git-clone":
		switch name {
		case "b", "o", "c", "u", "j", "--branch", "--origin", "--config", "--upload-pack", "--depth",
			"--reference", "--reference-if-able", "--separate-git-dir", "--shallow-since",
			"--shallow-exclude", "--template", "--jobs", "--filter", "--server-option", "--bundle-uri":
			return true
		}
	case "git-init":
		switch name {
		case "b", "--initial-branch", "--template", "--separate-git-dir", "--object-format", "--shared":
			return true
		}
	case "git-submodule":
		switch name {
		case "b", "--branch", "--name", "--reference", "--depth":
			return true
		}
	case "git-archive", "git-format-patch", "git-diff", "git-bundle":
		switch name {
		case "o", "--output", "--output-directory", "--format", "--prefix", "--remote", "--exec":
			return true
		}
	case "git-stash":
		switch name {
		case "m", "--message", "--pathspec-from-file":
			return true
		}
	case "git-apply":
		switch name {
		case "p", "C", "--directory", "--exclude", "--include", "--whitespace", "--build-fake-ancestor":
			return true
		}
	}
	return false
}
