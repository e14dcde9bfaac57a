package notepad

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Answers are what the task tools answered, as the notepad writer reads
// them from a tool's output: task-create's envelope
// {"tasks":[{"id","subject"[,"deduplicated":true]}],"errors":[…]} and
// task-update's {"task":{…}} (spec §6.1, §6.4). Other documents are ignored.
type Answers struct {
	Created []Created
	Updated []Updated
}

// Created is one entry of a create envelope.
type Created struct {
	ID           string `json:"id"`
	Subject      string `json:"subject"`
	Deduplicated bool   `json:"deduplicated"`
}

// Updated is the task of an update answer. HasMetadata is false when the
// answer carried no metadata member (the writer then reads the store for
// metadata.planName).
type Updated struct {
	Task        *task.Task
	HasMetadata bool
}

// lenientTask reads the fields of a returned task that the writer uses;
// other members are ignored.
type lenientTask struct {
	ID       string          `json:"id"`
	Subject  string          `json:"subject"`
	Status   task.Status     `json:"status"`
	Priority task.Priority   `json:"priority"`
	Metadata *jsontext.Value `json:"metadata"`
}

// ParseAnswers reads a sequence of JSON documents (one tool's output may
// hold several) and collects create envelopes (when create is set) and
// update answers (when update is set). Parsing stops at the first byte that
// is not JSON; what was read until then counts. Entries whose id is not a
// well-formed task id are dropped.
func ParseAnswers(data []byte, create, update bool) Answers {
	var out Answers
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		v, err := dec.ReadValue()
		if err == io.EOF || err != nil {
			return out
		}
		if v.Kind() != '{' {
			continue
		}
		var doc struct {
			Tasks *[]jsontext.Value `json:"tasks"`
			Task  *jsontext.Value   `json:"task"`
		}
		if json.Unmarshal(v, &doc) != nil {
			continue
		}
		if create && doc.Tasks != nil {
			for _, raw := range *doc.Tasks {
				var c Created
				if json.Unmarshal(raw, &c) == nil && task.ValidID(c.ID) {
					out.Created = append(out.Created, c)
				}
			}
		}
		if update && doc.Task != nil && doc.Task.Kind() == '{' {
			var lt lenientTask
			if json.Unmarshal(*doc.Task, &lt) != nil || !task.ValidID(lt.ID) {
				continue
			}
			t := &task.Task{ID: lt.ID, Subject: lt.Subject, Status: lt.Status, Priority: lt.Priority}
			if lt.Metadata != nil && lt.Metadata.Kind() == '{' {
				var md task.Metadata
				if json.Unmarshal(*lt.Metadata, &md) == nil {
					t.Metadata = md
				}
			}
			out.Updated = append(out.Updated, Updated{Task: t, HasMetadata: lt.Metadata != nil})
		}
	}
}
