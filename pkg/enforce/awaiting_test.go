package enforce

import "testing"

// TestAwaitsUser: real phrasings of a last message that asks the user and
// waits (the stop is let through), and of ones that do not: a "?" inside
// code, a URL or a quote, a rhetorical question, a question the message
// answers itself.
func TestAwaitsUser(t *testing.T) {
	asks := []string{
		"I found two ways to fix the flaky test. Which do you prefer: retrying the request, or mocking the clock?",
		"Should I also update the README?",
		"Do you want me to delete the old `release/1.x` branch?",
		"The migration rewrites the users table in production.\n\nOK to proceed?",
		"Can you tell me where the staging API key is kept?",
		"Want me to run the full test suite? (about 10 minutes)",
		"I need one decision before going on: should the cache be per user or global?",
		"Here is the plan:\n\n1. Split the handler\n2. Add tests\n\nShall we start with step 1?",
		"Before I touch the schema — could you confirm that `orders.total` may be NULL?",
		"Which port should the dev server use?  ",
		"Would you like me to continue with the remaining 3 tasks, or stop here?**",
		"Is it okay to overwrite `config/local.json`?\n",
	}
	waits := []string{
		"",
		"All done: the regex `^a?b$` now matches both forms.",
		"Fixed the crash in `user?.profile?.name`.",
		"Run this to check:\n\n```sh\nls *.json?\n```",
		"Updated the docs, see https://example.com/search?q=tasks",
		"Why did the build fail? The cache held a stale lockfile, so I cleared it and re-ran.",
		"What could possibly go wrong?",
		"Isn't that neat?",
		"Who knew a single missing index could cost that much?",
		"> Should I proceed?\n\nI proceeded with the plan as agreed.",
		"Step one is done. Next I'll wire the handler.",
		"    if x == nil { return nil, errors.New(\"why?\") }",
		"Let me know if anything else comes up.",
	}
	for _, m := range asks {
		if !AwaitsUser(m) {
			t.Errorf("AwaitsUser(%q) = false, want true", m)
		}
	}
	for _, m := range waits {
		if AwaitsUser(m) {
			t.Errorf("AwaitsUser(%q) = true, want false", m)
		}
	}
}
