package hook

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// The hook events of Claude Code that matrixx-hook answers.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
)

// Event is the part of one host event the hooks use. Decoding keeps only
// these fields; everything else (a Write's content, an Edit's strings,
// fields newer hosts add) is skipped while streaming.
//
// Common fields: session_id, transcript_path, cwd, hook_event_name. Tool
// events add tool_name, tool_input, tool_use_id and (PostToolUse)
// tool_response; Stop and SubagentStop add stop_hook_active and
// background_tasks; SubagentStop adds agent_id and agent_type;
// SessionStart adds source.
type Event struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	Name           string // hook_event_name
	Tool           string // tool_name
	ToolUseID      string
	Source         string // SessionStart: startup|resume|clear|compact|fork
	AgentID        string
	AgentType      string
	StopHookActive bool
	// LastMessage is last_assistant_message (Stop, SubagentStop).
	LastMessage string
	// Background counts background_tasks entries still running: objects
	// whose status is absent or a string that is not a finished state;
	// malformed entries do not count (see background).
	Background int
	// Input is what the hooks need of tool_input.
	Input ToolInput
	// Response is what the hooks need of tool_response.
	Response ToolResponse
	// Problems lists fields that had an unexpected type; they were ignored.
	Problems []string

	// TurnID is Codex CLI's turn_id; HasTimestamp is set when the event
	// has a "timestamp" member (Gemini CLI's events do); Prompt is the
	// prompt of Gemini CLI's AfterAgent (the user turn being answered).
	TurnID       string
	HasTimestamp bool
	Prompt       string
	// Host is the host the event came from (set by normalise); HostName
	// and HostTool keep the host's own event and tool names where
	// normalise mapped them onto Claude Code's.
	Host               Host
	HostName, HostTool string
}

// ToolInput is the useful part of tool_input: Bash's command and every
// path-like string field (guard.IsPathField) at any depth.
type ToolInput struct {
	// Command is the top-level command string; for tools without one (MCP
	// tools that run commands), the top-level cmd or script string.
	Command string
	// Argv is a top-level command or cmd given as an array of strings;
	// Args the strings of a top-level args, arguments or argv array (MCP
	// tools that take a program and its arguments).
	Argv, Args []string
	Paths      map[string][]string
	// Truncated is set when values were left out: path values past
	// maxPaths, or objects and arrays nested deeper than maxDepth.
	Truncated bool
	// Present is set when tool_input was an object.
	Present bool
}

// ToolResponse is the useful part of tool_response: Bash's stdout, or the
// text of an MCP tool's answer (a string, or the text of each
// {"type":"text","text":…} block).
type ToolResponse struct {
	Stdout string
	Text   []string
	// Display and LLM are Gemini CLI's returnDisplay and llmContent when
	// they are strings.
	Display, LLM string
}

// maxDepth bounds the nesting the decoder follows inside tool_input; deeper
// values are skipped.
const maxDepth = 32

// maxPaths bounds the number of path values collected from one event.
const maxPaths = 4096

// finishedStatus are background_tasks statuses that mean "not running".
var finishedStatus = map[string]bool{
	"completed": true, "complete": true, "done": true, "finished": true,
	"failed": true, "error": true, "errored": true, "killed": true,
	"cancelled": true, "canceled": true, "stopped": true, "exited": true,
}

// decoder streams one event.
type decoder struct {
	dec *jsontext.Decoder
	ev  *Event
	// values counts the path and argument values collected (at most
	// maxPaths); cmdRank ranks where Command came from (command over cmd
	// over script).
	values  int
	cmdRank int
}

// Decode reads one event object from r, streaming: large values are skipped
// without being held. Fields of unexpected types are ignored and listed in
// ev.Problems. On a syntax error or a read error it returns what was decoded
// so far together with the error.
func Decode(r io.Reader) (*Event, error) {
	// A UTF-8 byte-order mark before the object is dropped: the event is
	// decided as it would be without it.
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); string(b) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
	}
	r = br
	ev := &Event{}
	d := &decoder{
		dec: jsontext.NewDecoder(r,
			jsontext.AllowDuplicateNames(true),
			jsontext.AllowInvalidUTF8(true),
		),
		ev: ev,
	}
	return ev, d.event()
}

func (d *decoder) event() error {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("the event is %s, not a JSON object", input.KindName(tok.Kind()))
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.name()
		if err != nil {
			return err
		}
		if err := d.member(name); err != nil {
			return err
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	return nil
}

func (d *decoder) name() (string, error) {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return "", err
	}
	return tok.String(), nil
}

func (d *decoder) member(name string) error {
	ev := d.ev
	switch name {
	case "session_id":
		return d.str(name, &ev.SessionID)
	case "transcript_path":
		return d.str(name, &ev.TranscriptPath)
	case "cwd":
		return d.str(name, &ev.Cwd)
	case "hook_event_name":
		return d.str(name, &ev.Name)
	case "tool_name":
		return d.str(name, &ev.Tool)
	case "tool_use_id":
		return d.str(name, &ev.ToolUseID)
	case "source":
		return d.str(name, &ev.Source)
	case "agent_id":
		return d.str(name, &ev.AgentID)
	case "agent_type":
		return d.str(name, &ev.AgentType)
	case "last_assistant_message":
		return d.str(name, &ev.LastMessage)
	case "turn_id":
		return d.str(name, &ev.TurnID)
	case "prompt":
		return d.str(name, &ev.Prompt)
	case "timestamp":
		ev.HasTimestamp = true
		return d.dec.SkipValue()
	case "stop_hook_active":
		if k := d.dec.PeekKind(); k != 't' && k != 'f' {
			return d.skip(name, "a boolean")
		}
		tok, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		ev.StopHookActive = tok.Bool()
		return nil
	case "background_tasks":
		return d.background()
	case "tool_input":
		if d.dec.PeekKind() != '{' {
			return d.skip(name, "an object")
		}
		ev.Input.Present = true
		return d.input(0, "")
	case "tool_response":
		return d.response()
	}
	return d.dec.SkipValue()
}

// str reads a string member into p, or skips a value of another type.
func (d *decoder) str(name string, p *string) error {
	if d.dec.PeekKind() != '"' {
		return d.skip(name, "a string")
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	*p = tok.String()
	return nil
}

// skip skips a value of the wrong type and notes the problem.
func (d *decoder) skip(name, want string) error {
	k := d.dec.PeekKind()
	if k == 0 {
		_, err := d.dec.ReadToken() // surfaces the syntax or read error
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if k != 'n' {
		d.ev.Problems = append(d.ev.Problems, fmt.Sprintf("%s is %s, not %s (ignored)", name, input.KindName(k), want))
	}
	return d.dec.SkipValue()
}

// background counts running entries of background_tasks: an entry
// counts only when it is an object whose "status" is absent or a string
// that is not a finished state (finishedStatus, any case). Anything else —
// null, a bare string or number, an object whose status is not a string —
// is malformed: it does not count and is noted in Problems, so a host bug
// can never keep an agent from being held to its tasks.
func (d *decoder) background() error {
	if d.dec.PeekKind() != '[' {
		return d.skip("background_tasks", "an array")
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; d.dec.PeekKind() != ']'; i++ {
		if k := d.dec.PeekKind(); k != '{' {
			if k == 0 {
				return d.skip("background_tasks", "an array")
			}
			d.ev.Problems = append(d.ev.Problems, fmt.Sprintf("background_tasks[%d] is %s, not an object (not counted)", i, input.KindName(k)))
			if err := d.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		status, ok := "", true
		for d.dec.PeekKind() != '}' {
			name, err := d.name()
			if err != nil {
				return err
			}
			if name != "status" {
				if err := d.dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if k := d.dec.PeekKind(); k != '"' {
				ok = false
				d.ev.Problems = append(d.ev.Problems, fmt.Sprintf("background_tasks[%d].status is %s, not a string (not counted)", i, input.KindName(k)))
				if err := d.dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			tok, err := d.dec.ReadToken()
			if err != nil {
				return err
			}
			status = strings.ToLower(strings.TrimSpace(tok.String()))
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		if ok && !finishedStatus[status] {
			d.ev.Background++
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

// input walks a tool_input object (or a nested value): the top-level
// command, and every path-like field at any depth (strings, or arrays of
// strings). Everything else is skipped unread.
func (d *decoder) input(depth int, field string) error {
	switch k := d.dec.PeekKind(); {
	case k == '{':
		if depth >= maxDepth {
			d.ev.Input.Truncated = true
			return d.dec.SkipValue()
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		for d.dec.PeekKind() != '}' {
			name, err := d.name()
			if err != nil {
				return err
			}
			// A key that names a path into .matrixx (a map from file
			// name to content) is a path of the call.
			for _, p := range guard.LooseKey(name) {
				d.addPath("key", p)
			}
			switch {
			case depth == 0 && commandRank(name) > 0 && d.dec.PeekKind() == '"':
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				if r := commandRank(name); r >= d.cmdRank {
					d.ev.Input.Command, d.cmdRank = tok.String(), r
				}
			case depth == 0 && (name == "command" || name == "cmd") && d.dec.PeekKind() == '[':
				if err := d.stringArray(&d.ev.Input.Argv); err != nil {
					return err
				}
			case depth == 0 && (name == "args" || name == "arguments" || name == "argv") && d.dec.PeekKind() == '[':
				if err := d.stringArray(&d.ev.Input.Args); err != nil {
					return err
				}
			case guard.IsPathField(name):
				if err := d.pathValue(name); err != nil {
					return err
				}
			case d.dec.PeekKind() == '"' && guard.PatchField(name):
				// A patch: the files it changes are paths of the call.
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				for _, p := range guard.PatchTargets(tok.String()) {
					d.addPath(name, p)
				}
			case d.dec.PeekKind() == '"' && guard.LooseField(name):
				// Any other string that reads as a path into .matrixx
				// is checked too (guard.LooseValue).
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				for _, p := range guard.LoosePaths(name, tok.String()) {
					d.addPath(name, p)
				}
			default:
				if k := d.dec.PeekKind(); k == '{' || k == '[' {
					if err := d.input(depth+1, name); err != nil {
						return err
					}
					continue
				}
				if err := d.dec.SkipValue(); err != nil {
					return err
				}
			}
		}
		_, err := d.dec.ReadToken()
		return err
	case k == '[':
		if depth >= maxDepth {
			d.ev.Input.Truncated = true
			return d.dec.SkipValue()
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		for d.dec.PeekKind() != ']' {
			if k := d.dec.PeekKind(); k == '{' || k == '[' {
				if err := d.input(depth+1, field); err != nil {
					return err
				}
				continue
			}
			if d.dec.PeekKind() == '"' && guard.LooseField(field) {
				// A string in a list ("PATH:CONTENT" entries, bare paths)
				// is looked at like a string field.
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				for _, p := range guard.LoosePaths(field, tok.String()) {
					d.addPath(field, p)
				}
				continue
			}
			if err := d.dec.SkipValue(); err != nil {
				return err
			}
		}
		_, err := d.dec.ReadToken()
		return err
	default:
		return d.dec.SkipValue()
	}
}

// pathValue collects a path field's string value, or the strings of an
// array value.
func (d *decoder) pathValue(name string) error {
	add := func(s string) { d.addPath(name, s) }
	switch d.dec.PeekKind() {
	case '"':
		tok, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		add(tok.String())
		return nil
	case '[':
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		for d.dec.PeekKind() != ']' {
			if d.dec.PeekKind() == '"' {
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				add(tok.String())
				continue
			}
			if err := d.input(1, name); err != nil {
				return err
			}
		}
		_, err := d.dec.ReadToken()
		return err
	case '{':
		return d.input(1, name)
	}
	return d.dec.SkipValue()
}

// addPath collects one path value (at most maxPaths in all).
func (d *decoder) addPath(name, s string) {
	if d.ev.Input.Paths == nil {
		d.ev.Input.Paths = map[string][]string{}
	}
	if d.values >= maxPaths {
		d.ev.Input.Truncated = true
		return
	}
	d.values++
	d.ev.Input.Paths[name] = append(d.ev.Input.Paths[name], s)
}

// commandRank ranks the top-level fields that carry a shell command:
// command, then cmd, then script; 0 for other fields.
func commandRank(name string) int {
	switch name {
	case "command":
		return 3
	case "cmd":
		return 2
	case "script":
		return 1
	}
	return 0
}

// stringArray collects the string elements of an array into dst (other
// elements are walked for path fields), counting them against maxPaths.
func (d *decoder) stringArray(dst *[]string) error {
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != ']' {
		switch d.dec.PeekKind() {
		case '"':
			tok, err := d.dec.ReadToken()
			if err != nil {
				return err
			}
			if d.values >= maxPaths {
				d.ev.Input.Truncated = true
				continue
			}
			d.values++
			*dst = append(*dst, tok.String())
		case '{', '[':
			if err := d.input(1, ""); err != nil {
				return err
			}
		default:
			if err := d.dec.SkipValue(); err != nil {
				return err
			}
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

// response reads tool_response: a string, an array of text blocks, or an
// object with stdout (Bash) or content (an array of text blocks).
func (d *decoder) response() error {
	switch d.dec.PeekKind() {
	case '"':
		tok, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		d.ev.Response.Text = append(d.ev.Response.Text, tok.String())
		return nil
	case '[':
		return d.blocks()
	case '{':
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		for d.dec.PeekKind() != '}' {
			name, err := d.name()
			if err != nil {
				return err
			}
			switch {
			case name == "stdout" && d.dec.PeekKind() == '"':
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				d.ev.Response.Stdout = tok.String()
			case name == "content" && d.dec.PeekKind() == '[':
				if err := d.blocks(); err != nil {
					return err
				}
			case (name == "returnDisplay" || name == "llmContent") && d.dec.PeekKind() == '"':
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				if name == "returnDisplay" {
					d.ev.Response.Display = tok.String()
				} else {
					d.ev.Response.LLM = tok.String()
				}
			default:
				if err := d.dec.SkipValue(); err != nil {
					return err
				}
			}
		}
		_, err := d.dec.ReadToken()
		return err
	}
	return d.dec.SkipValue()
}

// blocks reads an array of {"type":"text","text":…} blocks; other elements
// are skipped.
func (d *decoder) blocks() error {
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != ']' {
		if d.dec.PeekKind() == '"' {
			tok, err := d.dec.ReadToken()
			if err != nil {
				return err
			}
			d.ev.Response.Text = append(d.ev.Response.Text, tok.String())
			continue
		}
		if d.dec.PeekKind() != '{' {
			if d.dec.PeekKind() == 0 {
				_, err := d.dec.ReadToken()
				return err
			}
			if err := d.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		typ, text, hasText := "", "", false
		for d.dec.PeekKind() != '}' {
			name, err := d.name()
			if err != nil {
				return err
			}
			if (name == "type" || name == "text") && d.dec.PeekKind() == '"' {
				tok, err := d.dec.ReadToken()
				if err != nil {
					return err
				}
				if name == "type" {
					typ = tok.String()
				} else {
					text, hasText = tok.String(), true
				}
				continue
			}
			if err := d.dec.SkipValue(); err != nil {
				return err
			}
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
		if hasText && (typ == "text" || typ == "") {
			d.ev.Response.Text = append(d.ev.Response.Text, text)
		}
	}
	_, err := d.dec.ReadToken()
	return err
}
