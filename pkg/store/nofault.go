//go:build !matrixx_fault

package store

// faultBuild: released binaries have no fault injection (fault.go, built
// with -tags matrixx_fault for t/fault).
const faultBuild = false

func afterLockCheck() {}
