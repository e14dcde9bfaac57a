package task

import (
	"testing"

	"github.com/go-json-experiment/json"
)

func metadata(t *testing.T, doc string) Metadata {
	t.Helper()
	var m Metadata
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlanItem(t *testing.T) {
	tests := []struct {
		doc  string
		name string
		item int
		ok   bool
	}{
		{`{"planName":"auth","planItem":3}`, "auth", 3, true},
		{`{"planName":"auth","planItem":"3"}`, "auth", 3, true},
		{`{"planName":"auth","planItem":3.0}`, "auth", 3, true},
		{`{"planName":"auth","planItem":3.5}`, "", 0, false},
		{`{"planName":"auth","planItem":0}`, "", 0, false},
		{`{"planName":"auth","planItem":"x"}`, "", 0, false},
		{`{"planName":"auth"}`, "", 0, false},
		{`{"planName":5,"planItem":3}`, "", 0, false},
		{`{}`, "", 0, false},
	}
	for _, tt := range tests {
		name, item, ok := metadata(t, tt.doc).PlanItem()
		if ok != tt.ok || (ok && (name != tt.name || item != tt.item)) {
			t.Errorf("%s: got %q %d %v, want %q %d %v", tt.doc, name, item, ok, tt.name, tt.item, tt.ok)
		}
	}
}

// TestPlanKey: two tasks share a key exactly when their (planName,
// planItem) pairs are equal, both absent included (docs/design/decisions.md, "Dedup knows plan items").
func TestPlanKey(t *testing.T) {
	same := [][2]string{
		{`{}`, `{"other":1}`},
		{`{"planName":"a","planItem":1}`, `{"planItem":"1","planName":"a","x":2}`},
		{`{"planName":"a"}`, `{"planName":"a"}`},
		{`{"planItem":[1, 2]}`, `{"planItem":[1, 2]}`},
	}
	differ := [][2]string{
		{`{}`, `{"planName":"a","planItem":1}`},
		{`{"planName":"a","planItem":1}`, `{"planName":"b","planItem":1}`},
		{`{"planName":"a","planItem":1}`, `{"planName":"a","planItem":2}`},
		{`{"planName":"a","planItem":1}`, `{"planName":"a"}`},
		{`{"planName":"a"}`, `{"planItem":1}`},
		{`{"planName":"1"}`, `{"planName":1}`},
		{`{"planName":"a#1"}`, `{"planName":"a","planItem":1}`},
		{`{"planItem":"x"}`, `{"planItem":"y"}`},
	}
	for _, p := range same {
		if a, b := metadata(t, p[0]).PlanKey(), metadata(t, p[1]).PlanKey(); a != b {
			t.Errorf("%s and %s: keys %q and %q differ", p[0], p[1], a, b)
		}
	}
	for _, p := range differ {
		if a, b := metadata(t, p[0]).PlanKey(), metadata(t, p[1]).PlanKey(); a == b {
			t.Errorf("%s and %s: same key %q", p[0], p[1], a)
		}
	}
	if k := metadata(t, `{"planName":"auth","planItem":"3"}`).PlanKey(); k != `"auth"#3` {
		t.Errorf("key %q, want \"auth\"#3", k)
	}
}

func TestPlanItemText(t *testing.T) {
	tests := []struct {
		doc  string
		text string
		ok   bool
	}{
		{`{"planName":"auth","planItem":3,"planItemText":"Deploy"}`, "Deploy", true},
		{`{"planItemText":""}`, "", true},
		{`{"planItemText":3}`, "", false},
		{`{"planItemText":null}`, "", false},
		{`{"planName":"auth","planItem":3}`, "", false},
	}
	for _, tt := range tests {
		text, ok := metadata(t, tt.doc).PlanItemText()
		if text != tt.text || ok != tt.ok {
			t.Errorf("%s: PlanItemText() = %q, %v; want %q, %v", tt.doc, text, ok, tt.text, tt.ok)
		}
	}
	// the text is not part of the dedup key: subject, planName and planItem pin the item
	if a, b := metadata(t, `{"planName":"a","planItem":1,"planItemText":"x"}`).PlanKey(), metadata(t, `{"planName":"a","planItem":1}`).PlanKey(); a != b {
		t.Errorf("PlanKey %q != %q", a, b)
	}
}

func TestUpdateIf(t *testing.T) {
	subject := "new"
	tk := &Task{Subject: "old"}
	r := &UpdateRequest{Subject: &subject, If: func(t *Task) bool { return t.Subject == "other" }}
	r.Apply(tk)
	if tk.Subject != "old" {
		t.Fatalf("applied despite If: %q", tk.Subject)
	}
	r.If = func(t *Task) bool { return t.Subject == "old" }
	r.Apply(tk)
	if tk.Subject != "new" {
		t.Fatalf("not applied: %q", tk.Subject)
	}
}
