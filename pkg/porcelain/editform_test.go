package porcelain

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// A form read back unchanged asks for no change, whatever the values hold:
// newlines, spaces at the ends, leading quotes, "#" lines and a
// "description:" line inside the description, labels with commas.
func TestFormRoundTrip(t *testing.T) {
	tk := &task.Task{ID: "T-01a23679-84a3-7cd4-a6a7-da2c9f01249d", Subject: "two\nlines", Status: task.Pending,
		Owner: "  padded ", ActiveForm: `"quoted" start`, Priority: "high",
		Description: "# heading\ndescription:\n\nlast\n",
		Metadata: task.Metadata{"labels": jsontext.Value(`["a,b","c"]`), "estimate": jsontext.Value(`{"h": 3}`),
			"odd key": jsontext.Value(`1`), "claim": jsontext.Value(`{"owner":"x"}`)}}
	v := &view{tasks: []*task.Task{tk}, at: map[string]int32{tk.ID: 0}, handle: []string{"249d"}}
	shown, hidden := formOf(v, tk)
	if len(hidden) != 1 || hidden[0] != "odd key" {
		t.Fatalf("hidden = %q, want the key with a space", hidden)
	}
	text := shown.render("249d", tk.ID, "", hidden)
	if strings.Contains(text, "metadata.claim") {
		t.Errorf("the form shows the tool's claim:\n%s", text)
	}
	got, err := parseForm(text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	_, changed, err := got.request(shown, tk, func(s string) (string, error) { return s, nil })
	if err != nil || len(changed) != 0 {
		t.Fatalf("unchanged form: changed %v, err %v\n%s", changed, err, text)
	}
	if got.desc != tk.Description {
		t.Errorf("description %q, want %q", got.desc, tk.Description)
	}

	// Edits: a deleted metadata line removes the key, labels are split,
	// trimmed and deduplicated, an empty owner removes it.
	edited := strings.Replace(text, `metadata.estimate: {"h":3}`+"\n", "", 1)
	edited = strings.Replace(edited, `labels: ["a,b","c"]`, "labels: x, y ,x", 1)
	edited = strings.Replace(edited, `owner: "  padded "`, "owner:", 1)
	got, err = parseForm(edited)
	if err != nil {
		t.Fatal(err)
	}
	req, changed, err := got.request(shown, tk, func(s string) (string, error) { return s, nil })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changed, ",") != "owner,metadata.estimate,metadata.labels" {
		t.Errorf("changed = %v", changed)
	}
	if req.Owner == nil || *req.Owner != "" || string(req.Metadata["estimate"]) != "null" || string(req.Metadata["labels"]) != `["x","y"]` {
		t.Errorf("request: owner %v, metadata %v", req.Owner, req.Metadata)
	}

	// Refusals name what is wrong.
	for in, want := range map[string]string{
		"subject: x\nstatus: pending\n":                                `"description:" is missing`,
		"subject: x\ncolour: red\ndescription:\n":                      `line 2: unknown field "colour"`,
		"subject: x\nsubject: y\ndescription:\n":                       "line 2: subject is given twice",
		"no colon here\ndescription:\n":                                "line 1: ",
		"status: pending\ndescription:\n":                              `"subject:" is missing`,
		"subject: \nstatus: pending\ndescription:\n":                   "subject: must not be empty",
		"subject: x\nstatus: done\ndescription:\n":                     `status: "done" is not one of`,
		"subject: x\nstatus: in_progress\ndescription:\n":              "matrixx claim",
		"subject: x\nstatus: pending\nmetadata.k: red\ndescription:\n": "metadata.k: red is not a JSON value",
		"subject: x\nstatus: pending\nmetadata.k: " + strings.Repeat("[", 63) + strings.Repeat("]", 63) + "\ndescription:\n": "metadata.k: nests arrays and objects more than 62 levels deep",
	} {
		f, err := parseForm(in)
		if err == nil {
			_, _, err = f.request(shown, tk, func(s string) (string, error) { return s, nil })
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}

func TestCutText(t *testing.T) {
	text := strings.Repeat("abc\n", 40) + "end"
	kept, lines, n, mid := cutText(text, 30, 4096)
	if strings.Count(kept, "\n") != 29 || lines != 11 || n != len(text)-len(kept) || mid {
		t.Errorf("40+1 lines: kept %d lines, hidden %d lines %d bytes, mid %v", strings.Count(kept, "\n")+1, lines, n, mid)
	}
	if kept, lines, n, _ := cutText("short\ntext", 30, 4096); kept != "short\ntext" || lines != 0 || n != 0 {
		t.Errorf("short text cut: %q %d %d", kept, lines, n)
	}
	long := strings.Repeat("é", 3000) + "\nnext"
	kept, lines, _, mid = cutText(long, 30, 4096)
	if !mid || lines != 1 || len(kept) > 4096 || !strings.HasPrefix(long, kept) || strings.ContainsRune(kept, '\uFFFD') {
		t.Errorf("one long line: kept %d bytes, lines %d, mid %v", len(kept), lines, mid)
	}
}
