package guard

import (
	"slices"
	"strings"
)

// kind is what a tool call does with the paths it carries.
type kind uint8

const (
	kindNone  kind = iota // no opinion (search tools, our own tools, no paths)
	kindBash              // a shell command in Request.Command
	kindRead              // reads file contents
	kindWrite             // creates, changes, moves or deletes files
)

// IsPathField reports whether a tool_input field name carries a path
// (file_path, notebook_path, path, paths, source, destination, …). The
// comparison ignores case, "_" and "-", so filePath, file_path and
// file-path are one name. Fields whose value is content (content,
// new_string, command, …) are never path fields.
func IsPathField(name string) bool {
	var buf [32]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(buf) {
			return false
		}
		buf[n] = c
		n++
	}
	switch string(buf[:n]) {
	case "path", "paths", "filepath", "filepaths", "file", "files", "filename", "filenames",
		"notebookpath", "notebook",
		"source", "sources", "sourcepath", "src", "srcpath",
		"destination", "destinationpath", "dest", "destpath", "dst",
		"target", "targetpath", "targetfile",
		"dir", "dirpath", "directory", "directorypath", "folder", "folderpath",
		"oldpath", "newpath", "frompath", "topath",
		"output", "outputpath", "outputfile", "outfile", "inputpath", "inputfile",
		"uri", "fileuri", "location":
		return true
	}
	return false
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
	if mcp {
		if i := strings.LastIndex(name, "__"); i > len("mcp_") {
			t = name[i+2:]
		}
	}
	if ownTool(strings.ToLower(t)) {
		return kindNone
	}
	if mcp && hasCommand && hasWord(t, "bash", "shell", "command", "exec", "terminal", "run") {
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

// ownTool reports whether t is one of our task or plan tools (served over
// MCP under any server name): they are the sanctioned way in.
func ownTool(t string) bool {
	switch strings.ReplaceAll(t, "-", "_") {
	case "task_create", "task_get", "task_list", "task_update", "task_cleanup",
		"plan_create", "plan_read", "plan_update", "plan_list", "plan_delete", "plan_tasks":
		return true
	}
	return false
}

// tool decides a file tool call: every path value is located; a write to
// any store, or a read of a plan, is denied.
func (e *env) tool(req Request, k kind) Decision {
	if len(req.Paths) == 0 {
		return Decision{}
	}
	read := k == kindRead
	fields := make([]string, 0, len(req.Paths))
	for f := range req.Paths {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		for _, v := range req.Paths[f] {
			loc := e.locate(e.cwd, v)
			if guarded(loc.st, read) {
				rule := "tool:" + req.Tool
				return deny(toolReason(req.Tool, loc.st, v, loc.resolved, read), rule)
			}
		}
	}
	return Decision{}
}
