package plan

import (
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestCheckName(t *testing.T) {
	for _, name := range []string{"auth", "a", "0", "release-2-0", "2026-03-plan", strings.Repeat("a", MaxNameLen)} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
	for _, tc := range []struct{ name, msg string }{
		{"", "empty plan name"},
		{"Auth", "did you mean auth?"},
		{"auth.md", "did you mean auth?"},
		{"my_plan", "did you mean my-plan?"},
		{"my plan", "did you mean my-plan?"},
		{"-auth", "kebab-case"},
		{"auth-", "did you mean auth?"},
		{"a--b", "did you mean a-b?"},
		{"../auth", "is a path"},
		{"a/b", "is a path"},
		{`a\b`, "is a path"},
		{"..", "is a path"},
		{".hidden", "kebab-case"},
		{"auth\x00", "kebab-case"},
		{"plän", "kebab-case"},
		{"ａｕｔｈ", "kebab-case"},
		{"\xff", "kebab-case"},
		{"auth\n", "kebab-case"},
		{strings.Repeat("a", MaxNameLen+1), "more than 100"},
	} {
		err := CheckName(tc.name)
		e := errcode.As(err)
		if err == nil || e.Code != errcode.InvalidFilePath || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("CheckName(%q) = %v; want invalid_file_path containing %q", tc.name, err, tc.msg)
		}
	}
}
