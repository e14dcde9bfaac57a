package task

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DecodeListRecord is DecodeRecord for readers that need only a task's
// list fields: id, subject, status, blocks, blockedBy, owner, parentID,
// threadID, priority and, of metadata, only the member named keepMeta
// (task-list's claim; blocks is task-doctor's). Every other member is checked exactly as DecodeRecord checks it
// (same strict options: unknown, duplicate and wrong-case keys refused,
// raw invalid UTF-8 refused, types checked) but not kept, so a scan of a
// large store allocates a fraction of the memory. A record it does not
// accept is decoded again by DecodeRecord, so the error (and any record
// DecodeRecord accepts) is exactly DecodeRecord's.
func DecodeListRecord(data []byte, keepMeta string) (*Task, error) {
	if t, ok := decodeList(data, keepMeta); ok {
		return t, nil
	}
	return DecodeRecord(data)
}

// listRecord mirrors Task's JSON members; the ones a list never prints
// are checked and dropped.
type listRecord struct {
	ID          string     `json:"id"`
	Subject     string     `json:"subject"`
	Description skipString `json:"description"`
	Status      Status     `json:"status"`
	ActiveForm  skipString `json:"activeForm,omitempty"`
	Blocks      keptList   `json:"blocks"`
	BlockedBy   []string   `json:"blockedBy"`
	Owner       string     `json:"owner,omitempty"`
	Priority    Priority   `json:"priority,omitempty"`
	Metadata    keptMeta   `json:"metadata,omitempty"`
	RepoURL     skipString `json:"repoURL,omitempty"`
	ParentID    string     `json:"parentID,omitempty"`
	ThreadID    string     `json:"threadID,omitempty"`
	ProjectRoot skipString `json:"projectRoot,omitempty"`
}

var errSlow = errors.New("not for the fast path")

// skipString is a JSON string (or null), validated and dropped. present
// records that the member was there (description is required).
type skipString struct{ present bool }

func (s *skipString) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"', 'n':
		s.present = true
		return dec.SkipValue()
	}
	return errSlow
}

// keptList is a JSON array of strings (or nulls, kept as ""), or null
// (kept as nil), as DecodeRecord decodes a []string.
type keptList struct{ list []string }

func (k *keptList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		k.list = nil
		return dec.SkipValue()
	case '[':
	default:
		return errSlow
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	k.list = []string{}
	for {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			return err
		case '"':
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			k.list = append(k.list, tok.String())
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			k.list = append(k.list, "")
		default:
			return errSlow
		}
	}
}

// keptMeta is a metadata object of which one member is kept (raw).
type keptMeta struct {
	keep string
	m    Metadata
}

func (k *keptMeta) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		return dec.SkipValue()
	case '{':
	default:
		return errSlow
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	want := []byte(`"` + k.keep + `"`)
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if bytes.IndexByte(name, '\\') >= 0 {
			return errSlow // an escaped name: let the full decoder judge
		}
		if k.keep != "" && bytes.Equal(name, want) {
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			k.m = Metadata{k.keep: v.Clone()}
			continue
		}
		if err := dec.SkipValue(); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

func decodeList(data []byte, keepMeta string) (*Task, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	r := listRecord{ID: missing, Subject: missing, Status: missing, Metadata: keptMeta{keep: keepMeta}}
	if err := json.Unmarshal(data, &r, recordOptions); err != nil {
		return nil, false
	}
	if r.ID == missing || r.Subject == missing || r.Status == missing || !r.Description.present {
		return nil, false
	}
	t := &Task{ID: r.ID, Subject: r.Subject, Status: r.Status, Blocks: r.Blocks.list, BlockedBy: r.BlockedBy, Owner: r.Owner,
		Priority: r.Priority, Metadata: r.Metadata.m, ParentID: r.ParentID, ThreadID: r.ThreadID}
	if err := t.Validate(); err != nil {
		return nil, false
	}
	return t, true
}
