package plan

import (
	"strings"
)

// Template returns the content plan create writes when it gets no
// markdown: a title from the name, the numbered items that count toward
// progress and become tasks, and the meta checklist that does not.
func Template(name string) []byte {
	words := strings.Split(name, "-")
	if len(words) > 0 && words[0] != "" {
		words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
	}
	title := strings.Join(words, " ")
	return []byte(`# ` + title + `

What this plan achieves, and why, in a few sentences.

## Tasks

Numbered checkbox items are the work: they count toward progress and
"plan tasks ` + name + ` | task-create" files one task per open item.

1. [ ] First step
2. [ ] Second step
3. [ ] Third step

## Definition of done

Bullets are meta items: they do not count toward progress.

- [ ] Every numbered item is checked
- [ ] Tests pass
`)
}
