package commands

const taskSyncHelp = `Example: task-sync && task-list --ready

Share the task store between machines through git (docs/sync.md).

  task-sync                       fetch, merge, commit and push the store (remote "origin")
  task-sync --remote backup       the same with another git remote
  task-sync export > tasks.jsonl  every record and plan as JSON Lines
  task-sync import --on-conflict newer < tasks.jsonl
  task-sync setup                 register the record merge driver in this clone (the first sync does)
  task-sync merge-driver %O %A %B %P   (git calls this)

The store (.matrixx/tasks/T-*.json and .matrixx/plans/*.md) travels on the branch matrixx-tasks
and never on your own branches: task-sync writes it with git plumbing (never your index or work
tree), and .matrixx/ stays ignored. The first run in a fresh clone creates the branch (or fetches
it) and registers the record merge driver in .git/config and .git/info/attributes only.

Records merge field by field against their merge base: a field changed on one side takes that
change; blockers, blocks and metadata keys changed on both sides unite; a field changed differently
on both sides keeps the value already pushed (first push wins), except status, which keeps the
later of pending < in_progress < completed < deleted. An edge added here that would close a
dependency cycle with the pushed ones is dropped. Every such decision is listed in "conflicts".
Plans merge as text. A rejected push (someone pushed first) is fetched, merged and pushed again,
up to --attempts times. The store's lock is held while the store is read and written, so cron, a
hook and an agent can sync at once.

task-sync (sync) and merge-driver never read stdin; import reads its JSON Lines there.

Answer: {"pulled":n,"pushed":n,"merged":n,"conflicts":[{"id","field","kept"?,"lost"?,"rule"}…]} (exit 0).
Errors: sync_conflict when the push budget ran out (exit 1; nothing lost, the next sync pushes;
the envelope also carries pulled, pushed, merged and conflicts of the rounds that ran),
git_failed (no repository, no such remote), task_lock_unavailable, internal_error (exit 1); usage
errors exit 2.`

// TaskSync is task-sync's command line: the sync (the default) and the
// subcommands.
type TaskSync struct {
	Globals
	WriteFlags
	Run         SyncRun         `cmd:"" default:"withargs" hidden:"" help:"Fetch, merge, commit and push (the default)."`
	Export      SyncExport      `cmd:"" help:"Write every record and plan of the store as JSON Lines on stdout."`
	Import      SyncImport      `cmd:"" help:"Read JSON Lines (as export writes them) from stdin into the store."`
	MergeDriver SyncMergeDriver `cmd:"" name:"merge-driver" help:"Merge three versions of a T-*.json record (git calls this: %O %A %B %P)."`
	Setup       SyncSetup       `cmd:"" help:"Register the record merge driver in this clone only (the first sync does it too)."`
}

// SyncRun is the sync's flags.
type SyncRun struct {
	Remote   string `placeholder:"NAME" default:"origin" help:"The git remote to sync with."`
	Attempts int    `placeholder:"N" default:"8" help:"Fetch-merge-push rounds before giving up with sync_conflict (1-100)."`
}

// SyncExport is task-sync export's arguments.
type SyncExport struct{}

// Help of export (kong shows it under the subcommand's usage).
func (*SyncExport) Help() string {
	return `Example: task-sync export > tasks.jsonl

One line per record ({"task":{…},"mtimeMs":n}, by id) then per plan ({"plan","text","mtimeMs"},
by name); mtimeMs is the file's modification time. Unreadable files are named on stderr and the
exit status is 3 (partial).`
}

// SyncSetup is task-sync setup's arguments.
type SyncSetup struct{}

// Help of setup.
func (*SyncSetup) Help() string {
	return `Example: task-sync setup

Registers the record merge driver in this clone only (.git/config and .git/info/attributes;
nothing committed); the first task-sync does it too.
Answer: {"mergeDriver":"matrixx-task","attributes":"T-*.json merge=matrixx-task"}.`
}

// SyncImport is task-sync import's flags.
type SyncImport struct {
	OnConflict string `name:"on-conflict" required:"" enum:"newer,skip,fail" help:"When the store holds other content: newer (the later modification time wins; a tie keeps the store's), skip (keep the store's), fail (import nothing)."`
}

// Help of import.
func (*SyncImport) Help() string {
	return `Example: task-sync import --on-conflict newer < tasks.jsonl

Every line is validated before anything is written (a bad line: validation_error naming it). A
record or plan the store lacks is created; one with other content is decided by --on-conflict:
skip keeps the store's, fail imports nothing (import_conflict), newer takes the line when its
mtimeMs is later than the file's modification time (a tie keeps the store's). mtimeMs (ms since
1970) must be at least 1 and at most 24 hours past this machine's clock; absent, the file gets
the import's time. The input is capped at 128 MiB (input_too_large, nothing written).
Answer: {"created":n,"updated":n,"unchanged":n,"skipped":[ids and plan names]}.`
}

// SyncMergeDriver is task-sync merge-driver's arguments.
type SyncMergeDriver struct {
	Base   string `arg:"" help:"%O: the merge base's version."`
	Ours   string `arg:"" help:"%A: ours; the result is written here."`
	Theirs string `arg:"" help:"%B: theirs."`
	Path   string `arg:"" optional:"" help:"%P: the path in the tree (for messages)."`
}

// Help of merge-driver.
func (*SyncMergeDriver) Help() string {
	return `Example: task-sync merge-driver %O %A %B %P   (in .git/config; git calls it)

Merges base, ours and theirs of one record with the record merge and writes the result to %A
(exit 0); the decisions are printed on stderr. A version that is not a valid record leaves %A as
ours and exits 1 (git reports the path as conflicted).`
}
