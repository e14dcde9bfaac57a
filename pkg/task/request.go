package task

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// CreateItem is one task to create: the original's specification TaskCreateInputSchema plus
// priority. id, status, threadID and projectRoot are set by the
// tool; giving them is a validation_error.
type CreateItem struct {
	Subject     string   `json:"subject"`
	Description string   `json:"description,omitempty"`
	ActiveForm  string   `json:"activeForm,omitempty"`
	Blocks      []string `json:"blocks,omitempty"`
	BlockedBy   []string `json:"blockedBy,omitempty"`
	Owner       string   `json:"owner,omitempty"`
	Priority    Priority `json:"priority,omitempty"`
	Metadata    Metadata `json:"metadata,omitempty"`
	RepoURL     string   `json:"repoURL,omitempty"`
	ParentID    string   `json:"parentID,omitempty"`
	// Ref names this item within its batch: later items may write
	// "@<ref>" in blockedBy, blocks and parentID (refs.go).
	Ref string `json:"ref,omitempty"`

	// Present only to refuse them with a specific message.
	ID          jsontext.Value `json:"id,omitzero"`
	Status      jsontext.Value `json:"status,omitzero"`
	ThreadID    jsontext.Value `json:"threadID,omitzero"`
	ProjectRoot jsontext.Value `json:"projectRoot,omitzero"`
}

// ItemError reports one failed item of a create batch.
type ItemError struct {
	Index   int          `json:"index"`
	Error   errcode.Code `json:"error"`
	Message string       `json:"message"`
}

// CreateRequest is task-create's parsed input: one object or
// {"items":[…]}. Items that failed to parse or validate are in Errors
// and absent from Items; Index maps Items back to input positions.
type CreateRequest struct {
	Items  []CreateItem
	Index  []int
	Errors []ItemError
	Total  int
}

// MaxBatch caps the items of one create batch: 1000. A batch runs under
// one lock, so a bigger one would hold every other writer for too long.
const MaxBatch = 1000

// ParseCreate parses task-create's stdin document. A document that is not a
// JSON object, or a batch whose envelope is wrong, fails as a whole
// (validation_error); a bad item, including a single object, fails only
// itself.
func ParseCreate(data []byte) (*CreateRequest, error) {
	if err := input.CheckDepth(data, input.MaxDepth); err != nil {
		return nil, err
	}
	if jsontext.Value(data).Kind() != '{' {
		if err := json.Unmarshal(data, new(any)); err != nil {
			return nil, input.Explain(err)
		}
		return nil, errcode.New(errcode.ValidationError, "the document must be a JSON object: one task or {\"items\":[…]}")
	}
	var top map[string]jsontext.Value
	if err := json.Unmarshal(data, &top, jsontext.AllowDuplicateNames(true)); err != nil {
		return nil, input.Explain(err)
	}
	req := &CreateRequest{}
	items, batch := top["items"]
	if !batch {
		req.Total = 1
		req.add(0, data)
		if len(req.Items) == 1 {
			if err := CheckRefs(req.Items, false); err != nil {
				return nil, err
			}
		}
		return req, nil
	}
	if items.Kind() != '[' {
		return nil, errcode.Field(errcode.ValidationError, "items", "must be an array of tasks")
	}
	var env struct {
		Items []jsontext.Value `json:"items"`
	}
	if err := json.Unmarshal(data, &env, json.RejectUnknownMembers(true), jsontext.AllowDuplicateNames(false)); err != nil {
		if e := errcode.As(input.Explain(err)); e.Field != "" && !strings.HasPrefix(e.Field, "items") {
			return nil, errcode.Field(errcode.ValidationError, e.Field, "unknown key next to \"items\" (a batch is {\"items\":[…]} and nothing else)")
		}
		return nil, input.Explain(err)
	}
	if len(env.Items) > MaxBatch {
		return nil, errcode.Field(errcode.ValidationError, "items", "%d tasks is more than %d per batch; split it", len(env.Items), MaxBatch)
	}
	// An empty batch is a no-op, so `plan tasks X | task-create` works
	// when nothing is left to file.
	req.Total = len(env.Items)
	refs := false
	for i, raw := range env.Items {
		req.add(i, raw)
		refs = refs || rawUsesRefs(raw)
	}
	if refs {
		// Items that name each other stand or fall together.
		if len(req.Errors) > 0 {
			e := req.Errors[0]
			return nil, &errcode.Error{Code: e.Error, Field: fmt.Sprintf("items[%d]", e.Index),
				Message: fmt.Sprintf("items[%d]: %s (the batch's items name each other with ref and @NAME, so it is refused whole: nothing was written)", e.Index, e.Message)}
		}
		if err := CheckRefs(req.Items, true); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// rawUsesRefs reports whether a batch item, parsed or not, has a ref or
// an "@NAME" in blockedBy, blocks or parentID.
func rawUsesRefs(raw []byte) bool {
	var it struct {
		Ref       jsontext.Value   `json:"ref"`
		BlockedBy []jsontext.Value `json:"blockedBy"`
		Blocks    []jsontext.Value `json:"blocks"`
		ParentID  jsontext.Value   `json:"parentID"`
	}
	if json.Unmarshal(raw, &it, jsontext.AllowDuplicateNames(true)) != nil {
		var loose map[string]jsontext.Value
		if json.Unmarshal(raw, &loose, jsontext.AllowDuplicateNames(true)) != nil {
			return false
		}
		_, ok := loose["ref"]
		return ok
	}
	isRef := func(v jsontext.Value) bool {
		var s string
		return v.Kind() == '"' && json.Unmarshal(v, &s) == nil && IsRef(s)
	}
	if it.Ref != nil || isRef(it.ParentID) {
		return true
	}
	for _, v := range append(it.BlockedBy, it.Blocks...) {
		if isRef(v) {
			return true
		}
	}
	return false
}

func (r *CreateRequest) add(i int, raw []byte) {
	var it CreateItem
	var err error
	if jsontext.Value(raw).Kind() != '{' {
		err = errcode.New(errcode.ValidationError, "an item must be a JSON object (one task)")
	} else {
		err = input.Decode(raw, &it)
	}
	if err == nil {
		err = it.Validate()
	}
	if err != nil {
		e := errcode.As(err)
		r.Errors = append(r.Errors, ItemError{Index: i, Error: e.Code, Message: e.Message})
		return
	}
	r.Items = append(r.Items, it)
	r.Index = append(r.Index, i)
}

// Validate checks a create item: subject not blank, dependency and parent
// ids well-formed, priority valid, tool-owned fields absent.
func (it *CreateItem) Validate() error {
	for _, f := range []struct {
		name string
		v    jsontext.Value
		why  string
	}{
		{"id", it.ID, "ids are generated"},
		{"status", it.Status, "new tasks are always pending; set status with task-update"},
		{"threadID", it.ThreadID, "it is taken from --session or MATRIXX_SESSION_ID"},
		{"projectRoot", it.ProjectRoot, "it is the resolved project root"},
	} {
		if f.v != nil {
			return errcode.Field(errcode.ValidationError, f.name, "not accepted on create: %s", f.why)
		}
	}
	if Blank(it.Subject) {
		return errcode.Field(errcode.ValidationError, "subject", "required and must not be blank")
	}
	for _, f := range []struct{ name, v string }{
		{"subject", it.Subject}, {"description", it.Description}, {"activeForm", it.ActiveForm},
		{"owner", it.Owner}, {"repoURL", it.RepoURL},
	} {
		if err := checkText(f.name, f.v); err != nil {
			return err
		}
	}
	if err := checkSetOwner(it.Owner, "leave it out for no owner"); err != nil {
		return err
	}
	var err error
	if it.Blocks, err = checkRefsOrIDs("blocks", it.Blocks); err != nil {
		return err
	}
	if it.BlockedBy, err = checkRefsOrIDs("blockedBy", it.BlockedBy); err != nil {
		return err
	}
	if it.ParentID != "" {
		if err := checkRefOrID("parentID", it.ParentID); err != nil {
			return err
		}
	}
	if it.Ref != "" && !validRefName(it.Ref) {
		return errcode.Field(errcode.ValidationError, "ref", "%q is not a ref (1 to 64 letters, digits, '.', '_' or '-')", trimRef(it.Ref))
	}
	if it.Priority != "" && !it.Priority.Valid() {
		return errcode.Field(errcode.ValidationError, "priority", "%q is not one of low, medium, high", it.Priority)
	}
	return checkMetadata(it.Metadata)
}

// Blank reports whether s holds nothing but white space and invisible
// format characters (such as U+200B ZERO WIDTH SPACE).
func Blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) == ""
}

// checkText refuses invalid UTF-8 and NUL in a text field. Stdin documents
// are already valid UTF-8; this catches values built from flags.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return errcode.Field(errcode.ValidationError, field, "not valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return errcode.Field(errcode.ValidationError, field, "must not contain NUL")
	}
	return nil
}

// checkIDs validates every id and returns the list with duplicates removed,
// first occurrence kept (set semantics).
func checkIDs(field string, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if err := CheckID(errcode.ValidationError, fmt.Sprintf("%s[%d]", field, i), id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// IDRequest is task-get's input: {"id":"T-…"}.
type IDRequest struct {
	ID string `json:"id"`
	// History asks for the task's history too (events and time in each
	// status, docs/history.md).
	History bool `json:"history,omitzero"`
}

// UpdateRequest is task-update's input. Pointer fields are
// replaced when present; addBlocks/addBlockedBy append with set semantics,
// removeBlocks/removeBlockedBy remove; metadata shallow-merges and a null
// value deletes its key. repoURL and parentID are create-only; blocks,
// blockedBy (use the add and remove lists), threadID and projectRoot are
// not updatable: each is refused with validation_error.
type UpdateRequest struct {
	ID           string    `json:"id"`
	Subject      *string   `json:"subject,omitzero"`
	Description  *string   `json:"description,omitzero"`
	Status       *Status   `json:"status,omitzero"`
	ActiveForm   *string   `json:"activeForm,omitzero"`
	Owner        *string   `json:"owner,omitzero"`
	Priority     *Priority `json:"priority,omitzero"`
	AddBlocks    []string  `json:"addBlocks,omitempty"`
	AddBlockedBy []string  `json:"addBlockedBy,omitempty"`
	// RemoveBlocks and RemoveBlockedBy remove dependency edges (the other
	// task loses its mirror edge in the same transaction).
	RemoveBlocks    []string `json:"removeBlocks,omitempty"`
	RemoveBlockedBy []string `json:"removeBlockedBy,omitempty"`
	Metadata        Metadata `json:"metadata,omitempty"`
	// Force completes a task whose subtasks are still active (else
	// children_active).
	Force bool `json:"force,omitzero"`
	// Expect makes the update a compare-and-swap: it is applied only when
	// the task still has these values (precondition_failed otherwise).
	Expect *Expect `json:"expect,omitzero"`
	// Lease (Go duration syntax) gives the claim that status in_progress
	// records a lease (docs/claims.md); LeaseDur is it parsed.
	Lease    string        `json:"lease,omitempty"`
	LeaseDur time.Duration `json:"-"`

	RepoURL     jsontext.Value `json:"repoURL,omitzero"`
	ParentID    jsontext.Value `json:"parentID,omitzero"`
	Blocks      jsontext.Value `json:"blocks,omitzero"`
	BlockedBy   jsontext.Value `json:"blockedBy,omitzero"`
	ThreadID    jsontext.Value `json:"threadID,omitzero"`
	ProjectRoot jsontext.Value `json:"projectRoot,omitzero"`

	// If, when set, is a precondition checked by Apply on the record as
	// re-read under the lock: when it reports false Apply changes nothing
	// (so the store writes nothing). Never part of the JSON input.
	If func(*Task) bool `json:"-"`
}

// ParseUpdate decodes and validates task-update's input.
func ParseUpdate(data []byte) (*UpdateRequest, error) {
	var r UpdateRequest
	if err := input.Decode(data, &r); err != nil {
		return nil, err
	}
	return &r, r.Validate()
}

// Validate checks an update request.
func (r *UpdateRequest) Validate() error {
	if r.ID == "" {
		return errcode.Field(errcode.ValidationError, "id", "required")
	}
	if err := CheckID(errcode.InvalidTaskID, "id", r.ID); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    jsontext.Value
		why  string
	}{
		{"repoURL", r.RepoURL, "create-only: set it with task-create"},
		{"parentID", r.ParentID, "create-only: set it with task-create"},
		{"blocks", r.Blocks, "use addBlocks and removeBlocks"},
		{"blockedBy", r.BlockedBy, "use addBlockedBy and removeBlockedBy"},
		{"threadID", r.ThreadID, "set by the tool"},
		{"projectRoot", r.ProjectRoot, "set by the tool"},
	} {
		if f.v != nil {
			return errcode.Field(errcode.ValidationError, f.name, "not updatable (%s)", f.why)
		}
	}
	if r.Subject != nil && Blank(*r.Subject) {
		return errcode.Field(errcode.ValidationError, "subject", "must not be blank")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{
		{"subject", r.Subject}, {"description", r.Description}, {"activeForm", r.ActiveForm}, {"owner", r.Owner},
	} {
		if f.v != nil {
			if err := checkText(f.name, *f.v); err != nil {
				return err
			}
		}
	}
	if r.Owner != nil {
		if err := checkSetOwner(*r.Owner, `"" removes the owner`); err != nil {
			return err
		}
	}
	if r.Status != nil && !r.Status.Valid() {
		return errcode.Field(errcode.ValidationError, "status", "%q is not one of pending, in_progress, completed, deleted", *r.Status)
	}
	if r.Priority != nil && *r.Priority != "" && !r.Priority.Valid() {
		return errcode.Field(errcode.ValidationError, "priority", "%q is not one of low, medium, high (or \"\" to remove it)", *r.Priority)
	}
	var err error
	if r.AddBlocks, err = checkIDs("addBlocks", r.AddBlocks); err != nil {
		return err
	}
	if r.AddBlockedBy, err = checkIDs("addBlockedBy", r.AddBlockedBy); err != nil {
		return err
	}
	if r.RemoveBlocks, err = checkIDs("removeBlocks", r.RemoveBlocks); err != nil {
		return err
	}
	if r.RemoveBlockedBy, err = checkIDs("removeBlockedBy", r.RemoveBlockedBy); err != nil {
		return err
	}
	if err := checkMetadata(r.Metadata); err != nil {
		return err
	}
	if err := r.Expect.validate(); err != nil {
		return err
	}
	if r.Lease != "" {
		if r.LeaseDur, err = ParseLease("lease", r.Lease); err != nil {
			return err
		}
		if r.Status == nil || *r.Status != InProgress {
			return errcode.Field(errcode.ValidationError, "lease", "a lease goes with status in_progress (it is the claim's lease; task-claim renews one)")
		}
	}
	return nil
}

// Apply merges r into t (the original's specification step 4): scalars replace, dependency
// additions append new ids in order, metadata merges with null deleting.
// An empty owner, activeForm or priority removes the field. When r.If is
// set and reports false for t, nothing changes.
func (r *UpdateRequest) Apply(t *Task) {
	if r.If != nil && !r.If(t) {
		return
	}
	if r.Subject != nil {
		t.Subject = *r.Subject
	}
	if r.Description != nil {
		t.Description = *r.Description
	}
	if r.Status != nil {
		t.Status = *r.Status
	}
	if r.ActiveForm != nil {
		t.ActiveForm = *r.ActiveForm
	}
	if r.Owner != nil {
		t.Owner = *r.Owner
	}
	if r.Priority != nil {
		t.Priority = *r.Priority
	}
	t.Blocks = AppendIDs(RemoveIDs(t.Blocks, r.RemoveBlocks), r.AddBlocks)
	t.BlockedBy = AppendIDs(RemoveIDs(t.BlockedBy, r.RemoveBlockedBy), r.AddBlockedBy)
	for k, v := range r.Metadata {
		if v.Kind() == 'n' {
			delete(t.Metadata, k)
			continue
		}
		if t.Metadata == nil {
			t.Metadata = Metadata{}
		}
		t.Metadata[k] = v
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
}

// RemoveIDs returns list without the ids in drop (a new slice when drop is
// not empty; list itself otherwise).
func RemoveIDs(list, drop []string) []string {
	if len(drop) == 0 {
		return list
	}
	out := make([]string, 0, len(list))
	for _, id := range list {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return out
}

// AppendIDs appends to list the ids of add it does not hold yet, once each,
// keeping the order of both.
func AppendIDs(list, add []string) []string {
	seen := make(map[string]bool, len(list)+len(add))
	for _, id := range list {
		seen[id] = true
	}
	for _, id := range add {
		if !seen[id] {
			seen[id] = true
			list = append(list, id)
		}
	}
	return list
}

// ListRequest is task-list's input. Without status, only active
// tasks are listed; status selects exactly that status; all lists every
// status; ready keeps pending tasks with no unresolved blocker. all
// cannot be combined with status or ready, nor ready with a status other
// than pending.
type ListRequest struct {
	Status   Status `json:"status,omitempty"`
	ParentID string `json:"parentID,omitempty"`
	Ready    bool   `json:"ready,omitzero"`
	All      bool   `json:"all,omitzero"`
	// Waves asks for the wave plan of the active tasks instead of a list
	// (docs/claims.md); it combines with parentID only.
	Waves bool `json:"waves,omitzero"`
	// Labels keeps tasks whose metadata.labels holds every one of them
	// (exact match).
	Labels []string `json:"labels,omitempty"`
	// Priority keeps tasks of this priority (low, medium, high).
	Priority Priority `json:"priority,omitempty"`
	// Text keeps tasks whose subject or description holds every word of
	// it (words split at white space, case-insensitive substrings).
	Text string `json:"text,omitempty"`
	// Full answers each task's whole record (as task-get prints it, so
	// blockedBy lists every blocker) instead of the short entry.
	Full bool `json:"full,omitzero"`
}

// Words returns the words of r.Text.
func (r *ListRequest) Words() []string { return strings.Fields(r.Text) }

// NeedsRecords reports whether the filters or the answer need more of a
// record than a listing keeps (labels, description, the whole record).
func (r *ListRequest) NeedsRecords() bool {
	return len(r.Labels) > 0 || strings.TrimSpace(r.Text) != "" || r.Full
}

// Selects reports whether t passes the filters on list fields: status
// (active by default, every status with all), parentID and priority. The
// ready filter (which needs the other tasks) is not in it.
func (r *ListRequest) Selects(t *Task) bool {
	switch {
	case r.Status != "":
		if t.Status != r.Status {
			return false
		}
	case r.All:
	default:
		if !t.Status.Active() {
			return false
		}
	}
	if r.ParentID != "" && t.ParentID != r.ParentID {
		return false
	}
	return r.Priority == "" || t.Priority == r.Priority
}

// MatchesRecord reports whether a whole record passes the label and text
// filters.
func (r *ListRequest) MatchesRecord(t *Task) bool {
	return t.HasLabels(r.Labels) && t.HasWords(r.Words())
}

// ParseList decodes and validates task-list's input.
func ParseList(data []byte) (*ListRequest, error) {
	var r ListRequest
	if err := input.Decode(data, &r); err != nil {
		return nil, err
	}
	return &r, r.Validate()
}

// Validate checks the filters and refuses contradictory ones
// (validation_error; the binary turns it into a usage error for flags).
// Messages name the document's keys; see ValidateAs.
func (r *ListRequest) Validate() error {
	return r.ValidateAs(func(key string) string { return key })
}

// ValidateAs is Validate with the names the caller gave the filters in:
// name maps a document key (status, parentID, ready, all) to what the
// messages call it, such as its flag ("--all"), so a refusal of
// contradictory filters reads "--all cannot be combined with --ready: …".
// Errors: validation_error, with Field set to the key.
func (r *ListRequest) ValidateAs(name func(key string) string) error {
	conflict := func(key, format string, args ...any) error {
		return &errcode.Error{Code: errcode.ValidationError, Field: key, Message: fmt.Sprintf(format, args...)}
	}
	if r.Status != "" && !r.Status.Valid() {
		return errcode.Field(errcode.ValidationError, "status", "%q is not one of pending, in_progress, completed, deleted", r.Status)
	}
	if r.Ready && r.Status != "" && r.Status != Pending {
		return conflict("ready", "%s cannot be combined with %s %q: %s lists only pending tasks (drop %s, or make it pending)",
			name("ready"), name("status"), r.Status, name("ready"), name("status"))
	}
	if r.All && r.Ready {
		return conflict("all", "%s cannot be combined with %s: %s lists tasks of every status, %s only runnable pending ones; give one or the other",
			name("all"), name("ready"), name("all"), name("ready"))
	}
	if r.All && r.Status != "" {
		return conflict("all", "%s cannot be combined with %s %q: %s lists tasks of every status, %s only those of one; give one or the other",
			name("all"), name("status"), r.Status, name("all"), name("status"))
	}
	if r.Priority != "" && !r.Priority.Valid() {
		return errcode.Field(errcode.ValidationError, "priority", "%q is not one of low, medium, high", r.Priority)
	}
	for i, l := range r.Labels {
		if err := CheckLabel(fmt.Sprintf("labels[%d]", i), l); err != nil {
			return err
		}
	}
	if err := checkText("text", r.Text); err != nil {
		return err
	}
	if r.Waves {
		for _, f := range []struct {
			key string
			set bool
		}{{"ready", r.Ready}, {"all", r.All}, {"status", r.Status != ""}, {"labels", len(r.Labels) > 0},
			{"priority", r.Priority != ""}, {"text", r.Text != ""}, {"full", r.Full}} {
			if f.set {
				return conflict("waves", "%s cannot be combined with %s: %s plans every active task (pending and in_progress) in waves; give one or the other",
					name("waves"), name(f.key), name("waves"))
			}
		}
	}
	if r.ParentID != "" {
		return CheckID(errcode.ValidationError, "parentID", r.ParentID)
	}
	return nil
}

// CleanupRequest is task-cleanup's input. olderThan is
// "<n>d", "<n>h" or "<n>m" ("0d" included: every completed task); all (default true without olderThan) deletes
// every completed task, so all:false needs olderThan and all:true excludes
// it; includeDeleted also removes deleted ones; stale also removes
// active tasks idle past olderThan (else tasks.stale_after_hours); dryRun
// only reports.
type CleanupRequest struct {
	OlderThan      string `json:"olderThan,omitempty"`
	All            *bool  `json:"all,omitzero"`
	IncludeDeleted bool   `json:"includeDeleted,omitzero"`
	Stale          bool   `json:"stale,omitzero"`
	DryRun         bool   `json:"dryRun,omitzero"`

	Age time.Duration `json:"-"`
}

// ParseCleanup decodes and validates task-cleanup's input.
func ParseCleanup(data []byte) (*CleanupRequest, error) {
	var r CleanupRequest
	if err := input.Decode(data, &r); err != nil {
		return nil, err
	}
	return &r, r.Validate()
}

// maxAge caps olderThan at 100 years.
const maxAge = 100 * 365 * 24 * time.Hour

// parseAge parses olderThan's format ^(\d{1,9})(d|h|m)$.
func parseAge(s string) (int, time.Duration, bool) {
	if len(s) < 2 || len(s) > 10 {
		return 0, 0, false
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 'd':
		unit = 24 * time.Hour
	case 'h':
		unit = time.Hour
	case 'm':
		unit = time.Minute
	default:
		return 0, 0, false
	}
	n := 0
	for _, c := range []byte(s[:len(s)-1]) {
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, unit, true
}

// Validate checks olderThan's format and that something is selected.
func (r *CleanupRequest) Validate() error {
	if r.OlderThan != "" {
		n, unit, ok := parseAge(r.OlderThan)
		if !ok {
			return errcode.Field(errcode.ValidationError, "olderThan", "%q is not <number><d|h|m>, e.g. \"7d\", \"24h\", \"30m\"", r.OlderThan)
		}
		// Zero is the spec's format too ("0d": every completed task, as
		// idle for longer than nothing); only stale refuses it, since
		// every active task would be stale.
		if n == 0 && r.Stale {
			return errcode.Field(errcode.ValidationError, "olderThan", "%q with stale would make every active task stale: give a positive age, or leave olderThan out to use tasks.stale_after_hours", r.OlderThan)
		}
		if time.Duration(n) > maxAge/unit {
			return errcode.Field(errcode.ValidationError, "olderThan", "%q is more than 100 years", r.OlderThan)
		}
		r.Age = time.Duration(n) * unit
	}
	if r.OlderThan == "" && r.All != nil && !*r.All {
		return &errcode.Error{Code: errcode.ValidationError, Field: "all", Message: "all:false without olderThan selects nothing: give olderThan, or leave all out to select every completed task"}
	}
	if r.OlderThan != "" && r.All != nil && *r.All {
		return &errcode.Error{Code: errcode.ValidationError, Field: "all", Message: "all:true cannot be combined with olderThan: all selects every completed task, olderThan only the older ones; give one or the other"}
	}
	return nil
}
