package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes a temporary project with a task, a plan, a notepad, a
// symlink to a task file and one to the task store, and a .git
// directory; ignore, when set, is its .gitignore.
func project(t *testing.T, ignore string) string {
	t.Helper()
	proj := t.TempDir()
	for _, d := range []string{".git", ".matrixx/tasks", ".matrixx/plans", ".matrixx/notepads/adhoc", ".matrixx/state", "src"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		".matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json": "{}",
		".matrixx/plans/auth-refresh.md":                             "# Plan\n",
		".matrixx/notepads/adhoc/1-x.md":                             "x\n",
		".matrixx/matrixx.jsonc":                                     "{}\n",
		"src/app.go":                                                 "package app\n",
		"README.md":                                                  "# x\n",
	} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ignore != "" {
		if err := os.WriteFile(filepath.Join(proj, ".gitignore"), []byte(ignore), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json", filepath.Join(proj, "tlink")); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
	if err := os.Symlink(".matrixx/tasks", filepath.Join(proj, "tdir")); err != nil {
		t.Fatal(err)
	}
	return proj
}

// TestWholeTree: commands that walk a tree reach the stores below their
// starting directory when their tests can select a store file (finding
// 4); a walk that cannot (by name, prune, depth, hidden directories) is
// allowed.
func TestWholeTree(t *testing.T) {
	proj := project(t, "")
	// A backup holding another store, and directories a cleanup removes.
	for _, d := range []string{"backup/.matrixx/tasks", "src/__pycache__", "build", "node_modules/x"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "backup/.matrixx/tasks/T-1.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A snapshot of the project outside it (cp -a . /tmp/snap): @SNAP@
	// in a command stands for it.
	snap := t.TempDir()
	for _, d := range []string{".matrixx/tasks", ".matrixx/plans", "src"} {
		if err := os.MkdirAll(filepath.Join(snap, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".matrixx/tasks/T-9.json", ".matrixx/plans/old.md", "src/app.go"} {
		if err := os.WriteFile(filepath.Join(snap, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, c := range []struct {
		cmd  string
		deny bool
		want string // in the reason
	}{
		{`find . -name "T-*.json" -delete`, true, ""},
		{`find . -type f -name "T-*" -exec rm {} +`, true, ""},
		{`find . -name '*.md' -exec sed -i s/foo/bar/ {} +`, true, ""},
		{`find . -iname '*.MD' -exec sed -i s/foo/bar/ {} \;`, true, ""},
		{`find . -name matrixx.jsonc -exec sed -i s/a/b/ {} +`, true, ""},
		{`find . -delete`, true, ""},
		{`find "$PWD" -name '*.json' -delete`, true, ""},
		{`find . -name '*.md' | xargs sed -i s/foo/bar/`, true, ""},
		{`find . -type f -print0 | xargs -0 chmod 600`, true, ""},
		{`find . -name '*.go' -exec sed -i s/foo/bar/ {} +`, false, ""},
		{`find . -path ./.matrixx -prune -o -name '*.md' -exec sed -i s/foo/bar/ {} +`, false, ""},
		// -delete turns on -depth, under which -prune does nothing: BSD
		// find deletes the plan, GNU find refuses to run.
		{`find . -path '*/.matrixx' -prune -o -name '*.md' -delete`, true, ""},
		{`find . -name .matrixx -prune -o -name '*.md' -delete`, true, ""},
		{`find . -depth -path ./.matrixx -prune -o -name '*.md' -exec sed -i s/a/b/ {} +`, true, ""},
		{`find . -not -path './.matrixx/*' -name '*.md' -delete`, false, ""},
		{`find . -maxdepth 2 -name '*.md' -delete`, false, ""},
		{`find src -name '*.md' -delete`, false, ""},
		{`find . -name '*.md' | xargs grep -l foo`, false, ""},
		{`find . -name '*.md'`, false, ""},
		{`grep -rl foo . | xargs sed -i s/a/b/`, true, ""},
		{`sed -i s/a/b/ $(grep -rl foo .)`, true, ""},
		{`grep -Rl foo | xargs -I{} sed -i s/a/b/ {}`, true, ""},
		{`grep -rl foo --include='*.md' . | xargs sed -i s/a/b/`, true, ""},
		{`grep -rl foo --include='*.go' . | xargs sed -i s/a/b/`, false, ""},
		{`grep -rl foo --exclude-dir=.matrixx . | xargs sed -i s/a/b/`, false, ""},
		{`grep -rl foo src | xargs sed -i s/a/b/`, false, ""},
		{`grep -rl foo . | xargs cat`, false, ""},
		{`grep -rn foo .`, false, ""},
		{`rg -l foo | xargs sed -i s/a/b/`, false, ""}, // rg skips hidden directories
		{`rg -l --hidden foo | xargs sed -i s/a/b/`, true, ""},
		{`fd -e md -x sed -i s/a/b/`, false, ""},
		{`fd -H -e md -x sed -i s/a/b/`, true, ""},
		{`rm -rf .`, true, ""},
		{`rm -rf src/* build/*`, false, ""},         // the globs do not match .matrixx
		{`rm -rf ./*`, true, "by hand"},             // ./backup holds a copy of a store
		{`chmod -R go-w .matrixx/plans`, false, ""}, // the owner keeps rwx
		{`rm -rf src`, false, ""},
		{`rm tlink`, false, ""},        // removes the link, not the task
		{`unlink tlink`, false, ""},    // likewise
		{`mv tlink /tmp/x`, false, ""}, // moves the link
		{`rm tdir`, false, ""},
		{`rm -rf tdir/`, true, ""}, // through the link into the store
		{`echo x > tlink`, true, ""},
		{`sed -i s/a/b/ tlink`, true, ""},
		{`cd tdir && rm T-2a200c59-1a36-4dad-a9c3-3064d180f694.json`, true, ""},
		// find hands -exec and -delete what its tests select, the start
		// point included only when they select it too.
		{`find . -name __pycache__ -exec rm -rf {} +`, false, ""},
		{`find . -type d -name __pycache__ -exec rm -rf {} +`, false, ""},
		{`find . -type d -name node_modules -prune -exec rm -rf '{}' +`, false, ""},
		{`find . -maxdepth 1 -name build -exec rm -rf {} +`, false, ""},
		{`find . -mindepth 1 -maxdepth 1 ! -name .matrixx ! -name backup -exec rm -rf {} +`, false, ""},
		// ./backup holds a store (fourth report: entries holding one).
		{`find . -mindepth 1 -maxdepth 1 ! -name .matrixx -exec rm -rf {} +`, true, "by hand"},
		{`find . -maxdepth 1 -exec rm -rf {} +`, true, ""}, // ./.matrixx at depth 1
		{`find . -name tasks -exec rm -rf {} +`, true, ""},
		{`find . -type d -exec rm -rf {} +`, true, ""},
		{`find . ! -name .matrixx -exec rm -rf {} +`, true, ""}, // "." itself
		{`find . \( -name '*.md' -o -name '*.json' \) -exec sed -i s/a/b/ {} +`, true, ""},
		{`find . -type f -exec chmod +x {} +`, false, ""},
		{`find . -type f -exec chmod 600 {} +`, false, ""}, // files only: the owner keeps rw (fifth report)
		{`find . -type f -exec chmod 400 {} +`, true, ""},
		{`find . -name '*.md' -exec grep -l foo {} + | xargs sed -i s/a/b/`, true, ""},
		{`find . -path ./.matrixx -prune -o -name '*.md' -print | xargs sed -i s/a/b/`, false, ""},
		{`find . -name '*.md' -print0 | xargs -0 sed -i s/a/b/`, true, ""},
		{"find . " + strings.Repeat("! ", 80) + "-delete", true, ""}, // too deep to read: anything
		// -delete removes a directory only once it is empty (rmdir).
		{`find . -type d -empty -delete`, false, ""},
		{`find . -type d -delete`, false, ""},
		{`find . -type d -name tasks -delete`, false, ""},
		{`find . -type f -empty -delete`, false, ""},
		{`find . -empty -delete`, false, ""},
		{`find . -type f -newer src/app.go -delete`, true, ""},
		{`find tdir -name '*.json' -delete`, false, ""}, // the link itself is not entered
		{`find -L tdir -name '*.json' -delete`, true, ""},
		{`find -H tdir -type f -exec rm {} +`, true, ""},
		// rsync --delete empties what it fills of all the source lacks.
		{`rsync -a --delete /tmp/empty/ ./`, true, ""},
		{`rsync -a --del /tmp/empty/ .`, true, ""},
		{`rsync -a --delete-after /tmp/empty/ "$PWD"`, true, ""},
		{`rsync -avz --delete host:proj/ ./`, true, ""},
		{`rsync -a --delete --exclude .matrixx /tmp/empty/ ./`, false, ""},
		{`rsync -a --delete --exclude=/.matrixx/ /tmp/empty/ ./`, false, ""},
		{`rsync -a --delete --filter='P .matrixx' /tmp/empty/ ./`, false, ""},
		{`rsync -a --delete -f '- .matrixx/***' /tmp/empty/ ./`, false, ""},
		{`rsync -a --delete --delete-excluded --exclude .matrixx /tmp/empty/ ./`, true, ""},
		{`rsync -a --delete --include='*' --exclude .matrixx /tmp/empty/ ./`, true, ""},
		{`rsync -a --delete --exclude-from=keep.txt /tmp/empty/ ./`, true, ""},
		{`rsync -a --delete --exclude tasks /tmp/empty/ ./`, true, ""}, // the plans go
		{`rsync -a --delete /tmp/dist/ build/`, false, ""},
		{`rsync -a --delete ./ host:/backup/`, false, ""},
		// A recursive copy whose source holds a store fills the store
		// it lands on.
		{`rsync -a backup/ ./`, true, ""},
		{`cp -r backup/. .`, true, ""},
		{`cp -r backup/.matrixx .`, true, ""},
		{`rsync -a --exclude .matrixx backup/ ./`, false, ""},
		{`cp -a . /nonexistent-guard-test/snapshot`, false, ""},
		{`cp -r src/. build/`, false, ""},
		// Adding permissions cannot hurt a store; taking them can.
		{`chmod -R u+w .`, false, ""},
		{`chmod -R a+rX,u+w .`, false, ""},
		{`chmod -R u=rwX .`, false, ""},
		{`chmod -R 755 .`, false, ""},
		{`chmod -R -w .`, true, ""},
		{`chown -R me:me .`, true, ""},
		{`mkdir -p .matrixx/tasks .matrixx/plans`, false, ""},
		{`mkdir -p .matrixx/tasks/sub`, true, ""},
		{`mkdir tdir/sub`, true, ""},
		{`git clean -fd`, true, ""}, // .matrixx is untracked and not ignored
		{`git clean -fdX`, false, ""},
		{`git clean -fdx`, true, ""},
		{`git clean -nfdx`, false, ""},
		{`git clean -fd -e .matrixx`, false, ""},
		{`cd src && git clean -fd :/`, true, ""},

		// Second tester's report.
		// git stash -u / -a stash an untracked (-a: also an ignored)
		// .matrixx away, unless a pathspec leaves it out.
		{`git stash -u`, true, "git stash"},
		{`git stash push -u`, true, ""},
		{`git stash --include-untracked`, true, ""},
		{`git stash save -u`, true, ""},
		{`git stash save --include-untracked wip`, true, ""},
		{`git stash push -ku -m wip`, true, ""},
		{`git stash --all`, true, ""},
		{`cd src && git stash -u`, true, ""}, // the whole work tree
		{`git stash push -u -- ':!.matrixx/plans'`, true, ""},
		{`git stash push -u -- '*.json'`, true, ""},
		{`git stash save -u -- src`, true, ""}, // save: "-- src" is the message
		{`git stash push -u -- src/`, false, ""},
		{`git stash push -u -- ':!.matrixx'`, false, ""},
		{`git stash push -u -- ':(exclude).matrixx'`, false, ""},
		{`git stash push --include-untracked -- ':^.matrixx/'`, false, ""},
		{`git stash -u -- src README.md`, false, ""},
		{`cd src && git stash push -u -- .`, false, ""},
		{`git stash`, false, ""}, // tracked files only (the documented limit)
		{`git stash -k -m wip`, false, ""},
		{`git stash -p -u`, false, ""}, // git refuses --patch with -u
		{`git stash pop`, false, ""},
		{`git stash list`, false, ""},
		// git clean -e: a pattern keeps only what it matches; "!" keeps
		// nothing; -X removes what -e makes ignored.
		{`git clean -fd -e '!.matrixx'`, true, ""},
		{`git clean -fdx -e .matrixx/plans`, true, ".matrixx/tasks"},
		{`git clean -fdX -e .matrixx`, true, ""},
		{`git clean -fdX -e .matrixx/plans`, true, ""},
		{`git clean -fd -e tasks`, true, ""},
		{`git clean -fdx -e .matrixx/`, false, ""},
		{`git clean -fdx -e /.matrixx`, false, ""},
		{`git clean -fd -e '.m*'`, false, ""},
		{`git clean -fd -e .matrixx/tasks -e .matrixx/plans -e .matrixx/state -e .matrixx/matrixx.jsonc`, false, ""},
		{`git clean -fd -e '.matrixx/*'`, false, ""},
		{`git clean -fdX -e '!.matrixx'`, false, ""},
		{`cd src && git clean -fd :/ -e /.matrixx`, false, ""},
		// Copies onto the project: source globs are expanded against the
		// disk, -T copies the source's contents into the destination.
		{`cp -a @SNAP@/.matrix* .`, true, "task-"},
		{`cp -a @SNAP@/* @SNAP@/.[!.]* .`, true, ""},
		{`cp -aT @SNAP@ .`, true, ""},
		{`cp -a --no-target-directory @SNAP@ "$PWD"`, true, ""},
		{`cp -a @SNAP@/. .`, true, ""},
		{`shopt -s dotglob; cp -a @SNAP@/* .`, true, ""},
		{`rsync -a @SNAP@/.m* ./`, true, ""},
		{`cp -r @SNAP@/.matrixx/t* .matrixx/`, true, ""},
		{`cp -a @SNAP@/* .`, false, ""}, // "*" does not match .matrixx
		{`cp -r @SNAP@/src/* src/`, false, ""},
		{`cp -aT @SNAP@/src src`, false, ""},
		{`cp -a @SNAP@/.matrix* /nonexistent-guard-test/x`, false, ""},
		// find: a prune over parenthesised alternatives prunes each.
		{`find . \( -path ./.git -o -path ./.matrixx \) -prune -o -type f -name '*.orig' -exec rm {} +`, false, ""},
		{`find . \( -path ./.git -o -path ./.matrixx \) -prune -o -type f -name '*.md' -exec rm {} \;`, false, ""},
		{`find . \( -name .git -o -name .matrixx \) -prune -o -name '*.json' -delete`, true, ""}, // -delete: no prune
		{`find . \( -path ./.git -o -name node_modules \) -prune -o -type f -name '*.json' -exec rm {} +`, true, ""},
		{`find . -path ./.git -prune -o \( -path ./.matrixx -o -name '*.json' \) -exec rm -rf {} +`, true, ""},
		// chmod: a mode that leaves the owner rwx passes; chown to the
		// user who runs the binaries passes.
		{`chmod -R 0755 .`, false, ""},
		{`chmod -R 775 .matrixx`, false, ""},
		{`chmod -R go-w .`, false, ""},
		{`chmod -R u=rwx,go=rx .`, false, ""},
		{`chmod -R 644 .`, true, ""},
		{`chmod -R 600 .matrixx`, true, ""},
		{`chmod -R 1777 .`, false, ""},
		{`chmod -R a-x .`, true, ""},
		{`chmod -R u=rw .`, true, ""},
		{`chmod -R =rx .`, true, ""},
		{`chown -R $(id -u) .`, false, ""},
		{`chown -R "$(id -u):$(id -g)" .`, false, ""},
		{`sudo chown -R $USER:$USER .`, false, ""},
		{`chown -R $(whoami) .matrixx`, false, ""},
		{`chown -R "$OWNER" .`, true, ""},
		{`chown -R root .`, true, ""},
		{`chown -R --reference=/tmp/x .`, true, ""},
		// A copy of a store elsewhere is a store: the reason says how to
		// remove it on purpose.
		{`rm -rf @SNAP@`, true, "by hand"},
		{`rm -rf backup`, true, "by hand"},
		{`rm -rf .`, true, "task-cleanup"},

		// Third tester's report.
		// git worktree remove deletes the worktree's directory, its own
		// store included: judged like rm -rf of it.
		{`git worktree remove backup`, true, "worktree"},
		{`git worktree remove --force backup`, true, "by hand"},
		{`git worktree remove -f -f ./backup`, true, ""},
		{`git -C src worktree remove --force ../backup`, true, ""},
		{`git worktree remove --force .`, true, "task-cleanup"},
		{`git worktree remove build`, false, ""},
		{`git worktree remove -f node_modules`, false, ""},
		// ls feeding a command hands on the entries it lists: those
		// starting with a dot with -a/-A; a filter keeps them.
		{`rm -rf $(ls -A)`, true, "task-cleanup"},
		{`rm -rf $(ls -a)`, true, ""},
		{"rm -rf `ls -A .`", true, ""},
		{`ls -a | grep matrixx | xargs rm -rf`, true, ""},
		{`ls -A | grep -v x | xargs -I{} rm -rf {}`, true, ""},
		{`for f in $(ls -A); do rm -rf "$f"; done`, true, ""},
		{`rm -rf $(ls -d .m*)`, true, ""},
		{`rm -rf $(ls)`, true, "by hand"}, // backup holds a store
		{`ls | xargs rm -rf`, true, ""},
		{`rm -rf $(ls -d build*)`, false, ""},
		{`rm -rf $(ls -d node_modules build)`, false, ""},
		{`rm -rf $(ls src)`, false, ""},
		{`ls -A src | xargs rm -f`, false, ""},
		{`ls -a | wc -l`, false, ""},
		{`ls -A | grep -c matrixx`, false, ""},
		{`cd src && rm -rf $(ls -A)`, false, ""},
		// git clean and git stash -u: the guard cannot know what git
		// tracks, and says so.
		{`git clean -fd`, true, "if git does not track it"},
		{`git clean -fdx`, true, "the guard cannot tell"},
		{`git stash -u`, true, "if git does not track it"},
	} {
		cmd := strings.ReplaceAll(c.cmd, "@SNAP@", snap)
		d := check(Request{Tool: "Bash", Cwd: proj, Command: cmd, Home: "/nonexistent-guard-test/home"})
		if d.Deny != c.deny || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%q: deny = %v, want %v (%s)", c.cmd, d.Deny, c.deny, d.Reason)
		}
		n++
	}
	n += siblingRows(t)
	n += fifthRows(t)
	t.Logf("whole tree: %d commands", n)
}

// siblingRows: a workspace holding a project and a sibling directory
// (fourth report). A listing or a walk from the sibling, from the
// workspace or from the project's parent hands on the project's
// directory, which holds its store, as the name the consumer joins with
// a prefix (ls .. | xargs -I{} rm -rf ../{}).
func siblingRows(t *testing.T) int {
	ws := t.TempDir()
	for _, d := range []string{"proj/.matrixx/tasks", "proj/src", "proj/build", "other/src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "proj/.matrixx/tasks/T-1.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range []struct {
		cwd  string // below ws
		cmd  string // @WS@ stands for ws
		deny bool
	}{
		// ls: an entry holding a store flows as its bare name.
		{"other", `ls .. | xargs -I{} rm -rf ../{}`, true},
		{"other", `ls @WS@ | xargs -I{} rm -rf @WS@/{}`, true},
		{"other", `for d in $(ls ..); do rm -rf ../$d; done`, true},
		{"other", `ls .. | while read d; do rm -rf "../$d"; done`, true},
		{"proj", `ls .. | grep proj | xargs -I{} rm -rf ../{}`, true},
		{"", `ls . | xargs -I{} rm -rf ./{}`, true},
		{"", `ls | xargs -I{} rm -rf {}`, true},
		{"other", `rm -rf $(ls -d ../*)`, true},
		{"other", `echo proj | xargs -I{} rm -rf ../{}`, true},
		{"other", `ls .. | xargs -I{} du -sh ../{}`, false},
		{"other", `ls .. | xargs -I{} rm -rf ../other/{}`, false},
		{"other", `for d in $(ls ..); do echo ../$d; done`, false},
		{"other", `ls ../proj | xargs -I{} rm -rf ../proj/{}`, false},
		{"other", `ls -A ../proj | xargs -I{} rm -rf ../proj/{}`, true},
		{"other", `ls src | xargs -I{} rm -rf src/{}`, false},
		// GNU parallel reads its arguments from stdin like xargs.
		{"proj", `ls -A | parallel rm -rf`, true},
		{"proj", `find . -maxdepth 1 | parallel rm -rf`, true},
		{"other", `ls .. | parallel rm -rf ../{}`, true},
		{"proj", `ls | parallel rm -rf`, false},
		{"proj", `ls -A | parallel wc -l`, false},
		// find hands on the entries of its start that hold a store.
		{"other", `find .. -maxdepth 1 | xargs rm -rf`, true},
		{"other", `find .. -maxdepth 1 -type d -exec rm -rf {} +`, true},
		{"other", `find .. -mindepth 1 -maxdepth 1 -print0 | xargs -0 rm -rf`, true},
		{"", `find . -maxdepth 1 -type d -exec rm -rf {} +`, true},
		{"proj", `find . -maxdepth 0 | xargs rm -rf`, true},
		{"other", `find .. -maxdepth 1 -name 'oth*' | xargs rm -rf`, false},
		{"other", `find .. -maxdepth 1 -type d | xargs du -sh`, false},
		{"other", `find .. -mindepth 2 -maxdepth 2 -name build | xargs rm -rf`, false},
		{"", `find . -maxdepth 1 -type f -exec rm -f {} +`, false},
	} {
		cmd := strings.ReplaceAll(c.cmd, "@WS@", ws)
		d := check(Request{Tool: "Bash", Cwd: filepath.Join(ws, c.cwd), Command: cmd, Home: "/nonexistent-guard-test/home"})
		if d.Deny != c.deny {
			t.Errorf("in %s: %q: deny = %v, want %v (%s)", c.cwd, c.cmd, d.Deny, c.deny, d.Reason)
		}
		n++
	}
	return n
}

// TestDotGlob: under dotglob (shopt -s dotglob, a GLOBIGNORE with a value,
// zsh's globdots, bash -O dotglob) "*" matches .matrixx; extglob and zsh
// qualifiers that match dot names do too (second tester's report).
func TestDotGlob(t *testing.T) {
	proj := project(t, "")
	for _, d := range []string{"build/x", "node_modules/x"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		cmd  string
		deny bool
		want string // in the reason
	}{
		{`shopt -s dotglob; rm -rf *`, true, "the .matrixx directory"},
		{`shopt -s nullglob dotglob && rm -rf ./*`, true, ""},
		{`GLOBIGNORE=.; rm -rf *`, true, ""},
		{`export GLOBIGNORE=.:..; rm -rf *`, true, ""},
		{`bash -O dotglob -c 'rm -rf *'`, true, ""},
		{`setopt globdots; rm -rf *`, true, ""},
		{`setopt GLOB_DOTS; rm -rf *`, true, ""},
		{`rm -rf *(D)`, true, ""},              // zsh's glob qualifier
		{`rm -rf @(.matrixx|build)`, true, ""}, // extglob: a "." alternative
		{`GLOBIGNORE=. rm -rf *`, false, ""},   // bash expands before the assignment
		{`GLOBIGNORE=; rm -rf *`, false, ""},   // empty: dotglob unchanged
		{`shopt -s dotglob; shopt -u dotglob; rm -rf *`, false, ""},
		{`GLOBIGNORE=.; unset GLOBIGNORE; rm -rf *`, false, ""},
		{`setopt globdots; unsetopt globdots; rm -rf *`, false, ""},
		{`(shopt -s dotglob); rm -rf *`, false, ""},
		{`shopt -s dotglob; rm -rf src/*`, false, ""},
		{`shopt -s dotglob; mv build/* node_modules/`, false, ""},
		{`rm -rf @(build|node_modules)`, false, ""},
		{`rm -rf *`, false, ""},
		{`rm -rf .[!.]*`, true, ""},
		{`shopt -s dotglob; rm -rf "$PWD"/*`, true, ""},
		{`shopt -s extglob dotglob; rm -rf !(src)`, true, ""},
		{`rm -rf ?(.matrixx)`, true, ""},
		{`rm -rf +(.m*)`, true, ""},
		{`shopt -s dotglob; cd build && rm -rf *`, false, ""},
		{`shopt -s dotglob; cp -r build/* /tmp/out/`, false, ""},
	} {
		d := check(Request{Tool: "Bash", Cwd: proj, Command: c.cmd, Home: "/nonexistent-guard-test/home"})
		if d.Deny != c.deny || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%q: deny = %v, want %v (%s)", c.cmd, d.Deny, c.deny, d.Reason)
		}
	}
}

// TestGitCleanIgnored: plain git clean never deletes ignored files, so a
// gitignored .matrixx survives it; -x and -X reach it.
func TestGitCleanIgnored(t *testing.T) {
	for _, ignore := range []string{".matrixx\n", "/.matrixx/\n", "node_modules\n**/.matrixx\n"} {
		proj := project(t, ignore)
		for _, c := range []struct {
			cmd  string
			deny bool
			want string
		}{
			{"git clean -fd", false, ""},
			{"git clean -ffd .", false, ""},
			{"git clean -fdx", true, "-e .matrixx"},
			{"git clean -fdX", true, "Drop -X"},
			{"git clean -fdX -e .matrixx", true, ""}, // -e adds to what -X deletes
			{"git clean -fd -e '!.matrixx'", true, ""},
			{"git clean -fdX -e '!.matrixx'", false, ""}, // no longer ignored
			{"git clean -fdx -e .matrixx", false, ""},
			{"git stash -u", false, ""}, // -u leaves ignored files
			{"git stash -a", true, "git stash -a"},
			{"git stash --all -- src", false, ""},
		} {
			d := check(Request{Tool: "Bash", Cwd: proj, Command: c.cmd})
			if d.Deny != c.deny || !strings.Contains(d.Reason, c.want) {
				t.Errorf("ignore %q: %q: deny = %v, want %v (%s)", ignore, c.cmd, d.Deny, c.deny, d.Reason)
			}
		}
	}
	// A later "!" line un-ignores it.
	proj := project(t, ".matrixx/\n!.matrixx/\n")
	if d := check(Request{Tool: "Bash", Cwd: proj, Command: "git clean -fd"}); !d.Deny {
		t.Errorf("un-ignored .matrixx: git clean -fd allowed")
	}
	// The ignore rules keep what they match, by gitignore's rules.
	for _, c := range []struct {
		ignore string
		deny   bool
	}{
		{".matrixx/*\n", false},
		{"*\n!.gitignore\n", false},
		{".*\n", false},
		{".matrix?\n", false},
		{"tasks\nplans\nstate\nmatrixx.jsonc\n", false}, // the notepads go
		{".matrixx\n!.matrixx/tasks\n", false},          // not under an ignored directory
		{".matrixx/tasks/\n", true},                     // the plans go
		{"/tasks\n", true},                              // the top's tasks only
		{"# .matrixx\n", true},
		{"\\!.matrixx\n", true},
	} {
		proj := project(t, c.ignore)
		if d := check(Request{Tool: "Bash", Cwd: proj, Command: "git clean -fd"}); d.Deny != c.deny {
			t.Errorf("ignore %q: git clean -fd: deny = %v, want %v (%s)", c.ignore, d.Deny, c.deny, d.Reason)
		}
	}
	// Ignore rules too many to judge within the walk budget: what git
	// may delete counts as deleted (here it would keep the stores).
	proj = project(t, strings.Repeat("x\n", 450000)+".matrixx/*\n")
	if d := check(Request{Tool: "Bash", Cwd: proj, Command: "git clean -fd -e '.matrixx/*'"}); d.Deny {
		t.Errorf("-e .matrixx/*: %s", d.Reason)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".git/info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".git/info/exclude"), []byte(strings.Repeat("y\n", 450000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, e := analyse(Request{Tool: "Bash", Cwd: proj, Command: "git clean -fd"}); !d.Deny || e.judged <= maxJudged {
		t.Errorf("huge .gitignore: deny = %v, judged %d (%s)", d.Deny, e.judged, d.Reason)
	}
}

// TestConfigAndState: the config files the dispatcher lists (Config) and
// the hooks' state (State) are guarded through every channel; reads stay
// allowed; the directory of a user config file is guarded like .matrixx.
func TestConfigAndState(t *testing.T) {
	const cwd = "/home/dev/proj"
	cfg := []string{cwd + "/.matrixx/matrixx.jsonc", cwd + "/.matrixx/matrixx.json",
		"/home/dev/cfg/oc/matrixx.jsonc", "/home/dev/cfg/oc/matrixx.json"}
	state := []string{cwd + "/.matrixx/state"}
	for _, c := range []struct {
		req  Request
		deny bool
		want string
	}{
		{Request{Tool: "Bash", Command: `echo '{"disabled_hooks":["task-edit-guard"]}' > /home/dev/cfg/oc/matrixx.jsonc`}, true, "user's to edit"},
		{Request{Tool: "Bash", Command: `cd ~/cfg/oc && echo '{}' > matrixx.json`}, true, "user's to edit"},
		{Request{Tool: "Bash", Command: `cp /tmp/x.jsonc ~/cfg/oc/matrixx.jsonc`}, true, ""},
		{Request{Tool: "Bash", Command: `tar -xf /tmp/cfg.tar -C ~/cfg/oc`}, true, "directory of the user's matrixx config"},
		{Request{Tool: "Bash", Command: `rsync -a /tmp/cfg/ ~/cfg/oc/`}, true, ""},
		{Request{Tool: "Bash", Command: `python3 -c "open('/home/dev/cfg/oc/matrixx.jsonc','w').write('{}')"`}, true, ""},
		{Request{Tool: "Bash", Command: `cat ~/cfg/oc/matrixx.jsonc`}, false, ""},
		{Request{Tool: "Bash", Command: `echo x > ~/cfg/oc/notes.txt`}, false, ""},
		{Request{Tool: "Bash", Command: `rm -f .matrixx/state/*`}, true, "leave it to the hooks"},
		{Request{Tool: "Write", Paths: paths("file_path", "/home/dev/cfg/oc/matrixx.jsonc")}, true, "user's to edit"},
		{Request{Tool: "mcp__fs__move_file", Paths: map[string][]string{"source": {"/tmp/x"}, "destination": {"/home/dev/cfg/oc/matrixx.json"}}}, true, ""},
		{Request{Tool: "Read", Paths: paths("file_path", "/home/dev/cfg/oc/matrixx.jsonc")}, false, ""},
		{Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/notepads/adhoc/1-x.md")}, false, ""},
	} {
		c.req.Cwd, c.req.Home, c.req.Config, c.req.State = cwd, "/home/dev", cfg, state
		d := check(c.req)
		if d.Deny != c.deny || !strings.Contains(d.Reason, c.want) {
			t.Errorf("%s %q %v: deny = %v, want %v (%s)", c.req.Tool, c.req.Command, c.req.Paths, d.Deny, c.deny, d.Reason)
		}
	}
}

func TestDivergence(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"ls # x \\\nrm y", "comment"},
		{"ls;#\\\nrm y", "comment"},
		{"(ls #\\\nrm y)", "comment"},
		{"ls\r\nrm y", "carriage return"},
		{"cat <<EOF\nEO\\\nF\nrm y\nEOF", "here-document"},
		{"cat <<-EOF\n\tx \\\n\tEOF\nrm y\nEOF", "here-document"},
		{"cat <<'EOF'\nEO\\\nF\nEOF", ""},
		{"cat <<\\EOF\nEO\\\nF\nEOF", ""},
		{"echo a#b \\\n  c", ""},
		{"echo '#' \\\n  c", ""},
		{"ls \\\n  -la # ok", ""},
		{"cat <<EOF\nx\nEOF\necho a \\\n b", ""},
		{"echo ${#x} \\\n y", ""},
	} {
		f, zsh, err := parseAs(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := divergence(c.src, f, zsh); !strings.Contains(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("divergence(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestShellMatch(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		fold   bool
		want   bool
	}{
		{"*.md", "auth.md", false, true},
		{"*.md", ".hidden.md", false, true}, // find -name: "*" matches a leading dot
		{"*.md", "a.go", false, false},
		{"T-*", "T-1.json", false, true},
		{"./.matrixx", "./.matrixx", false, true},
		{"*/.matrixx", "./a/.matrixx", false, true}, // "*" matches "/"
		{"./.matrixx/*", "./.matrixx/tasks/T-1.json", false, true},
		{"[!.]*", ".matrixx", false, false},
		{"[a-c]x", "bx", false, true},
		{"[^a-c]x", "bx", false, false},
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"*.MD", "a.md", true, true},
		{"*.MD", "a.md", false, false},
		{"a?c", "abc", false, true},
		{"[", "[", false, true},
		{"", "", false, true},
		{"*", "", false, true},
	} {
		if got := shellMatch(c.pat, c.s, c.fold); got != c.want {
			t.Errorf("shellMatch(%q, %q, %v) = %v, want %v", c.pat, c.s, c.fold, got, c.want)
		}
	}
}

func TestParamOps(t *testing.T) {
	for _, c := range []struct {
		cmd, want string
	}{
		{`p=a/b/c.json; echo ${p##*/}`, "c.json"},
		{`p=a/b/c.json; echo ${p#*/}`, "b/c.json"},
		{`p=a/b/c.json; echo ${p%/*}`, "a/b"},
		{`p=a/b/c.json; echo ${p%%/*}`, "a"},
		{`p=a.b.c; echo ${p/./-}`, "a-b.c"},
		{`p=a.b.c; echo ${p//./-}`, "a-b-c"},
		{`p=abc; echo ${p/#a/x}`, "xbc"},
		{`p=abc; echo ${p/%c/x}`, "abx"},
		{`p=abcdef; echo ${p:2}`, "cdef"},
		{`p=abcdef; echo ${p:1:2}`, "bc"},
		{`p=abcdef; echo ${p: -2}`, "ef"},
		{`p=abcdef; echo ${p:1:-2}`, "bcd"},
		{`p=abc; echo ${p^^}`, "abc"},
		{`echo {a..c}`, "a b c"},
		{`echo {1..7..3}`, "1 4 7"},
		{`echo {03..1}`, "03 02 01"},
	} {
		e := newEnv(Request{Cwd: testCwd, Home: "/h"})
		var d Decision
		s := &shell{e: e, verdict: &d, cwd: e.cwd, outKnown: true}
		s.script(c.cmd, nil)
		if got := strings.TrimSpace(s.out); got != c.want {
			t.Errorf("%s: output %q, want %q", c.cmd, got, c.want)
		}
	}
}

// fifthRows: the fifth report. A monorepo with an untracked store at
// its top (git clean with a positive and an exclude pathspec), and a
// workspace of sibling repositories whose store lies two levels below it
// (loop variables reaching git -C and cd; find naming .matrixx).
func fifthRows(t *testing.T) int {
	mono, ws := t.TempDir(), t.TempDir()
	for _, d := range []string{mono + "/.git", mono + "/.matrixx/tasks", mono + "/.matrixx/plans", mono + "/packages/app",
		ws + "/api/.git", ws + "/api/.matrixx/tasks", ws + "/api/src", ws + "/web/.git", ws + "/web/src"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{mono + "/.matrixx/tasks/.legacy-migrated", mono + "/.matrixx/tasks/T-1.json",
		mono + "/packages/app/main.go", ws + "/api/.matrixx/tasks/T-1.json", ws + "/api/src/a.go", ws + "/web/src/b.go"} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, c := range []struct {
		cwd  string
		cmd  string
		deny bool
		want string // in the reason
	}{
		// 1. a positive pathspec with an exclusion: git takes what some
		// positive one matches and no exclusion does.
		{mono, `git clean -fd -- . ':!.matrixx'`, false, ""},
		{mono, `git clean -fdx -- . ':(exclude).matrixx'`, false, ""},
		{mono, `git clean -fd -- . ':^.matrixx/tasks' ':^.matrixx/plans'`, false, ""},
		{mono, `git clean -fd -- ':!.matrixx'`, false, ""},
		{mono, `git stash push -u -- . ':!.matrixx'`, false, ""},
		{mono, `git clean -fd -- . ':!.matrixx/plans'`, true, ".matrixx/tasks/"},
		{mono, `git clean -fd -- ':!packages'`, true, ""},
		{mono, `git clean -fd -- . ':!packages'`, true, ""},
		{mono + "/packages", `git clean -fd -- :/ ':!.matrixx'`, true, ""},
		{mono + "/packages", `git clean -fd -- ':/' ':/!.matrixx'`, false, ""},
		{mono + "/packages", `git clean -fd -- ':(top)' ':(exclude,top).matrixx'`, false, ""},
		{mono + "/packages", `git clean -fd -- .. ':!../.matrixx'`, false, ""},
		{mono + "/packages", `git clean -fd -- ..`, true, ""},
		{mono + "/packages", `git clean -fd -- . ':!app'`, false, ""},
		// 2. git -C / cd with a word of several values.
		{ws, `for d in */; do git -C "$d" clean -fdx; done`, true, ""},
		{ws, `for d in $(ls); do (cd $d && git clean -fdx); done`, true, ""},
		{ws, `for d in $(ls); do git -C $d clean -fdx; done`, true, ""},
		{ws, `for d in */; do git -C $d stash -u; done`, true, ""},
		{ws + "/web", `for d in ../*/; do git -C $d clean -fdx; done`, true, ""},
		{ws, `git -C api clean -fdx`, true, ""},
		{ws, `ls | while read d; do git -C $d clean -fdx; done`, true, ""},
		{ws, `for d in */; do rm -rf $d; done`, true, ""},
		{ws, `ls | xargs -I{} git -C {} clean -fdx`, true, ""},
		{ws, `for d in api; do git -C $d clean -fdx; done`, true, ""},
		{ws, `for d in */; do git -C "$d" clean -fdx -e .matrixx; done`, false, ""},
		{ws, `for d in */; do git -C "$d" status; done`, false, ""},
		{ws, `for d in w*/; do git -C "$d" clean -fdx; done`, false, ""},
		{ws, `for d in */; do (cd $d && git pull); done`, false, ""},
		// 3. find naming .matrixx feeding a writer.
		{ws, `find . -name .matrixx | xargs rm -rf`, true, ""},
		{ws, `find . -name .matrixx -prune -exec rm -rf {} +`, true, ""},
		// Patterns that match .matrixx without naming its dot (find's * matches a leading dot).
		{ws, `find . -name '*matrix*' -exec rm -rf {} +`, true, ""},
		{ws, `find . -name '*matrix*' | xargs rm -rf`, true, ""},
		{ws, `find . -iname '*MATRIX*' -exec rm -rf {} +`, true, ""},
		{ws, `find . -maxdepth 2 -name '*matrixx' -exec mv {} /tmp/ \;`, true, ""},
		{ws, `find . -name '*matrix*.go' -exec rm -f {} +`, false, ""},
		// A symbolic mode written like an option is still the mode.
		{mono, `find . -type f -exec chmod -x {} +`, false, ""},
		{mono, `find . -type f -exec chmod -x,go-w {} +`, false, ""},
		{mono, `find . -type f -exec chmod -w {} +`, true, ""},
		{mono, `chmod -R -x .`, true, ""},
		{ws, `find . -type d -name tasks -path '*/.matrixx/*' -exec rm -rf {} +`, true, ""},
		{ws, `find . -name '.matrixx' -type d -delete`, false, ""}, // not empty: rmdir fails
		{ws, `find . -path '*/.matrixx/*' -delete`, true, ""},
		{ws, `find . -regex '.*/\.matrixx' -exec rm -rf {} \;`, true, ""},
		{ws, `find . -path '*/.matrixx' -prune -exec rm -rf {} +`, true, ""},
		{ws, `find . -name '.matrix*' -print0 | xargs -0 rm -rf`, true, ""},
		{ws, `find . -name .matrixx -exec ls {} \;`, false, ""},
		{ws, `find . -iname '.MATRIXX' | parallel rm -rf`, true, ""},
		{ws, `find . -name .matrixx | xargs du -sh`, false, ""},
		{ws, `find . -name .matrixx`, false, ""},
		{ws, `find . -name .matrixx -prune -o -name '*.go' -exec rm {} +`, false, ""},
		{ws, `find . -name node_modules -prune -exec rm -rf {} +`, false, ""},
		// 4. chmod on files only.
		{ws + "/api", `find . -type f -exec chmod 644 {} +`, false, ""},
		{ws + "/api", `find . -type f -exec chmod u=rw,go=r {} +`, false, ""},
		{ws + "/api", `find . -type f -exec chmod 444 {} +`, true, ""},
		{ws + "/api", `find . -type d -exec chmod 644 {} +`, true, ""},
		{ws + "/api", `find . -exec chmod 644 {} +`, true, ""},
		// 5. the reason shows a clean path.
		{mono + "/packages", `ls -A .. | xargs -I{} rm -rf ../{}`, true, mono + "/.matrixx"},
	} {
		d := check(Request{Tool: "Bash", Cwd: c.cwd, Command: c.cmd, Home: "/nonexistent-guard-test/home"})
		if d.Deny != c.deny || !strings.Contains(d.Reason, c.want) || strings.Contains(d.Reason, "//") {
			t.Errorf("in %s: %q: deny = %v, want %v (%s)", c.cwd, c.cmd, d.Deny, c.deny, d.Reason)
		}
		n++
	}
	return n
}
