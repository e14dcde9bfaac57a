#!/usr/bin/env bash
# Shows, with strace, how task-create, task-update and task-cleanup make a
# change durable (DESIGN D6): fsync of the temp file, rename onto the
# record, fsync of the task directory; for cleanup, unlink then fsync of
# the directory. t/fault/fsync_test.go asserts the same order in `make
# test` whenever strace is installed; this script prints the trace for a
# human to read.
#
#   bench/strace-fsync.sh            (needs strace: apt-get install strace)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "strace is not installed (apt-get install strace)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/" ./cmd/task-create ./cmd/task-update ./cmd/task-cleanup
proj=$tmp/proj
mkdir -p "$proj"
export HOME=$tmp/home OPENCODE_CONFIG_DIR=$tmp/home/.config/opencode
trace=(strace -f -y -qq -e signal=none -e trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat)

# Show the calls with the temp dir abbreviated to $P.
show() { sed -e "s|$proj|\$P|g" -e "s/^[0-9]* *//" "$1"; }

echo '{"subject":"warm up"}' | "$tmp/bin/task-create" -C "$proj" >/dev/null

echo "## task-create"
echo '{"subject":"Traced"}' | "${trace[@]}" -o "$tmp/create.trace" "$tmp/bin/task-create" -C "$proj" | tee "$tmp/create.out"
show "$tmp/create.trace"
id=$(sed -n 's/.*"id":"\(T-[^"]*\)".*/\1/p' "$tmp/create.out")

echo; echo "## task-update $id"
echo "{\"id\":\"$id\",\"status\":\"completed\"}" | "${trace[@]}" -o "$tmp/update.trace" "$tmp/bin/task-update" -C "$proj" >/dev/null
show "$tmp/update.trace"

echo; echo "## task-cleanup"
"${trace[@]}" -o "$tmp/cleanup.trace" "$tmp/bin/task-cleanup" -C "$proj" </dev/null >/dev/null
show "$tmp/cleanup.trace"

# The order that makes a success answer durable.
check() { # file: fsync(temp) < rename(temp -> record) < fsync(dir)
  awk -v rec="$proj/.matrixx/tasks/$id.json" -v dir="$proj/.matrixx/tasks" '
    /fsync\(/ && index($0, "/." substr(rec, length(dir) + 2) ".tmp-") { if (!s) s = NR }
    /rename/ && index($0, "\"" rec "\"") && s { if (!r) r = NR }
    /fsync\(/ && index($0, "<" dir ">") && r { if (!d) d = NR }
    END { exit !(s && r && d) }' "$1"
}
check "$tmp/create.trace" && check "$tmp/update.trace" && echo && echo "ok: fsync(temp) < rename(temp, record) < fsync(directory) for create and update"
