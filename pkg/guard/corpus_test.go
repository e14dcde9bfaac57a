package guard

import (
	"strings"
	"testing"
)

// testCwd is the event cwd of the corpus: a path that does not exist, so
// no symlink on the test machine changes a decision.
const testCwd = "/nonexistent-guard-test/proj"

// bashCase is one command of the corpus: deny says whether it must be
// refused; want, when set, must appear in the reason.
type bashCase struct {
	cmd  string
	deny bool
	want string
}

// corpus is the guard's command corpus (docs/guard.md quotes its size).
// The first block is the spec's §8.2 BLOCKED_PATTERNS family (sed,
// python3?, echo, cat >, mv, rm, cp, tee, touch, truncate, printf).
func corpus() []bashCase {
	return []bashCase{
		// §8.2 BLOCKED_PATTERNS family.
		{cmd: `sed -i 's/pending/completed/' .matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json`, deny: true, want: "task-update"},
		{cmd: `sed -i.bak 's/a/b/' .matrixx/plans/auth-refresh.md`, deny: true, want: "plan update"},
		{cmd: `python3 -c "import json;d=json.load(open('.matrixx/tasks/T-1.json'));d['status']='completed';json.dump(d,open('.matrixx/tasks/T-1.json','w'))"`, deny: true},
		{cmd: `python -c 'open(".matrixx/plans/p.md","a").write("x")'`, deny: true, want: "plan"},
		{cmd: `echo '{"status":"completed"}' > .matrixx/tasks/T-1.json`, deny: true, want: ".matrixx/tasks/T-1.json"},
		{cmd: `echo x >> .matrixx/plans/p.md`, deny: true},
		{cmd: "cat > .matrixx/plans/p.md <<'EOF'\n# Plan\n1. [ ] step\nEOF", deny: true},
		{cmd: `cat new.json > .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `mv /tmp/t.json .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `mv .matrixx/plans/a.md .matrixx/plans/b.md`, deny: true},
		{cmd: `mv .matrixx/tasks/T-1.json /tmp/`, deny: true},
		{cmd: `rm .matrixx/tasks/T-1.json`, deny: true, want: "task-cleanup"},
		{cmd: `rm -rf .matrixx/plans`, deny: true, want: "plan delete"},
		{cmd: `rm -f .matrixx/tasks/*.json`, deny: true},
		{cmd: `cp backup.json .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `cp -r backup/plans .matrixx/`, deny: true},
		{cmd: `jq '.status="completed"' .matrixx/tasks/T-1.json | tee .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `tee -a .matrixx/plans/p.md <<< "- [ ] more"`, deny: true},
		{cmd: `touch .matrixx/tasks/T-new.json`, deny: true},
		{cmd: `truncate -s 0 .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `printf '%s' '{}' > .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `printf 'x\n' >> .matrixx/plans/p.md`, deny: true},

		// Redirections.
		{cmd: `jq . x.json >| .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `make &> .matrixx/tasks/log.txt`, deny: true},
		{cmd: `go test ./... &>> .matrixx/plans/log.md`, deny: true},
		{cmd: "cat <<EOF > .matrixx/tasks/T-2.json\n{}\nEOF", deny: true},
		{cmd: `exec 3> .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `> .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo x 2> .matrixx/tasks/err.log`, deny: true},
		{cmd: `echo x >& .matrixx/tasks/out`, deny: true},
		{cmd: `cat .matrixx/tasks/T-1.json > .matrixx/tasks/T-2.json`, deny: true},

		// Mutating commands.
		{cmd: `perl -pi -e 's/pending/completed/' .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `perl -i.bak -pe 's/a/b/' .matrixx/plans/p.md`, deny: true},
		{cmd: `dd if=/dev/zero of=.matrixx/tasks/T-1.json bs=1 count=0`, deny: true},
		{cmd: `install -m 644 t.json .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `ln -s /tmp/evil.json .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `ln .matrixx/tasks/T-1.json /tmp/hard-link`, deny: true}, // a hard link shares the file
		{cmd: `cp -l .matrixx/tasks/T-1.json /tmp/hard-link`, deny: true},
		{cmd: `rsync -a backup/ .matrixx/tasks/`, deny: true},
		{cmd: `rsync -a backup/ .matrixx/`, deny: true},
		{cmd: `chmod 000 .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `mkdir -p .matrixx/plans/drafts`, deny: true},
		{cmd: `git checkout -- .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `git restore .matrixx/plans/p.md`, deny: true},
		{cmd: `git checkout HEAD~1 .matrixx/plans`, deny: true},
		{cmd: `git rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `git clean -fdx .matrixx`, deny: true},
		{cmd: `git stash push -- .matrixx/tasks`, deny: true},
		{cmd: `git -C .matrixx/tasks checkout .`, deny: true},
		{cmd: `find .matrixx/tasks -name '*.json' -delete`, deny: true},
		{cmd: `find .matrixx/tasks -type f -exec rm {} +`, deny: true},
		{cmd: `find . -path './.matrixx/tasks/*' -exec sed -i 's/a/b/' {} \;`, deny: true},
		{cmd: `find . -name '*.json' -path '*/.matrixx/tasks/*' -delete`, deny: true},
		{cmd: `ls .matrixx/tasks/*.json | xargs rm`, deny: true},
		{cmd: `find .matrixx/plans -name '*.md' -print0 | xargs -0 sed -i 's/x/y/'`, deny: true},
		{cmd: `xargs -I{} rm {} <<< ".matrixx/tasks/T-1.json"`, deny: true},
		{cmd: `cat x | sponge .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `curl -sSLo .matrixx/plans/p.md https://example.com/p.md`, deny: true},
		{cmd: `tar -xzf backup.tgz -C .matrixx`, deny: true},
		{cmd: `tar xzf backup.tgz -C .matrixx/tasks`, deny: true},
		{cmd: `unzip -o tasks.zip -d .matrixx/tasks`, deny: true},
		{cmd: `patch .matrixx/plans/p.md < fix.diff`, deny: true},
		{cmd: "patch -p1 <<'EOF'\n--- a/.matrixx/tasks/T-1.json\n+++ b/.matrixx/tasks/T-1.json\n@@ -1 +1 @@\n-a\n+b\nEOF", deny: true},
		{cmd: `yq -i '.status = "completed"' .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `prettier --write .matrixx/plans/p.md`, deny: true},
		{cmd: `sed --in-place=.orig -e 's/x/y/' .matrixx/plans/p.md`, deny: true},
		{cmd: `sed -n 'w .matrixx/tasks/T-copy.json' in.json`, deny: true},
		{cmd: `cp -t .matrixx/tasks a.json b.json`, deny: true},
		{cmd: `rm -rf .matrixx`, deny: true, want: "task-cleanup"},
		{cmd: `mv .matrixx /tmp/old-matrixx`, deny: true},

		// Nested shells, wrappers.
		{cmd: `sh -c 'echo x > .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: `bash -lc "rm -f .matrixx/plans/p.md"`, deny: true},
		{cmd: `bash -euo pipefail -c 'rm .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: `eval "rm .matrixx/tasks/T-1.json"`, deny: true},
		{cmd: `bash -c 'sh -c "touch .matrixx/tasks/x"'`, deny: true},
		{cmd: "bash <<'EOF'\nrm .matrixx/tasks/T-1.json\nEOF", deny: true},
		{cmd: `echo 'rm -rf .matrixx/plans' | sh`, deny: true},
		{cmd: `sh -c 'rm "$1"' _ .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `sudo sh -c 'echo x > .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: `env FOO=1 rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `env -C .matrixx/tasks rm T-1.json`, deny: true},
		{cmd: `env --chdir=.matrixx/plans rm p.md`, deny: true},
		{cmd: `env -S 'rm .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: `env --split-string='rm .matrixx/plans/p.md'`, deny: true},
		{cmd: `env -C src rm old.txt`},
		{cmd: `env -S 'echo hi' > /tmp/out`},
		{cmd: `timeout 10 sed -i 's/a/b/' .matrixx/plans/p.md`, deny: true},
		{cmd: `nohup rm .matrixx/tasks/T-1.json &`, deny: true},
		{cmd: `command rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `\rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `/bin/rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `trap 'rm .matrixx/tasks/T-1.json' EXIT`, deny: true},
		{cmd: `watch -n 5 'rm .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: `f(){ rm .matrixx/tasks/T-1.json; }; f`, deny: true},
		{cmd: `npx prettier --write .matrixx/plans/p.md`, deny: true},

		// Interpreters with write intent.
		{cmd: `node -e "require('fs').writeFileSync('.matrixx/tasks/T-1.json','{}')"`, deny: true},
		{cmd: `ruby -e 'File.write(".matrixx/plans/p.md", "x")'`, deny: true},
		{cmd: `perl -e 'unlink ".matrixx/tasks/T-1.json"'`, deny: true},
		{cmd: "python3 - <<'EOF'\nimport pathlib\npathlib.Path('.matrixx/tasks/T-1.json').write_text('{}')\nEOF", deny: true},
		{cmd: `python3 -c "import os,sys; os.remove(sys.argv[1])" .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `python3 -c "import shutil; shutil.rmtree('.matrixx')"`, deny: true},
		{cmd: `python3 -c "import os; open(os.path.join('.matrixx','tasks','T-1.json'),'w').write('{}')"`, deny: true},
		{cmd: `php -r 'file_put_contents(".matrixx/tasks/T-1.json", "{}");'`, deny: true},
		{cmd: `deno eval "await Deno.writeTextFile('.matrixx/plans/p.md', 'x')"`, deny: true},
		{cmd: `bun -e "await Bun.write('.matrixx/tasks/T-1.json', '{}')"`, deny: true},
		{cmd: `awk '{print > ".matrixx/tasks/T-1.json"}' in.json`, deny: true},
		{cmd: `gawk -i inplace '{sub(/pending/,"completed")}1' .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo "open('.matrixx/tasks/T-1.json','w').write('{}')" | python3`, deny: true},
		{cmd: `uv run python -c "open('.matrixx/tasks/T-1.json','w')"`, deny: true},
		{cmd: `pwsh -Command "Set-Content .matrixx/tasks/T-1.json '{}'"`, deny: true},
		{cmd: `python3 -c "$(cat <<'EOF'
open('.matrixx/plans/p.md', 'w').write('x')
EOF
)"`, deny: true},

		// Lists, subshells, substitutions, cd, variables.
		{cmd: `(cd .matrixx/tasks && rm T-1.json)`, deny: true},
		{cmd: `cd .matrixx/plans; echo x > p.md`, deny: true},
		{cmd: `cd .matrixx && rm -rf tasks`, deny: true},
		{cmd: `pushd .matrixx/tasks && rm T-1.json && popd`, deny: true},
		{cmd: `d=.matrixx/tasks; echo x > $d/T-1.json`, deny: true},
		{cmd: `f=".matrixx/plans/p.md"; sed -i 's/a/b/' "$f"`, deny: true},
		{cmd: `export D=.matrixx/tasks && rm "$D/T-1.json"`, deny: true},
		{cmd: `rm "${TASKS:-.matrixx/tasks}/T-1.json"`, deny: true},
		{cmd: `for f in .matrixx/tasks/*.json; do sed -i 's/a/b/' "$f"; done`, deny: true},
		{cmd: `true && rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `false || echo x > .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo ok; rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `ls | grep x | tee .matrixx/plans/p.md`, deny: true},
		{cmd: `echo $(rm .matrixx/tasks/T-1.json)`, deny: true},
		{cmd: `x=$(sed -i 's/a/b/' .matrixx/plans/p.md)`, deny: true},
		{cmd: `diff <(rm .matrixx/tasks/T-1.json) x`, deny: true},
		{cmd: `if [ -f .matrixx/tasks/T-1.json ]; then rm .matrixx/tasks/T-1.json; fi`, deny: true},
		{cmd: `while true; do rm .matrixx/tasks/T-1.json; break; done`, deny: true},
		{cmd: `rm $(ls .matrixx/tasks/*.json)`, deny: true},
		{cmd: `rm .matrixx/{tasks,plans}/x`, deny: true},
		{cmd: `rm .m*/tasks/T-1.json`, deny: true},
		{cmd: `rm .matrixx/task?/T-1.json`, deny: true},
		{cmd: `D=$(echo .matrixx); rm $D/tasks/T-1.json`, deny: true},
		{cmd: `echo x > $'\x2ematrixx/tasks/T-1.json'`, deny: true},
		{cmd: `read -r f <<< ".matrixx/tasks/T-1.json"; rm "$f"`, deny: true},
		{cmd: `ls .matrixx/tasks | while read f; do rm ".matrixx/tasks/$f"; done`, deny: true},
		{cmd: `rm "$X/.matrixx/tasks/T-1.json"`, deny: true},
		{cmd: `echo x > "$(git rev-parse --show-toplevel)/.matrixx/tasks/T-1.json"`, deny: true},

		// Scripts fed to a shell or an interpreter on stdin or as a
		// process substitution; loops over store paths.
		{cmd: `bash <<< 'rm .matrixx/tasks/T-1.json'`, deny: true},
		{cmd: "cat <<'EOF' | sh\nrm .matrixx/tasks/T-1.json\nEOF", deny: true},
		{cmd: `printf 'rm .matrixx/plans/p.md' | bash`, deny: true},
		{cmd: `bash <(echo 'rm .matrixx/tasks/T-1.json')`, deny: true},
		{cmd: `printf 'r\x6d .matrixx/tasks/T-1.json' | sh`, deny: true},
		{cmd: `echo -e 'r\x6d .matrixx/tasks/T-1.json' | bash`, deny: true},
		{cmd: `$'\x72m' .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `source <(echo 'rm .matrixx/tasks/T-1.json')`, deny: true},
		{cmd: `python3 <(echo "open('.matrixx/tasks/T-1.json','w')")`, deny: true},
		{cmd: `bash < <(echo 'touch .matrixx/plans/new.md')`, deny: true},
		{cmd: `while read -r f; do rm "$f"; done < <(find .matrixx/tasks -name '*.json')`, deny: true},
		{cmd: `files=(.matrixx/tasks/*.json); rm "${files[@]}"`, deny: true},
		{cmd: `ls .matrixx/tasks | xargs -I % rm .matrixx/tasks/%`, deny: true},
		{cmd: `xargs sh -c 'rm "$@"' _ < <(ls .matrixx/tasks/*)`, deny: true},
		{cmd: `sudo -u root tee .matrixx/tasks/T-1.json < x.json`, deny: true},
		{cmd: `rm -rf ./.[!.]*`, deny: true},
		{cmd: `rm -rf .*`, deny: true},

		// More store writes agents reach for.
		{cmd: `cp -a /tmp/restore/. .matrixx/tasks`, deny: true},
		{cmd: `ls -1 .matrixx/tasks | head -1 | xargs -I{} rm .matrixx/tasks/{}`, deny: true},
		{cmd: `git show HEAD:.matrixx/tasks/T-1.json > .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `python3 -c 'import pathlib; [p.unlink() for p in pathlib.Path(".matrixx/tasks").glob("*.json")]'`, deny: true},
		{cmd: `node -e 'require("fs").rmSync(".matrixx/plans", {recursive: true})'`, deny: true},
		{cmd: `ruby -i -pe 'gsub(/a/, "b")' .matrixx/plans/p.md`, deny: true},
		{cmd: `echo '{}' | tee .matrixx/tasks/T-1.json >/dev/null`, deny: true},
		{cmd: `jq . in.json > tmp && mv -f tmp ".matrixx/tasks/$ID.json"`, deny: true},
		{cmd: `install -D /dev/null .matrixx/plans/empty.md`, deny: true},
		{cmd: `: > .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `sed -i -e '/status/s/pending/completed/' .matrixx/tasks/*.json`, deny: true},
		{cmd: `dd of=.matrixx/tasks/T-1.json <<< '{}'`, deny: true},
		{cmd: `(umask 077; echo > .matrixx/tasks/x)`, deny: true},
		{cmd: `exec > .matrixx/tasks/log 2>&1`, deny: true},
		{cmd: `truncate --size=0 .matrixx/plans/p.md`, deny: true},
		{cmd: `rm -- .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `rm -r -f -- ./.matrixx/plans/`, deny: true},
		{cmd: `mv -t /tmp .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `find .matrixx -name 'T-*.json' -exec rm -f {} +`, deny: true},
		{cmd: `git -c core.x=y checkout HEAD -- .matrixx/plans/p.md`, deny: true},
		{cmd: `busybox sed -i s/a/b/ .matrixx/tasks/x`, deny: true},
		{cmd: `sh -xc 'rm .matrixx/tasks/x'`, deny: true},
		{cmd: `bash --norc -c 'rm .matrixx/tasks/x'`, deny: true},
		{cmd: `zsh -c 'rm .matrixx/tasks/x'`, deny: true},
		{cmd: `xargs rm < <(ls .matrixx/tasks/*.json)`, deny: true},
		{cmd: `cat .matrixx/tasks/T-1.json | python3 -c "import sys,json; d=json.load(sys.stdin); d['status']='completed'; open('.matrixx/tasks/T-1.json','w').write(json.dumps(d))"`, deny: true},

		// Path normalisation.
		{cmd: `echo x > .MATRIXX/Tasks/T-1.json`, deny: true},
		{cmd: `echo x > ./.matrixx//tasks/T-1.json`, deny: true},
		{cmd: `echo x > src/../.matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo x > '.matrixx\tasks\T-1.json'`, deny: true},
		{cmd: `echo x > ` + testCwd + `/.matrixx/plans/p.md`, deny: true},
		{cmd: `echo x > "$PWD/.matrixx/tasks/T-1.json"`, deny: true},
		{cmd: `echo x > $(pwd)/.matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo x > ../proj/.matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo x > /elsewhere/other-project/.matrixx/tasks/T-1.json`, deny: true},
		{cmd: `echo x > .matrixx./tasks/T-1.json`, deny: true},

		// Parse failure that clearly targets a store: fail closed.
		{cmd: `echo "unterminated > .matrixx/tasks/T-1.json`, deny: true, want: "could not be analysed"},

		// Allowed: reads, greps, our binaries, other paths.
		{cmd: `cat .matrixx/tasks/T-1.json`},
		{cmd: `cat .matrixx/plans/p.md`},
		{cmd: `cat .MATRIXX/PLANS/p.md`},
		{cmd: `grep -r pending .matrixx/tasks`},
		{cmd: `rg -n 'status' .matrixx/tasks`},
		{cmd: `ls -la .matrixx/tasks`},
		{cmd: `jq '.status' .matrixx/tasks/T-1.json`},
		{cmd: `jq -s 'map(.subject)' .matrixx/tasks/*.json`},
		{cmd: `head -n 20 .matrixx/plans/p.md`},
		{cmd: `tail -f .matrixx/tasks/T-1.json`},
		{cmd: `wc -l .matrixx/tasks/*.json`},
		{cmd: `stat .matrixx/tasks/T-1.json`},
		{cmd: `diff .matrixx/plans/a.md .matrixx/plans/b.md`},
		{cmd: `test -f .matrixx/tasks/T-1.json && echo yes`},
		{cmd: `[[ -d .matrixx/plans ]] && ls .matrixx/plans`},
		{cmd: `git commit -m "update .matrixx/tasks and .matrixx/plans"`},
		{cmd: `git commit -m "$(cat <<'EOF'
Remove stale .matrixx/tasks entries
EOF
)"`},
		{cmd: `echo "see .matrixx/plans"`},
		{cmd: `echo "rm .matrixx/tasks/x"`},
		{cmd: `echo "edit .matrixx/tasks via task-update" > notes.txt`},
		{cmd: `printf '%s\n' .matrixx/tasks/*.json`},
		{cmd: `task-update --id T-1 --status completed`},
		{cmd: `task-create --subject 'Document .matrixx/tasks' --description 'rm .matrixx/tasks/x'`},
		{cmd: `task-get T-1 < .matrixx/tasks/T-1.json`},
		{cmd: `task-cleanup --dir .matrixx/tasks`},
		{cmd: `plan read auth-refresh`},
		{cmd: `plan create auth < draft.md`},
		{cmd: "plan update auth <<'EOF'\n{\"edits\":[]}\nEOF"},
		{cmd: `./bin/plan delete .matrixx/plans/old.md`},
		{cmd: `matrixx-hook guard < event.json`},
		{cmd: `cd .matrixx/tasks && task-update --id T-1 --status completed`},
		{cmd: `task-list --status pending | jq -r '.tasks[].id' | xargs -n1 task-get`},
		{cmd: `plan tasks auth | task-create`},
		{cmd: `git status`},
		{cmd: `git diff .matrixx/plans`},
		{cmd: `git log -- .matrixx/tasks`},
		{cmd: `git add .matrixx/tasks`},
		{cmd: `git rm --cached -r .matrixx/tasks`},
		{cmd: `git checkout main`},
		{cmd: `git stash`},
		{cmd: `git -C .matrixx/tasks log`},
		{cmd: `go test ./...`},
		{cmd: `make build`},
		{cmd: `npm test`},
		{cmd: `cp .matrixx/tasks/T-1.json /tmp/backup.json`},
		{cmd: `cp -r .matrixx/plans /tmp/plans-backup`},
		{cmd: `tar czf backup.tgz .matrixx`},
		{cmd: `tar -tzf backup.tgz`},
		{cmd: `unzip -l tasks.zip`},
		{cmd: `rsync -a .matrixx/ /tmp/backup/`},
		{cmd: `python3 -c "import json; print(json.load(open('.matrixx/tasks/T-1.json'))['status'])"`},
		{cmd: `node -e "console.log(require('./.matrixx/tasks/T-1.json').status)"`},
		{cmd: `ruby -e 'puts File.read(".matrixx/plans/p.md")'`},
		{cmd: `perl -ne 'print if /pending/' .matrixx/tasks/T-1.json`, deny: true, want: "is handed"}, // an interpreter handed a store path, whatever its code
		{cmd: `awk '{print $1}' .matrixx/tasks/T-1.json`},
		{cmd: `awk '$2 > 0' .matrixx/tasks/T-1.json`},
		{cmd: `python3 -m json.tool .matrixx/tasks/T-1.json`, deny: true, want: "is handed"}, // an interpreter handed a store path, whatever its code
		{cmd: `python3 -c "import json; d=json.load(open('.matrixx/tasks/T-1.json')); print(d['a'], d['x'])"`},
		{cmd: `perl -ne 'print "> $_"' .matrixx/tasks/T-1.json`, deny: true, want: "is handed"}, // an interpreter handed a store path, whatever its code
		{cmd: `bash <(echo 'echo hi')`},
		{cmd: `rm -rf ./.cache ./.[!m]*`},
		{cmd: `python3 -c "open('out.txt','w').write('x')"`},
		{cmd: `find .matrixx/tasks -name '*.json'`},
		{cmd: `find . -path ./.matrixx -prune -o -name '*.orig' -delete`},
		{cmd: `find . -not -path './.matrixx/*' -name '*.tmp' -delete`},
		{cmd: `find . -name '*.go' -exec gofmt -l {} +`},
		{cmd: `grep -l pending .matrixx/tasks/*.json | xargs cat`},
		{cmd: `cat .matrixx/tasks/T-1.json | jq .status`},
		{cmd: `ls .matrixx/tasks | wc -l`},
		{cmd: `sed -n '1,5p' .matrixx/plans/p.md`},
		{cmd: `sed 's/a/b/' .matrixx/tasks/T-1.json > /tmp/out.json`},
		{cmd: `sed -i 's/.matrixx\/tasks/.matrixx\/store/' README.md`},
		{cmd: `cat .matrixx/tasks/T-1.json > /dev/null`},
		{cmd: `echo x > .matrixx/notepads/adhoc/1-note.md`},
		{cmd: `mkdir -p .matrixx/notepads/adhoc`},
		{cmd: `rm .matrixx/notepads/adhoc/1-old.md`},
		{cmd: `mkdir -p .matrixx`},
		{cmd: `ln -s ../shared/config .matrixx/config-link`},
		{cmd: `rm -rf node_modules`},
		{cmd: `echo hi > /tmp/x.txt`},
		{cmd: `sed -i 's/a/b/' src/main.go`},
		{cmd: `d=src; echo x > $d/tasks.go`},
		{cmd: `rm tasks.txt`},
		{cmd: `rm -rf ./tasks`},
		{cmd: `echo x > plans/roadmap.md`},
		{cmd: `echo x > docs/.matrixx-notes/tasks.md`},
		{cmd: `cd .matrixx/tasks && ls`},
		{cmd: `(cd .matrixx/plans && cat p.md)`},
		{cmd: `cd .matrixx/tasks; cd ../..; echo x > out.txt`},
		{cmd: `(cd .matrixx/tasks); echo x > T-1.json`},
		{cmd: `python3 script.py`},
		{cmd: `bash -c 'echo hello'`},
		{cmd: `sh -c 'cat .matrixx/plans/p.md'`},
		{cmd: `xargs -n1 echo < list.txt`},
		{cmd: `git diff --name-only | xargs rm -f`},
		{cmd: `curl -s https://example.com | jq .`},
		{cmd: `wget -O /tmp/x https://example.com`},
		{cmd: `gofmt -l .`},
		{cmd: `echo done 2>&1`},
		{cmd: `ls 2>/dev/null`},
		{cmd: `sudo -l`},
		{cmd: `env | grep MATRIXX`},
		{cmd: `command -v rm`},
		{cmd: `bash scripts/check.sh .matrixx/tasks`},
		{cmd: `echo "unterminated`},

		// More reads of the stores.
		{cmd: `diff <(jq -S . .matrixx/tasks/T-1.json) <(jq -S . /tmp/T-1.json)`},
		{cmd: `cat .matrixx/plans/p.md | grep -c '\[x\]'`},
		{cmd: `jq -r '.subject' .matrixx/tasks/*.json | sort | uniq -c`},
		{cmd: `sort -u .matrixx/tasks/index.txt`},
		{cmd: `ls .matrixx/plans/*.md | xargs -n1 basename`},
		{cmd: `tar tzf x.tgz | grep .matrixx/tasks`},
		{cmd: `ls .matrixx/tasks/*.json | xargs -n1 cat | jq .status`},
		{cmd: `for f in .matrixx/tasks/*.json; do jq .status "$f"; done`},
		{cmd: `python3 - <<'EOF'
import json, glob
for f in glob.glob('.matrixx/tasks/*.json'):
    print(json.load(open(f))['subject'])
EOF`},

		// Allowed: everyday agent commands that write elsewhere.
		{cmd: `npm install`},
		{cmd: `pip install -r requirements.txt`},
		{cmd: `cargo build --release`},
		{cmd: `go mod tidy && go vet ./...`},
		{cmd: `docker build -t app:dev .`},
		{cmd: `gh pr create --title "Guard" --body "Touches .matrixx/plans handling"`},
		{cmd: `git push origin HEAD`},
		{cmd: `git log --oneline -5 && git diff --stat`},
		{cmd: `git checkout -- src/main.go`},
		{cmd: `git restore --staged .matrixx/tasks`},
		{cmd: `git stash push -- src/`},
		{cmd: `mkdir -p build && cd build && cmake ..`},
		{cmd: `cat package.json | jq .scripts`},
		{cmd: `find . -name '*.go' | xargs grep -n TODO`},
		{cmd: `grep -rn "matrixx" --include='*.go' .`},
		{cmd: `sed -n '/func main/,/^}/p' main.go`},
		{cmd: `awk -F, '{print $2}' data.csv > out.csv`},
		{cmd: `python3 -m pytest -q`},
		{cmd: `node scripts/build.js`},
		{cmd: `echo $PATH`},
		{cmd: `export FOO=bar && echo $FOO`},
		{cmd: `for f in *.go; do gofmt -l $f; done`},
		{cmd: `while read l; do echo $l; done < file.txt`},
		{cmd: `curl -sSfL https://example.com/install.sh -o /tmp/install.sh`},
		{cmd: `tar -xzf release.tgz -C /tmp/release`},
		{cmd: `unzip -o dist.zip -d dist`},
		{cmd: `cp -r templates/ build/`},
		{cmd: `mv build/app bin/app`},
		{cmd: `rm -rf dist build coverage`},
		{cmd: `touch src/new_file.go`},
		{cmd: `chmod +x scripts/*.sh`},
		{cmd: `ln -sf ../config/dev.env .env`},
		{cmd: `sed -i.bak 's/v1/v2/g' README.md CHANGELOG.md`},
		{cmd: `perl -pi -e 's/foo/bar/' src/*.c`},
		{cmd: `tee build.log < /dev/null`},
		{cmd: "cat > src/config.go <<'EOF'\npackage config\n\n// see .matrixx/tasks\nEOF"},
		{cmd: `printf '%s\n' a b > list.txt`},
		{cmd: `find . -name '*.pyc' -delete`},
		{cmd: `jq '.version = "2"' package.json > package.json.tmp && mv package.json.tmp package.json`},
		{cmd: `make -C tools`},
		{cmd: `echo "- [ ] task" >> TODO.md`},
		{cmd: `yq -i '.a = 1' config.yaml`},
		{cmd: `prettier --write src/`},
		{cmd: `rsync -av src/ /tmp/src-backup/`},
		{cmd: `cd /tmp && rm -rf scratch`},
		{cmd: `bash -c 'cd /tmp && touch x'`},
		{cmd: `sh -c "echo hi > /tmp/hi"`},
		{cmd: `eval "$(ssh-agent -s)"`},
		{cmd: `source .venv/bin/activate && pytest`},
		{cmd: `env NODE_ENV=test npm test`},
		{cmd: `sudo apt-get install -y jq`},
		{cmd: `timeout 60 go test ./...`},
		{cmd: `git clean -fdx`}, // the corpus cwd does not exist: no .matrixx to lose
		{cmd: `cat <<EOF
see .matrixx/tasks/T-1.json
EOF`},

		// Where bash reads the text otherwise than mvdan.cc/sh: the raw
		// rule decides too (rule bash:ambiguous).
		{cmd: "ls # harmless \\\nrm .matrixx/tasks/T-1.json", deny: true, want: "comment line ends in a backslash"},
		{cmd: "ls #\\\nrm .matrixx/tasks/T-1.json", deny: true},
		{cmd: "x=1 # c\\\nrm .matrixx/plans/p.md", deny: true},
		{cmd: "echo $(ls # x\\\nrm .matrixx/tasks/T-1.json)", deny: true},
		{cmd: "ls # harmless \\\r\nrm .matrixx/tasks/T-1.json", deny: true, want: "carriage return"},
		{cmd: "echo a \\\r\nrm .matrixx/tasks/T-1.json", deny: true},
		{cmd: "cat <<EOF >/dev/null\nhello\nEO\\\nF\nrm .matrixx/tasks/T-1.json\nEOF", deny: true, want: "here-document"},
		{cmd: "cat <<EOF\nEOF\\\n\nrm .matrixx/tasks/T-1.json\nEOF", deny: true},
		{cmd: "cat <<A\nx\\\nA\ncat <<B\nA\nrm .matrixx/plans/p.md\nB", deny: true},
		{cmd: "cat <<-EOF\n\tEO\\\n\tF\nrm .matrixx/tasks/T-1.json\nEOF", deny: true},
		{cmd: "cat <<'EOF'\nEO\\\nF\nrm .matrixx/tasks/T-1.json\nEOF"},                     // quoted: bash joins nothing
		{cmd: "cat .matrixx/tasks/T-1.json # show \\\n| jq ."},                             // no write
		{cmd: "docker run \\\n  -v $PWD:/w \\\n  img # see .matrixx/tasks \\\n  --detach"}, // no write
		{cmd: "grep -rn '#TODO' .matrixx/plans \\\n  | sort"},                              // '#' inside a word

		// The config and the hooks' state are the user's and the hooks'.
		{cmd: `echo '{"disabled_hooks":["task-edit-guard"]}' > .matrixx/matrixx.jsonc`, deny: true, want: "user's to edit"},
		{cmd: `echo '{"disabled_hooks":["task-edit-guard"]}' > .matrixx/matrixx.json`, deny: true},
		{cmd: `echo '{"tasks":{"storage_path":"/tmp/x"}}' >> .matrixx/matrixx.jsonc`, deny: true},
		{cmd: `sed -i 's/\[\]/["task-edit-guard"]/' .matrixx/matrixx.jsonc`, deny: true},
		{cmd: `cp /tmp/evil.jsonc .matrixx/matrixx.jsonc`, deny: true},
		{cmd: `mv /tmp/evil.json .matrixx/matrixx.json`, deny: true},
		{cmd: `rm .matrixx/matrixx.jsonc`, deny: true},
		{cmd: `tee .matrixx/matrixx.jsonc <<< '{}'`, deny: true},
		{cmd: `python3 -c "open('.matrixx/matrixx.jsonc','w').write('{}')"`, deny: true},
		{cmd: `echo '{}' > ~/.config/opencode/matrixx.jsonc`, deny: true},
		{cmd: `echo 0 > .matrixx/state/continue-abc.json`, deny: true, want: "hooks' own state"},
		{cmd: `rm -rf .matrixx/state`, deny: true},
		{cmd: `cat .matrixx/matrixx.jsonc`},
		{cmd: `jq .disabled_hooks .matrixx/matrixx.jsonc`},
		{cmd: `ls -la .matrixx/state`},
		{cmd: `echo "- note" >> .matrixx/notepads/adhoc/1-fix-login.md`},

		// Resource budgets: past them the raw rule decides.
		{cmd: "v=.matrixx; " + strings.Repeat("v=$v$v; ", 30) + "rm .matrixx/tasks/x", deny: true, want: "too large or too repetitive"},
		{cmd: strings.Repeat("cd a; ", 20000) + "rm .matrixx/tasks/x", deny: true},
		{cmd: strings.Repeat("pushd a; ", 5000) + "rm .matrixx/tasks/x", deny: true},
		{cmd: "v=x; " + strings.Repeat("v=$v$v; ", 30) + "ls"},

		// Our binaries are exempt by name only; functions, aliases, links
		// and copies made in the command are followed.
		{cmd: `ln -sf /bin/rm /tmp/task-get; /tmp/task-get .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `cp /bin/rm /tmp/task-update && /tmp/task-update .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `mkdir -p /tmp/evil && ln -s /bin/rm /tmp/evil/task-get; PATH=/tmp/evil:$PATH task-get .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `plan() { rm -rf "$@"; }; plan .matrixx/plans`, deny: true},
		{cmd: `task-get() { rm "$1"; }; task-get .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `alias plan=rm; plan .matrixx/plans/p.md`, deny: true},
		{cmd: `f(){ rm $1; }; f .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `f() { cd .matrixx/tasks; }; f; rm T-1.json`, deny: true},
		{cmd: `cd() { rm -rf "$@"; }; cd .matrixx`, deny: true},
		{cmd: `f(){ f; }; f`},
		{cmd: `g() { echo "$1"; }; g .matrixx/tasks/T-1.json`},
		{cmd: `/usr/local/bin/task-get --id T-1`},

		// Links: a symbolic link writes only itself (a later write
		// through it is seen through); rm of a link removes the link.
		{cmd: `ln -s .matrixx/tasks tasks-link`},
		{cmd: `ln -s $PWD/.matrixx/plans/a.md /tmp/plan-link`},
		{cmd: `ln -s $PWD/.matrixx/plans/a.md /tmp/plan-link; echo x > /tmp/plan-link`, deny: true},
		{cmd: `ln -s .matrixx/tasks t && rm t/T-1.json`, deny: true},
		{cmd: `ln -s /tmp/evil.json .matrixx/tasks/T-1.json`, deny: true},

		// Read-only viewers (G2: Bash may read plans).
		{cmd: `vim -R .matrixx/plans/p.md`},
		{cmd: `view .matrixx/plans/p.md`},
		{cmd: `code --diff .matrixx/plans/p.md /tmp/p.md`},
		{cmd: `nano -v .matrixx/plans/p.md`},
		{cmd: `git clean -fdxn .matrixx`},
		{cmd: `git clean --dry-run -d .matrixx`},

		// Positional parameters, parameter operations, brace sequences.
		{cmd: `set -- .matrixx/tasks/T-1.json; rm "$1"`, deny: true},
		{cmd: `set -- x .matrixx/plans/p.md; shift; rm "$@"`, deny: true},
		{cmd: `p=.XXtrixx/tasks/T-1.json; rm ${p/XX/ma}`, deny: true},
		{cmd: `p=.matrixx/tasks/T-1.jsonx; rm "${p%x}"`, deny: true},
		{cmd: `p=a.matrixx/tasks/T-1.json; rm ${p:1}`, deny: true},
		{cmd: `p=a.matrixx/tasks/T-1.json.bak; rm ${p:1:-4}`, deny: true},
		{cmd: `p=xx.matrixx/tasks/T-1.json; rm ${p#??}`, deny: true},
		{cmd: `p=/x/.matrixx/plans/p.md; rm "${p//\/x\//}"`, deny: true},
		{cmd: `rm ${X/a/.matrixx/tasks/T-1.json}`, deny: true},
		{cmd: `rm .matrix{x..x}/tasks/T-1.json`, deny: true},
		{cmd: `rm .matrixx/tasks/T-{1..3}.json`, deny: true},
		{cmd: `p=.matrixx/tasks/T-1.json; echo x > /tmp/${p##*/}`},
		{cmd: `p=.matrixx/tasks/T-1.json; cp "$p" "/tmp/${p##*/}.bak"`},
		{cmd: `for i in {1..3}; do echo $i > /tmp/out-$i; done`},

		// zsh precommand modifiers and =cmd.
		{cmd: `noglob rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `nocorrect rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `=rm .matrixx/tasks/T-1.json`, deny: true},

		// Code that runs in the current shell keeps its cd and variables;
		// variables set by other means.
		{cmd: `eval x=rm; $x .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `eval "cd .matrixx/tasks"; rm T-1.json`, deny: true},
		{cmd: `source <(echo cd .matrixx/tasks); rm T-1.json`, deny: true},
		{cmd: `alias x="cd .matrixx/tasks"; x; rm T-1.json`, deny: true},
		{cmd: `trap "cd .matrixx/tasks" DEBUG; rm T-1.json`, deny: true},
		{cmd: `IFS=,; x=rm,.matrixx/tasks/T-1.json; $x`, deny: true},
		{cmd: `printf -v c rm; $c .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `declare -n r=x; x=rm; $r .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `BASH_ENV=<(echo rm .matrixx/tasks/T-1.json) bash -c :`, deny: true},
		{cmd: `PROMPT_COMMAND="rm .matrixx/plans/p.md" bash -i`, deny: true},
		{cmd: `eval "x=1"; echo $x > /tmp/out`},
		{cmd: `trap 'rm -f /tmp/lock' EXIT; cd .matrixx/tasks && cat T-1.json`},

		// A command name with an unknown part runs as its known part when
		// the unknown is empty (found by a differential test against bash).
		{cmd: `${UNSET}rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `${a,b}rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `$(false)rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `$EOF\rm .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `${X}cd .matrixx/tasks; rm T-1.json`, deny: true},
		{cmd: `$EDITOR .matrixx/plans/p.md`},               // wholly unknown: not modelled
		{cmd: `$X rm .matrixx/tasks/T-1.json`, deny: true}, // an empty unquoted $X vanishes
		{cmd: `$command rm .matrixx/plans/p.md`, deny: true},
		{cmd: "d=.matrix; rm ${d}x/tasks/T-1.json\n)", deny: true}, // bash runs the lines before a syntax error
		{cmd: "$1$1rm .matrixx/tasks/T-1.json\n |<<<x", deny: true},
		{cmd: "ls\n)"},
		{cmd: "d=.matrix; rm ${d}x/tasks/T-1.json <<EOF\nbody", deny: true}, // bash runs an unclosed here-document
		{cmd: "echo x \\\r\nr''m .matrixx/tasks/T-1.json\n(", deny: true},   // raw rule: r''m is rm

		// Archives, git, perl.
		{cmd: `cpio -idv < /tmp/a.cpio`, deny: false},
		{cmd: `cd .matrixx/tasks && cpio -i < /tmp/a.cpio`, deny: true},
		{cmd: `cpio -i -D .matrixx/plans < /tmp/a.cpio`, deny: true},
		{cmd: `find src | cpio -p .matrixx/tasks`, deny: true},
		{cmd: `7z x /tmp/a.7z -o.matrixx/tasks`, deny: true},
		{cmd: `7z a .matrixx/plans/p.md /tmp/x`, deny: true},
		{cmd: `zip .matrixx/tasks/T-1.json /tmp/x`, deny: true},
		{cmd: `zip -m /tmp/out.zip .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `zip -r /tmp/backup.zip .matrixx`},
		{cmd: `7z a /tmp/backup.7z .matrixx`},
		{cmd: `unrar x /tmp/a.rar .matrixx/tasks/`, deny: true},
		{cmd: `git --work-tree=.matrixx/tasks checkout HEAD -- .`, deny: true},
		{cmd: `GIT_WORK_TREE=.matrixx/plans git checkout -- .`, deny: true},
		{cmd: `git worktree add .matrixx/tasks/wt`, deny: true},
		{cmd: `git worktree remove --force .matrixx/tasks/wt`, deny: true, want: "task-cleanup"},
		{cmd: `git worktree remove .matrixx`, deny: true},
		{cmd: `git worktree remove --force ../wt3`}, // no store on disk there
		{cmd: `git worktree list`},
		{cmd: `ls -A | xargs rm -rf`}, // nothing on disk here (TestWholeTree: a real project)
		{cmd: `ls -a | wc -l`},
		{cmd: `rm -rf $(ls -d build*)`},
		{cmd: `git clone https://example.com/x.git .matrixx/tasks/x`, deny: true},
		{cmd: `cd .matrixx/plans && git clone https://example.com/x.git`, deny: true},
		{cmd: `git archive -o .matrixx/plans/p.md HEAD`, deny: true},
		{cmd: `git -c core.worktree=.matrixx/tasks checkout .`, deny: true},
		{cmd: `git worktree add ../wt-feature`},
		{cmd: `git clone https://example.com/x.git /tmp/x`},
		{cmd: `perl -e 'open(my $f, q(>), q(.matrixx/tasks/T-1.json)); print $f "{}"'`, deny: true},
		{cmd: `perl -e 'open(my $f, qq{>>}, ".matrixx/plans/p.md")'`, deny: true},
		{cmd: `perl -ne 'print if /x/' .matrixx/plans/p.md`, deny: true, want: "is handed"}, // an interpreter handed a store path, whatever its code

		// Tester's report: making a store directory, adding permissions,
		// find's pruned paths in a pipe, rsync --delete into a store.
		{cmd: `mkdir -p /tmp/x/.matrixx/tasks`},
		{cmd: `mkdir -p .matrixx/tasks .matrixx/plans .matrixx/state`},
		{cmd: `install -d .matrixx/plans`},
		{cmd: `mkdir -p .matrixx/tasks/sub`, deny: true},
		{cmd: `mkdir .matrixx/matrixx.jsonc`, deny: true, want: "user's to edit"},
		{cmd: `chmod u+w .matrixx/tasks/T-1.json`},
		{cmd: `chmod -R a+rX .matrixx`},
		{cmd: `chmod -R go-w .matrixx`}, // the owner keeps rwx
		{cmd: `chmod 600 .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `chmod -w .matrixx/plans/p.md`, deny: true},
		{cmd: `chmod --reference=/tmp/x .matrixx/plans/p.md`, deny: true},
		{cmd: `chmod u+w,o-r .matrixx/plans/p.md`},
		{cmd: `chmod u+w,a-r .matrixx/plans/p.md`, deny: true},
		{cmd: `find . -path ./.matrixx -prune -o -name '*.orig' -print | xargs rm`},
		{cmd: `find . -name .matrixx -prune -o -type f -print0 | xargs -0 sed -i s/a/b/`},
		{cmd: `find .matrixx/tasks -type d -empty -delete`, deny: true},
		{cmd: `find .matrixx/plans -name '*.md' | xargs sed -i s/a/b/`, deny: true},
		{cmd: `rsync -a --delete /tmp/empty/ .matrixx/`, deny: true},
		{cmd: `rsync -a --delete /tmp/empty/ .matrixx/plans/`, deny: true},

		// Second tester's report: dotglob and extended globs, find's
		// prune over parentheses, chmod modes that leave the owner rwx,
		// chown to the user who runs the binaries.
		{cmd: `shopt -s dotglob; rm -rf "$DIR"/*`, deny: true},
		{cmd: `GLOBIGNORE=.:..; rm -rf "$1"/*`, deny: true},
		{cmd: `shopt -s dotglob; rm -rf *`}, // no .matrixx where it runs
		{cmd: `rm -rf "$DIR"/*`},
		{cmd: `rm -rf @(.matrixx)`, deny: true},
		{cmd: `rm -rf ?(.git|.matrixx)`, deny: true},
		{cmd: `rm -rf .matrixx/@(tasks|plans)`, deny: true},
		{cmd: `rm -rf @(build|dist)`},
		{cmd: `find . \( -path ./.git -o -path ./.matrixx \) -prune -o -type f -name '*.orig' -exec rm {} +`},
		{cmd: `find . \( -path ./.git -o -path ./.matrixx \) -prune -o -type f -name '*.orig' -exec rm {} \;`},
		{cmd: `find . \( -path ./.matrixx -o -path ./node_modules \) -prune -o -name '*.rej' -print | xargs rm -f`},
		{cmd: `find . \( -path ./.git -o -path ./.matrixx \) -o -name '*.orig' -exec rm -rf {} +`, deny: true}, // no prune
		{cmd: `chmod -R 755 .matrixx`},
		{cmd: `chmod -R 0700 .matrixx/tasks`},
		{cmd: `chmod -R u=rwX,go=rX .matrixx`},
		{cmd: `chmod -R 644 .matrixx`, deny: true},
		{cmd: `chmod 555 .matrixx/plans`, deny: true},
		{cmd: `chmod -R a=r .matrixx`, deny: true},
		{cmd: `chown -R $(id -u) .matrixx`},
		{cmd: `chown -R "$USER:$(id -gn)" .matrixx`},
		{cmd: `sudo chown -R $(whoami):staff .matrixx/plans`},
		{cmd: `chown -R $(id -u alice) .matrixx`, deny: true},
		{cmd: `USER=root; chown -R $USER .matrixx`, deny: true},
		{cmd: `chown -R "$OWNER" .matrixx`, deny: true},
		{cmd: `chgrp -R staff .matrixx`, deny: true},
		{cmd: `git stash push -u -- .matrixx`, deny: true},
		{cmd: `git stash push -u -- src/ .matrixx/plans/p.md`, deny: true},
		{cmd: `git stash save -u 'wip on .matrixx/tasks'`}, // a message; nothing to stash here
		// Archive members named on the command line land in the store.
		{cmd: `tar xf backup.tar .matrixx/tasks`, deny: true},
		{cmd: `tar -xzf b.tgz --strip-components 1 proj/.matrixx/plans`, deny: true},
		{cmd: `tar xf b.tar --wildcards '.matrixx/tasks/*'`, deny: true},
		{cmd: `unzip -o x.zip .matrixx/tasks/T-1.json`, deny: true},
		{cmd: `tar xf b.tar src/ README.md`},
		{cmd: `tar -czf b.tgz .matrixx`},
		{cmd: `unzip -o x.zip 'src/*' -x '.matrixx/*'`},
		// Fourth report: GNU parallel reads its arguments from stdin
		// without ::: (like xargs).
		{cmd: `echo .matrixx | parallel rm -rf`, deny: true, want: "task-cleanup"},
		{cmd: `printf '%s\n' .matrixx/tasks | parallel -j 4 rm -rf {}`, deny: true},
		{cmd: `echo .matrixx/plans/p.md | parallel --jobs=2 'sed -i s/a/b/ {}'`, deny: true},
		{cmd: `echo T-1.json | parallel rm .matrixx/tasks/{}`, deny: true},
		{cmd: `echo .matrixx | parallel -I@ rm -rf @/tasks`, deny: true},
		{cmd: `echo x/.matrixx/tasks/T-1.json | parallel rm ../{/}`}, // ../T-1.json
		{cmd: `echo build | parallel rm -rf`},
		{cmd: `echo .matrixx | parallel du -sh`},
		{cmd: `echo src/a.go | parallel 'sed -i s/a/b/ {}'`},
		{cmd: `parallel -j 2 gzip ::: a.log b.log`},
		{cmd: `parallel ::: 'make lint' 'rm -rf .matrixx/plans'`, deny: true},
		{cmd: `echo 'rm -rf .matrixx' | parallel`, deny: true},
		{cmd: `parallel -a list.txt rm -rf`},
		{cmd: `parallel rm -rf :::: list.txt`},
		{cmd: `parallel echo ::: 'rm -rf .matrixx'`},
		// Fifth report: a find test naming .matrixx selects it at any
		// depth, without the disk showing it; a pruned one does not.
		{cmd: `find . -name .matrixx | xargs rm -rf`, deny: true},
		{cmd: `find . -name .matrixx -prune -exec rm -rf {} +`, deny: true},
		{cmd: `find . -iname '.MATRIX*' -print0 | xargs -0 rm -rf`, deny: true},
		{cmd: `find . -path '*/.matrixx' -prune -exec rm -rf {} +`, deny: true},
		{cmd: `find . -regex '.*/\.matrixx' -exec rm -rf {} \;`, deny: true},
		{cmd: `find . -name .matrixx | parallel rm -rf`, deny: true},
		{cmd: `find . -name .matrixx -prune -o -name '*.pyc' -exec rm {} +`},
		{cmd: `find . -name .matrixx | xargs du -sh`},
		{cmd: `find . -name .matrixx -type d`},
		{cmd: `find . -name node_modules -prune -exec rm -rf {} +`},
		// git pathspecs: an exclusion names no path.
		{cmd: `git clean -fd -- ':/' ':/!.matrixx'`},
		{cmd: `git stash push -u -- src ':(exclude,top).matrixx'`},
	}
}

func TestCorpus(t *testing.T) {
	denied, allowed := 0, 0
	for _, c := range corpus() {
		d := check(Request{Tool: "Bash", Cwd: testCwd, Command: c.cmd, Home: "/nonexistent-guard-test/home"})
		if d.Deny != c.deny {
			t.Errorf("%q: deny = %v, want %v (rule %q, reason %q)", c.cmd, d.Deny, c.deny, d.Rule, d.Reason)
			continue
		}
		if c.deny {
			denied++
			if d.Reason == "" || d.Rule == "" {
				t.Errorf("%q: denied without reason or rule: %+v", c.cmd, d)
			}
			if c.want != "" && !strings.Contains(d.Reason, c.want) {
				t.Errorf("%q: reason %q lacks %q", c.cmd, d.Reason, c.want)
			}
			if !strings.Contains(d.Reason, "task-") && !strings.Contains(d.Reason, "plan ") &&
				!strings.Contains(d.Reason, "user's to edit") && !strings.Contains(d.Reason, "leave it to the hooks") {
				t.Errorf("%q: reason %q names no binary to use", c.cmd, d.Reason)
			}
		} else {
			allowed++
			if d.Reason != "" || d.Rule != "" {
				t.Errorf("%q: allowed with a reason: %+v", c.cmd, d)
			}
		}
	}
	t.Logf("corpus: %d commands, %d denied, %d allowed", denied+allowed, denied, allowed)
	if denied < 40 || allowed < 40 {
		t.Errorf("corpus too small: %d denied, %d allowed", denied, allowed)
	}
}
