//go:build !linux

package feed

// notifier is inotify on Linux; elsewhere the watcher polls.
type notifier struct{ wake chan struct{} }

func startNotifier(string) *notifier                 { return nil }
func (n *notifier) watchAlso(string)                 {}
func (n *notifier) stopped() bool                    { return true }
func (n *notifier) pending() bool                    { return false }
func (n *notifier) take() (names []string, all bool) { return nil, true }
func (n *notifier) again()                           {}
func (n *notifier) close()                           {}
