package notepad

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSlug(t *testing.T) {
	const id = "T-3f1c9a20-8d4e-4b77-9c11-5a0e2b6d4f10"
	tests := []struct{ subject, want string }{
		{"Fix the Flaky Test!!", "fix-the-flaky-test"},
		{"Rotate the refresh-token signing key", "rotate-the-refresh-token-signing-key"},
		{"Document the flaky 111 architect gate", "document-the-flaky-111-architect-gate"},
		{"  --Leading and trailing--  ", "leading-and-trailing"},
		{"a___b...c", "a-b-c"},
		{"", id},
		{"!!! ???", id},
		{"Задача: починить тест", id},
		{"修复测试", id},
		{"Café au lait", "caf-au-lait"},
		{"naïve — résumé ✓ done", "na-ve-r-sum-done"},
		{"İstanbul", "i-stanbul"}, // Unicode lowercase of İ is i + combining dot, as in JavaScript
		{strings.Repeat("abcdefghi ", 10), "abcdefghi-abcdefghi-abcdefghi-abcdefghi-abcdefghi-abcdefghi"},
		{strings.Repeat("a", 59) + " b", strings.Repeat("a", 59)}, // cut leaves a trailing hyphen: trimmed
		{strings.Repeat("é", 40) + strings.Repeat("x", 70), strings.Repeat("x", 60)},
	}
	for _, tt := range tests {
		got := Slug(tt.subject, id)
		if got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.subject, got, tt.want)
		}
		if got != id && (len(got) > MaxSlug || !utf8.ValidString(got) || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-")) {
			t.Errorf("Slug(%q) = %q breaks the rules", tt.subject, got)
		}
	}
}

func TestScaffoldDefaultsAndOneLine(t *testing.T) {
	s := string(Scaffold("a\r\nb\nc\u2028d", "T-1", "", "", mustTime(t)))
	if !strings.HasPrefix(s, "# Task: a b c d\n\n**Task ID**: T-1\n**Priority**: medium\n**Status**: pending\n**Started**: 2026-09-27T16:20:10.393Z\n\n## Findings\n") {
		t.Errorf("%q", s[:120])
	}
}
