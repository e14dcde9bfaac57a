//go:build !matrixx_fault

package fault

// faultTag: built without -tags matrixx_fault: the proofs that stop a
// writer after its last lock check are skipped.
const faultTag = false
