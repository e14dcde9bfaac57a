//go:build !linux

package lock

// createUnnamed is unavailable here: create uses a named temp file.
func (l *Lock) createUnnamed(path string, data []byte) (err error, ok bool) { return nil, false }
