package task

import (
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
)

// Metadata keys that tie a task to a numbered plan item
// (docs/plans.md): planName is the plan's name, planItem the item's
// number as written, planItemText the item's text (what follows the
// checkbox) when the task was filed, which lets the plan commands follow
// an item whose number changed.
const (
	KeyPlanName     = "planName"
	KeyPlanItem     = "planItem"
	KeyPlanItemText = "planItemText"
)

// PlanItem returns metadata.planName (a JSON string) and metadata.planItem
// read as a positive integer (a JSON integer, or a string of digits: 3 and
// "3" are one item). ok is false when either is missing or malformed.
func (m Metadata) PlanItem() (name string, item int, ok bool) {
	raw, found := m[KeyPlanName]
	if !found || raw.Kind() != '"' || json.Unmarshal(raw, &name) != nil {
		return "", 0, false
	}
	item, ok = m.planItem()
	return name, item, ok
}

// PlanItemText returns metadata.planItemText, the text of the plan item
// the task was filed for (docs/plans.md); ok is false when it is
// missing or not a JSON string (a task filed before texts were recorded).
func (m Metadata) PlanItemText() (text string, ok bool) {
	raw, found := m[KeyPlanItemText]
	if !found || raw.Kind() != '"' || json.Unmarshal(raw, &text) != nil {
		return "", false
	}
	return text, true
}

// planItem reads metadata.planItem as a positive integer.
func (m Metadata) planItem() (int, bool) {
	raw, ok := m[KeyPlanItem]
	if !ok {
		return 0, false
	}
	switch raw.Kind() {
	case '0':
		var f float64
		if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || f < 1 || f > math.MaxInt32 {
			return 0, false
		}
		return int(f), true
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 1
	}
	return 0, false
}

// PlanKey is the plan-item identity task-create's dedup compares besides
// the subject (docs/design/decisions.md): "" when metadata has neither planName
// nor planItem, else `"<planName>"#<planItem>` (`"auth"#3`), with planItem
// normalized so that 3 and "3" are equal, a missing key left empty and a
// malformed value written as raw:<its JSON>. Two tasks share a key exactly
// when their (planName, planItem) pairs are equal, a missing key included.
func (m Metadata) PlanKey() string {
	rawName, hasName := m[KeyPlanName]
	rawItem, hasItem := m[KeyPlanItem]
	if !hasName && !hasItem {
		return ""
	}
	var b strings.Builder
	var name string
	switch {
	case !hasName:
	case rawName.Kind() == '"' && json.Unmarshal(rawName, &name) == nil:
		b.WriteString(strconv.Quote(name))
	default:
		b.WriteString("raw:")
		b.Write(rawName)
	}
	b.WriteByte('#')
	switch n, ok := m.planItem(); {
	case !hasItem:
	case ok:
		b.WriteString(strconv.Itoa(n))
	default:
		b.WriteString("raw:")
		b.Write(rawItem)
	}
	return b.String()
}
