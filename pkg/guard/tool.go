package guard

import (
	"net/url"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// kind is what a tool call does with the paths it carries.
type kind uint8

const (
	kindNone  kind = iota // no opinion (search tools, our own tools, no paths)
	kindBash              // a shell command in Request.Command
	kindRead              // reads file contents
	kindWrite             // creates, changes, moves or deletes files
)

// IsPathField reports whether a tool_input field name carries a path. The
// comparison ignores case, "_", "-", "." and spaces, so filePath,
// file_path and file-path are one name. A name is a path field when it
//   - contains "path", "file", "folder" or "directory", or ends in "dir"
//     or "dirs" (file_path, relative_path, pathInProject, target_file,
//     files, workdir, output_dir, …),
//   - or is one of source(s), src, destination, dest, dst, target(s),
//     uri(s), location, output, cwd, root, project_root, workspace_root,
//     notebook;
//
// except names ending in a word that says the value is content or a
// property of the file, not where it is: text, content(s), data, body,
// bytes, base64, b64, type(s), size, mode, encoding, format, count,
// length, hash, checksum, id(s) (file_text, file_content, file_type, …).
// Names longer than 64 bytes are not path fields.
func IsPathField(name string) bool {
	var buf [maxFieldName]byte
	f, ok := foldFieldName(name, &buf)
	if !ok {
		return false
	}
	switch f {
	case "source", "sources", "src", "destination", "dest", "dst", "target", "targets", "uri", "uris",
		"location", "output", "cwd", "root", "projectroot", "workspaceroot", "notebook":
		return true
	}
	for _, suffix := range [...]string{"text", "content", "contents", "data", "body", "bytes", "base64",
		"b64", "type", "types", "size", "mode", "encoding", "format", "count", "length", "hash",
		"checksum", "id", "ids"} {
		if strings.HasSuffix(f, suffix) {
			return false
		}
	}
	return strings.Contains(f, "path") || strings.Contains(f, "file") || strings.Contains(f, "folder") ||
		strings.Contains(f, "directory") || strings.HasSuffix(f, "dir") || strings.HasSuffix(f, "dirs")
}

// LooseValue reports whether the string value of a field that is not a
// path field (IsPathField) must still be checked as a path: an MCP server
// may name its path field anything ("to", "ref", "targetUri", "newName").
// It is when the value mentions .matrixx (any case), holds no line break,
// is at most 4096 bytes, and either holds no blank or starts like a path
// ("/", "~", "./", "../", "C:", "file:"), is no URL of another scheme
// (https://…), and the field's name does not
// say it holds content or words (text, content, data, body, string,
// message, description, prompt, query, pattern, command, title, subject,
// comment, note, summary, and the endings IsPathField excludes).
func LooseValue(name, value string) bool {
	return LooseField(name) && looseText(value)
}

// LoosePaths are the paths into .matrixx that the string value of a
// field (a plain string or a string in a list) may name: the value
// itself when LooseValue says so, and the part before the first ':' or
// '=' of a "PATH:CONTENT" or "PATH=CONTENT" value (a list of
// ".matrixx/tasks/T-1.json:{…}" entries names the files a tool writes)
// when that part reads as a path into .matrixx. Nothing for a field
// whose name says it holds content or words.
func LoosePaths(name, value string) []string {
	if !LooseField(name) || !containsFold(value, "matrixx") {
		return nil
	}
	var out []string
	if looseText(value) {
		out = append(out, value)
	}
	if head := pathHead(value); head != "" && head != value && looseText(head) {
		out = append(out, head)
	}
	return out
}

// LooseKey reports whether an object key of a tool's input reads as a
// path into .matrixx: a map from file name to content ({"files":
// {".matrixx/tasks/T-1.json": "…"}}) names the files it writes, whatever
// the field holding it is called. The key of a "PATH:…" form counts by
// its head (LoosePaths).
func LooseKey(key string) []string {
	if !containsFold(key, "matrixx") {
		return nil
	}
	var out []string
	if looseText(key) {
		out = append(out, key)
	}
	if head := pathHead(key); head != "" && head != key && looseText(head) {
		out = append(out, head)
	}
	return out
}

// pathHead is the part of v before its first ':' or '=' (past a "file:"
// scheme and a drive letter "C:"), or "" when there is none.
func pathHead(v string) string {
	start := 0
	if len(v) >= 5 && strings.EqualFold(v[:5], "file:") {
		start = 5
	} else if len(v) >= 3 && isLetter(v[0]) && v[1] == ':' && (v[2] == '/' || v[2] == '\\') {
		start = 2
	}
	i := strings.IndexAny(v[start:], ":=")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(v[:start+i])
}

// looseText is LooseValue's test of the value alone.
func looseText(value string) bool {
	if len(value) > 4096 || !containsFold(value, "matrixx") || strings.ContainsAny(value, "\r\n") {
		return false
	}
	if i := strings.Index(value, "://"); i > 0 && !strings.EqualFold(value[:i], "file") {
		return false // a URL of another scheme names no local file (https://github.com/…/.matrixx/…)
	}
	if !strings.ContainsAny(value, " \t") {
		return true
	}
	v := value
	switch {
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "~"), strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"),
		strings.HasPrefix(v, `\`), strings.HasPrefix(v, `.\`), len(v) >= 5 && strings.EqualFold(v[:5], "file:"),
		len(v) >= 3 && isLetter(v[0]) && v[1] == ':' && (v[2] == '/' || v[2] == '\\'):
		return true
	}
	return false
}

// PatchField reports whether a field may carry a patch whose target files
// the tool writes (OpenCode's patch tool: patchText; apply_patch: input;
// a diff field): its name, folded, contains "patch" or "diff", or is
// "input".
func PatchField(name string) bool {
	var buf [maxFieldName]byte
	f, ok := foldFieldName(name, &buf)
	return ok && (strings.Contains(f, "patch") || strings.Contains(f, "diff") || f == "input")
}

// PatchTargets are the files a patch text changes: the paths of "***
// Add File:", "*** Update File:", "*** Delete File:" and "*** Move to:"
// lines (the apply_patch format) and of a unified diff's +++/--- lines;
// only those that mention matrixx are returned (the others cannot be in
// a store), at most 32.
func PatchTargets(text string) []string {
	if !containsFold(text, "matrixx") {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range [...]string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(line, h); ok && containsFold(p, "matrixx") && len(out) < maxFields {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	for _, p := range diffTargets(text) {
		if containsFold(p, "matrixx") && len(out) < maxFields {
			out = append(out, p)
		}
	}
	return out
}

// LooseField reports whether the string values of a field that is not a
// path field are looked at by LooseValue at all: not when its name says
// it holds content or words (the dispatcher then skips the value unread).
func LooseField(name string) bool {
	var buf [maxFieldName]byte
	f, ok := foldFieldName(name, &buf)
	if !ok {
		return false
	}
	for _, w := range [...]string{"text", "content", "contents", "data", "body", "bytes", "base64", "b64",
		"string", "message", "msg", "description", "desc", "prompt", "query", "pattern", "regex",
		"command", "cmd", "script", "code", "title", "subject", "comment", "note", "notes", "summary",
		"reason", "instructions", "search", "replace", "replacement", "diff", "patch", "markdown", "html"} {
		if strings.HasSuffix(f, w) || strings.HasPrefix(f, w) {
			return false
		}
	}
	return true
}

// cwdField reports whether a path field names the directory a tool works
// in (cwd, working_directory, workdir, root, …): relative paths of the
// other fields, and an MCP shell command, start there.
func cwdField(name string) bool {
	var buf [maxFieldName]byte
	f, ok := foldFieldName(name, &buf)
	if !ok {
		return false
	}
	switch f {
	case "cwd", "workingdirectory", "workingdir", "workdir", "workingpath", "root", "rootdir", "rootpath",
		"rootdirectory", "basedir", "basepath", "basedirectory", "projectroot", "projectdir",
		"projectpath", "projectdirectory", "workspaceroot", "workspacedir", "workspacepath",
		"workspacefolder", "currentdirectory", "currentdir":
		return true
	}
	return false
}

// toolCwd returns the value of a tool's cwd field (see cwdField), in a
// fixed order of preference.
func toolCwd(fields map[string][]string) (string, bool) {
	best, bestName := "", ""
	for f, vals := range fields {
		if len(vals) == 0 || vals[0] == "" || !cwdField(f) {
			continue
		}
		if bestName == "" || f < bestName {
			best, bestName = vals[0], f
		}
	}
	return best, bestName != ""
}

// toolKind classifies a tool by name. Claude Code's own tools are known by
// name; other tools (MCP tools "mcp__<server>__<tool>", other hosts'
// lower-case tools) are classified by the words in their name: write words
// (write, edit, create, move, delete, …) first, then listing and search
// words (no opinion), then read words; a name with none of them is treated
// as a write, so an unknown tool can never change a store.
func toolKind(name string, hasCommand bool) kind {
	switch name {
	case "Bash", "bash":
		return kindBash
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return kindWrite
	case "Read":
		return kindRead
	case "Glob", "Grep", "LS":
		return kindNone
	}
	t := name
	mcp := strings.HasPrefix(name, "mcp__")
	if ownServer(name) {
		return kindNone
	}
	if mcp {
		if i := strings.LastIndex(name, "__"); i > len("mcp_") {
			t = name[i+2:]
		}
	}
	if ownTool(strings.ToLower(t)) {
		return kindNone
	}
	if mcp && hasCommand && hasWord(t, "bash", "shell", "command", "cmd", "exec", "terminal", "run", "process", "script") {
		return kindBash
	}
	switch {
	case hasWord(t, "write", "edit", "create", "move", "rename", "delete", "remove", "update",
		"patch", "append", "put", "copy", "mkdir", "touch", "save", "upload", "chmod",
		"replace", "insert", "apply", "truncate", "unlink", "rm", "mv", "cp", "set", "modify", "download"):
		return kindWrite
	case hasWord(t, "list", "search", "find", "glob", "grep", "tree", "stat", "info", "ls", "exists", "allowed"):
		return kindNone
	case hasWord(t, "read", "get", "cat", "head", "tail", "view", "show", "open", "fetch", "load", "media", "preview"):
		return kindRead
	}
	return kindWrite
}

// hasWord reports whether the tool name t contains one of words (lower
// case) at the start of a word: at the start of t, after "_", "-", "." or
// " ", or at an upper-case letter ("NotebookRead", "read_file"). A longer
// word counts too ("writes", "reading").
func hasWord(t string, words ...string) bool {
	for j := 0; j < len(t); j++ {
		c := t[j]
		if j > 0 && !(c >= 'A' && c <= 'Z') {
			switch t[j-1] {
			case '_', '-', '.', ' ':
			default:
				continue
			}
		}
		for _, w := range words {
			if len(t)-j >= len(w) && strings.EqualFold(t[j:j+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// ownServer reports whether name is a tool of our own MCP server
// (matrixx-mcp, registered as server "matrixx": mcp__matrixx__<tool>, or
// through the matrixx Claude Code plugin: mcp__plugin_matrixx_matrixx__<tool>): its
// tools change the stores only through the same code as the binaries.
func ownServer(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return false
	}
	server, tool, ok := strings.Cut(rest, "__")
	return ok && tool != "" && (strings.EqualFold(server, "matrixx") || strings.EqualFold(server, "plugin_matrixx_matrixx"))
}

// ownTool reports whether t is one of our task or plan tools (served over
// MCP under any server name; the command table's tools): they are the
// sanctioned way in.
func ownTool(t string) bool {
	return commands.OwnTool(strings.ReplaceAll(t, "-", "_"))
}

// tool decides a file tool call: every path value is located (relative
// ones against the tool's own cwd field when it has one); a write to any
// store, or a read of a plan, is denied. With skipCwd (a shell tool) the
// cwd fields themselves are not checked.
func (e *env) tool(req Request, k kind, skipCwd bool) Decision {
	if len(req.Paths) == 0 {
		return Decision{}
	}
	read := k == kindRead
	base := e.cwd
	if c, ok := toolCwd(req.Paths); ok {
		base = cleanPath(joinPath(e.cwd, slashes(e.tildePath(c))))
	}
	fields := make([]string, 0, len(req.Paths))
	for f := range req.Paths {
		if !(skipCwd && cwdField(f)) {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	for _, f := range fields {
		dir := base
		if cwdField(f) {
			dir = e.cwd
		}
		for _, v := range req.Paths[f] {
			loc := e.locate(dir, v, false)
			if !guarded(loc.st, read) && strings.IndexByte(v, '%') >= 0 {
				// A server that URL-decodes its paths: %2Ematrixx.
				if u, err := url.PathUnescape(v); err == nil && u != v {
					loc = e.locate(dir, u, false)
				}
			}
			if guarded(loc.st, read) {
				rule := "tool:" + req.Tool
				return deny(toolReason(req.Tool, loc.st, v, loc.resolved, read), rule)
			}
			if !read && e.leased != nil && !(skipCwd && cwdField(f)) {
				if why := e.leaseHit(cleanPath(joinPath(dir, slashes(e.tildePath(v)))), false); why != "" {
					return deny(leaseReason(req.Tool, v, why), "lease:"+req.Tool)
				}
			}
		}
	}
	return Decision{}
}

// maxFieldName is the longest field name (bytes, after folding) that
// IsPathField and cwdField consider.
const maxFieldName = 64

// foldFieldName lower-cases an ASCII field name and drops '_', '-', '.'
// and spaces (file_path, filePath and File-Path fold alike) into buf;
// ok is false when the folded name is longer than buf.
func foldFieldName(name string, buf *[maxFieldName]byte) (folded string, ok bool) {
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(buf) {
			return "", false
		}
		buf[n] = c
		n++
	}
	return string(buf[:n]), true
}
