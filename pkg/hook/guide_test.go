package hook

import (
	"strings"
	"testing"
)

func TestGuideFiles(t *testing.T) {
	files := GuideFiles()
	if len(files) != 1+len(Commands) {
		t.Fatalf("%d files", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		if !IsOurGuide([]byte(f.Content)) {
			t.Errorf("%s lacks the marker, so uninstall would never remove it", f.Path)
		}
		if seen[f.Path] {
			t.Errorf("%s twice", f.Path)
		}
		seen[f.Path] = true
		if !strings.HasPrefix(f.Content, "---\n") || !strings.Contains(f.Content, "\ndescription: ") {
			t.Errorf("%s has no front matter with a description", f.Path)
		}
	}
	for _, name := range []string{"skills/matrixx-tasks/SKILL.md", "commands/task-list.md", "commands/task-ready.md", "commands/cleanup-tasks.md"} {
		if !seen[name] {
			t.Errorf("no %s", name)
		}
	}
	if IsOurGuide([]byte("---\ndescription: mine\n---\nmy own command\n")) {
		t.Error("a user's file counts as ours")
	}
}

func TestSkillSnippetOnboarding(t *testing.T) {
	if !strings.HasSuffix(Skill, discipline) || !strings.HasSuffix(Snippet, discipline) {
		t.Error("the skill and the snippet must carry the same rules")
	}
	for _, rule := range []string{"Plan before you work", "Claim before you work: task-claim", "One task in_progress per agent",
		"Never batch completions", "Waves for parallelism", "Reading blockedBy", "anchored to the line ids"} {
		if !strings.Contains(discipline, rule) {
			t.Errorf("the rules lack %q", rule)
		}
	}
	if n := strings.Count(Onboarding, "\n") + 1; n > 5 {
		t.Errorf("the onboarding is %d lines, want a few", n)
	}
}

func TestNotepadContext(t *testing.T) {
	one := notepadContext([]string{"for T-1 (A): .matrixx/notepads/adhoc/0-a.md"})
	if !strings.HasPrefix(one, "matrixx notepad for T-1 (A): .matrixx/notepads/adhoc/0-a.md\n") {
		t.Errorf("one: %q", one)
	}
	var many []string
	for i := 0; i < 12; i++ {
		many = append(many, "for T-x (s): p")
	}
	got := notepadContext(many)
	if strings.Count(got, "\n- for T-x") != maxSummary || !strings.Contains(got, "… and 2 more") {
		t.Errorf("many: %q", got)
	}
}
