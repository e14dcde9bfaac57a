package notepad

import (
	"os"
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

// Adhoc is the bucket of tasks without a usable plan.
const Adhoc = "adhoc"

// Reason says why a bucket was chosen ("The resolution
// rule"); UnsafePlanName is ours.
type Reason string

// The reasons.
const (
	PlanFileExists  Reason = "plan-file-exists"
	NoPlanName      Reason = "no-plan-name"
	PlanFileMissing Reason = "plan-file-missing"
	// UnsafePlanName: metadata.planName is not a plan name as the plan
	// binary accepts them (plan.ValidName: kebab-case, at most
	// plan.MaxNameLen bytes), so it could name a path outside
	// .matrixx/notepads; the task goes to adhoc.
	UnsafePlanName Reason = "unsafe-plan-name"
)

// ValidPlanName reports whether name is a plan name that is safe as one
// path element: the plan binary's rule (plan.ValidName), so a bucket can
// only be named like a plan that can exist.
func ValidPlanName(name string) bool { return plan.ValidName(name) }

// Dir returns <root>/.matrixx/notepads.
func Dir(root string) string { return filepath.Join(root, ".matrixx", "notepads") }

// PlanFile returns <root>/.matrixx/plans/<name>.md.
func PlanFile(root, name string) string {
	return filepath.Join(root, ".matrixx", "plans", name+".md")
}

// Resolve applies the resolution rule: the plan bucket
// <root>/.matrixx/notepads/<planName> only when planName is a non-empty,
// safe plan name and .matrixx/plans/<planName>.md exists as a regular file
// (not a symbolic link, directory or device, which the plan binary refuses
// to read: those count as a missing plan file); otherwise the adhoc bucket.
// There is no recency fallback.
func Resolve(root, planName string) (bucket string, why Reason) {
	switch {
	case planName == "":
		return Adhoc, NoPlanName
	case !ValidPlanName(planName):
		return Adhoc, UnsafePlanName
	}
	fi, err := os.Lstat(PlanFile(root, planName))
	if err != nil || !fi.Mode().IsRegular() {
		return Adhoc, PlanFileMissing
	}
	return planName, PlanFileExists
}

// candidates are the buckets searched for a task's notepad: the plan bucket
// when the task names a safe plan (whether or not the plan file exists),
// and adhoc always.
func candidates(planName string) []string {
	if planName != "" && planName != Adhoc && ValidPlanName(planName) {
		return []string{planName, Adhoc}
	}
	return []string{Adhoc}
}
