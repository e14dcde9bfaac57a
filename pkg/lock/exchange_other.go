//go:build !linux

package lock

// exchange is unavailable here: eviction falls back to rename and link.
func exchange(a, b string) error { return errNoExchange }
