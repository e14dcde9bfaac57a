package task

import (
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// Lease bounds (docs/claims.md): a claim's lease lies within
// [MinLease, MaxLease].
const (
	MinLease = time.Second
	MaxLease = 720 * time.Hour
)

// ParseLease parses a lease in Go duration syntax ("90s", "15m", "2h") and
// checks its range. Errors: validation_error naming field.
func ParseLease(field, s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, errcode.Field(errcode.ValidationError, field, "%q is not a duration such as \"90s\", \"15m\" or \"2h\"", s)
	}
	if d < MinLease || d > MaxLease {
		return 0, errcode.Field(errcode.ValidationError, field, "%q is not between %v and %v", s, MinLease, MaxLease)
	}
	return d, nil
}

// Expect is task-update's precondition: each given field must equal the
// task's current value; Owner "" means the task has no owner.
type Expect struct {
	Status *Status `json:"status,omitzero"`
	Owner  *string `json:"owner,omitzero"`
}

func (e *Expect) validate() error {
	if e == nil {
		return nil
	}
	if e.Status == nil && e.Owner == nil {
		return errcode.Field(errcode.ValidationError, "expect", "give status and/or owner to compare with")
	}
	if e.Status != nil && !e.Status.Valid() {
		return errcode.Field(errcode.ValidationError, "expect.status", "%q is not one of pending, in_progress, completed, deleted", *e.Status)
	}
	if e.Owner != nil {
		return checkText("expect.owner", *e.Owner)
	}
	return nil
}

// Check returns precondition_failed, giving the current values, when t no
// longer matches.
func (e *Expect) Check(t *Task) error {
	if e == nil {
		return nil
	}
	statusOK := e.Status == nil || *e.Status == t.Status
	ownerOK := e.Owner == nil || *e.Owner == t.Owner
	if statusOK && ownerOK {
		return nil
	}
	show := func(s string) string {
		if s == "" {
			return "absent"
		}
		return "\"" + s + "\""
	}
	var want []string
	if e.Status != nil {
		want = append(want, "status "+string(*e.Status))
	}
	if e.Owner != nil {
		want = append(want, "owner "+show(*e.Owner))
	}
	return errcode.New(errcode.PreconditionFailed, "%s no longer matches: expected %s; it has status %s and owner %s (nothing was written)",
		t.ID, strings.Join(want, " and "), t.Status, show(t.Owner))
}

// checkClaimKey refuses metadata.claim in a request: it is written by
// task-claim and task-update --status only.
func checkClaimKey(md Metadata) error {
	if _, ok := md["claim"]; ok {
		return errcode.Field(errcode.ValidationError, "metadata.claim", "written by the tool (task-claim, task-update --status in_progress); it cannot be set or removed by hand")
	}
	return nil
}

// ClaimDoc is task-claim's stdin document:
// {"id"?,"owner","lease"?,"paths"?:[globs]} (paths: docs/leases.md).
type ClaimDoc struct {
	ID    string   `json:"id,omitempty"`
	Owner string   `json:"owner"`
	Lease string   `json:"lease,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// claimWire is ClaimDoc as decoded: ID is nil when the member is absent
// (or null), so that "id":"" can be told from no id.
type claimWire struct {
	ID    *string  `json:"id"`
	Owner string   `json:"owner"`
	Lease string   `json:"lease"`
	Paths []string `json:"paths"`
}

// ParseClaim decodes task-claim's document. The owner is required
// (validation_error); the id, when given, must be a task id
// (invalid_task_id): "id":"" is refused, only an absent id means the next
// ready task; the lease must parse.
func ParseClaim(data []byte) (*ClaimDoc, time.Duration, error) {
	var w claimWire
	if err := input.Decode(data, &w); err != nil {
		return nil, 0, err
	}
	d := ClaimDoc{Owner: w.Owner, Lease: w.Lease, Paths: w.Paths}
	if w.ID != nil {
		if err := CheckID(errcode.InvalidTaskID, "id", *w.ID); err != nil {
			return nil, 0, err
		}
		d.ID = *w.ID
	}
	if err := CheckOwner(d.Owner); err != nil {
		return nil, 0, err
	}
	var lease time.Duration
	if d.Lease != "" {
		var err error
		if lease, err = ParseLease("lease", d.Lease); err != nil {
			return nil, 0, err
		}
	}
	return &d, lease, nil
}

// CheckOwner validates a claimant's owner name: not blank, printable text
// (no control characters: a newline or a tab in a name breaks every line
// that shows it), at most 256 bytes. Errors: validation_error on field
// owner.
func CheckOwner(owner string) error {
	if Blank(owner) {
		return errcode.Field(errcode.ValidationError, "owner", "required: who claims the task (e.g. agent-3)")
	}
	return checkOwnerText(owner)
}

// checkSetOwner checks an owner a create or an update sets: "" is no
// owner; any other is a name under a claim's rule (CheckOwner), a blank
// one refused with the hint none on how to give no owner.
func checkSetOwner(owner, none string) error {
	if owner == "" {
		return nil
	}
	if Blank(owner) {
		return errcode.Field(errcode.ValidationError, "owner", "must not be blank (%s)", none)
	}
	return checkOwnerText(owner)
}

// checkOwnerText is CheckOwner less the blank rule.
func checkOwnerText(owner string) error {
	if len(owner) > 256 {
		return errcode.Field(errcode.ValidationError, "owner", "at most 256 bytes")
	}
	if err := checkText("owner", owner); err != nil {
		return err
	}
	if i := strings.IndexFunc(owner, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return errcode.Field(errcode.ValidationError, "owner", "must not contain control characters (byte %d)", i)
	}
	return nil
}
