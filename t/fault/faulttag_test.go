//go:build matrixx_fault

package fault

// faultTag: built with -tags matrixx_fault (make test does), so the store
// can stop a writer right after its last lock check (pkg/store/fault.go).
const faultTag = true
