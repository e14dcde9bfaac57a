// Package tasksync moves a task store between machines with git
// (docs/sync.md): the store travels as the tree of one dedicated ref,
// refs/heads/matrixx-tasks (tasks/T-*.json, plans/*.md), written with git
// plumbing only (hash-object, a temporary index, write-tree, commit-tree,
// update-ref, fetch and push of that one ref), so the user's branches, index
// and work tree are never touched. Records merge three ways field by field
// (MergeTask), plans as text (MergePlan).
package tasksync

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Ref is the dedicated branch the store travels on.
const Ref = "refs/heads/matrixx-tasks"

// Branch is Ref's short name.
const Branch = "matrixx-tasks"

// GitFailed is the error code of a git command that failed for another
// reason than a rejected push (no repository, no remote, a broken remote).
const GitFailed errcode.Code = "git_failed"

// repo runs git in one repository.
type repo struct {
	root    string // the work tree root git runs in (-C)
	gitDir  string // the common git directory (objects, refs, config, info/)
	sha256  bool   // the repository's object format is sha256
	env     []string
	batch   *catFile
	scratch string
	pre     *preSnapshot // the first round's snapshot taken during the fetch
}

// openRepo finds the git repository of root without running git (so a
// sync with nothing to do costs one fetch and one cat-file).
func openRepo(root string, env []string) (*repo, error) {
	dir, err := findGitDir(root)
	if err != nil {
		return nil, err
	}
	r := &repo{root: root, gitDir: dir, env: env}
	if cfg, err := os.ReadFile(filepath.Join(dir, "config")); err == nil {
		low := strings.ToLower(string(cfg))
		r.sha256 = strings.Contains(strings.ReplaceAll(low, " ", ""), "objectformat=sha256")
	}
	return r, nil
}

// findGitDir returns the common git directory of the repository holding
// root: root/.git, or the directory a .git file points to (worktrees and
// submodules), followed to its commondir.
func findGitDir(root string) (string, error) {
	for d := root; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			return p, nil
		}
		if err == nil && fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return "", errcode.Wrap(GitFailed, err, "reading %s", p)
			}
			s := strings.TrimSpace(string(b))
			if !strings.HasPrefix(s, "gitdir:") {
				return "", errcode.New(GitFailed, "%s is not a gitdir file", p)
			}
			g := strings.TrimSpace(strings.TrimPrefix(s, "gitdir:"))
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
				cd := strings.TrimSpace(string(c))
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(g, cd)
				}
				g = cd
			}
			return filepath.Clean(g), nil
		}
		if d == filepath.Dir(d) {
			return "", errcode.New(GitFailed, "%s is not inside a git repository; task-sync moves the store through git (git init, or clone the project)", root)
		}
	}
}

// gitError is a failed git command with its stderr.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.args, " "), e.err, strings.TrimSpace(e.stderr))
}

// run runs git with args and stdin, returning stdout.
func (r *repo) run(stdin []byte, extraEnv []string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	cmd.Env = append(append(os.Environ(), r.env...), extraEnv...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), &gitError{args: args, stderr: errb.String(), err: err}
	}
	return out.Bytes(), nil
}

// hashBlob returns the object id git gives a blob with this content.
func (r *repo) hashBlob(data []byte) string {
	hdr := "blob " + strconv.Itoa(len(data)) + "\x00"
	if r.sha256 {
		h := sha256.New()
		io.WriteString(h, hdr)
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New()
	io.WriteString(h, hdr)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// catFile is one long-running `git cat-file --batch`.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (r *repo) cat() (*catFile, error) {
	if r.batch != nil {
		return r.batch, nil
	}
	cmd := exec.Command("git", "-C", r.root, "cat-file", "--batch")
	cmd.Env = append(os.Environ(), r.env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, errcode.Wrap(GitFailed, err, "starting git cat-file (is git installed?)")
	}
	r.batch = &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	return r.batch, nil
}

// close ends the cat-file process.
func (r *repo) close() {
	if r.batch != nil {
		r.batch.in.Close()
		_ = r.batch.cmd.Wait()
		r.batch = nil
	}
	if r.scratch != "" {
		os.RemoveAll(r.scratch)
		r.scratch = ""
	}
}

// errMissing is an object or ref that does not exist.
var errMissing = errors.New("missing")

// object reads one object (any rev git understands); errMissing when absent.
func (r *repo) object(rev string) (typ string, oid string, data []byte, err error) {
	c, err := r.cat()
	if err != nil {
		return "", "", nil, err
	}
	if _, err := io.WriteString(c.in, rev+"\n"); err != nil {
		return "", "", nil, errcode.Wrap(GitFailed, err, "git cat-file")
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return "", "", nil, errcode.Wrap(GitFailed, err, "git cat-file")
	}
	f := strings.Fields(line)
	if len(f) >= 1 && (f[len(f)-1] == "missing" || f[len(f)-1] == "ambiguous") {
		return "", "", nil, errMissing
	}
	if len(f) != 3 {
		return "", "", nil, errcode.New(GitFailed, "git cat-file answered %q", line)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return "", "", nil, errcode.New(GitFailed, "git cat-file answered %q", line)
	}
	data = make([]byte, n+1)
	if _, err := io.ReadFull(c.out, data); err != nil {
		return "", "", nil, errcode.Wrap(GitFailed, err, "git cat-file")
	}
	return f[1], f[0], data[:n], nil
}

// commit resolves rev to a commit id and its tree id; "" when rev does not
// exist.
func (r *repo) commit(rev string) (oid, tree string, err error) {
	if rev == "" {
		return "", "", nil
	}
	typ, oid, data, err := r.object(rev)
	if errors.Is(err, errMissing) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	if typ != "commit" {
		return "", "", errcode.New(GitFailed, "%s is a %s, not a commit", rev, typ)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	t, ok := strings.CutPrefix(line, "tree ")
	if !ok {
		return "", "", errcode.New(GitFailed, "commit %s has no tree", oid)
	}
	return oid, t, nil
}

// entry is one file of a store tree: its path (tasks/T-….json or
// plans/x.md) and blob id.
type files map[string]string

// tree lists the files of a store tree (tasks/ and plans/ one level deep);
// an empty tree id gives an empty listing.
func (r *repo) tree(oid string) (files, error) {
	return r.treeModes(oid, nil)
}

// treeModes is tree, handing every entry of a valid store path that is
// not a regular file (a symbolic link, 120000; a submodule, 160000; a
// directory) to odd instead of listing it.
func (r *repo) treeModes(oid string, odd func(path, mode string)) (files, error) {
	out := files{}
	if oid == "" {
		return out, nil
	}
	top, err := r.readTree(oid)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		if !e.dir || (e.name != "tasks" && e.name != "plans" && e.name != "history") {
			continue
		}
		sub, err := r.readTree(e.oid)
		if err != nil {
			return nil, err
		}
		for _, s := range sub {
			p := e.name + "/" + s.name
			switch {
			case !validPath(p):
			case odd != nil && s.mode != "100644" && s.mode != "100755":
				odd(p, s.mode)
			case !s.dir:
				out[p] = s.oid
			}
		}
	}
	return out, nil
}

type treeEntry struct {
	name string
	oid  string
	mode string // as git writes it: 100644, 100755, 120000, 160000, 40000
	dir  bool
}

// readTree parses one tree object (binary format: "<mode> <name>\0<id>").
func (r *repo) readTree(oid string) ([]treeEntry, error) {
	typ, _, data, err := r.object(oid)
	if err != nil {
		return nil, err
	}
	if typ != "tree" {
		return nil, errcode.New(GitFailed, "%s is a %s, not a tree", oid, typ)
	}
	idLen := 20
	if r.sha256 {
		idLen = 32
	}
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+1+idLen > len(data) {
			return nil, errcode.New(GitFailed, "tree %s is malformed", oid)
		}
		mode := string(data[:sp])
		out = append(out, treeEntry{name: string(data[sp+1 : nul]), oid: hex.EncodeToString(data[nul+1 : nul+1+idLen]), mode: mode, dir: mode == "40000"})
		data = data[nul+1+idLen:]
	}
	return out, nil
}

// blob reads a blob's content.
func (r *repo) blob(oid string) ([]byte, error) {
	typ, _, data, err := r.object(oid)
	if err != nil {
		return nil, errcode.Wrap(GitFailed, err, "reading blob %s", oid)
	}
	if typ != "blob" {
		return nil, errcode.New(GitFailed, "%s is a %s, not a blob", oid, typ)
	}
	return data, nil
}

// writeBlobs stores the files at paths as blobs (one git hash-object).
func (r *repo) writeBlobs(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := r.run([]byte(strings.Join(paths, "\n")+"\n"), nil, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return errcode.Wrap(GitFailed, err, "storing blobs")
	}
	return nil
}

// writeTree builds the tree of fs through a temporary index
// (GIT_INDEX_FILE), never the repository's own index.
func (r *repo) writeTree(fs files) (string, error) {
	if r.scratch == "" {
		d, err := os.MkdirTemp(r.gitDir, "matrixx-sync-")
		if err != nil {
			return "", errcode.Wrap(GitFailed, err, "creating a scratch directory in %s", r.gitDir)
		}
		r.scratch = d
	}
	idx := filepath.Join(r.scratch, "index")
	os.Remove(idx)
	env := []string{"GIT_INDEX_FILE=" + idx}
	var b strings.Builder
	for p, oid := range fs {
		fmt.Fprintf(&b, "100644 %s\t%s\n", oid, p)
	}
	if _, err := r.run([]byte(b.String()), env, "update-index", "--add", "--index-info"); err != nil {
		return "", errcode.Wrap(GitFailed, err, "building the tree")
	}
	out, err := r.run(nil, env, "write-tree")
	if err != nil {
		return "", errcode.Wrap(GitFailed, err, "writing the tree")
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTree makes a commit of tree with parents.
func (r *repo) commitTree(tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", tree, "-m", msg}
	for _, p := range parents {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	out, err := r.run(nil, identity(), args...)
	if err != nil {
		return "", errcode.Wrap(GitFailed, err, "committing")
	}
	return strings.TrimSpace(string(out)), nil
}

// identity names task-sync as the author and committer of its commits
// unless the environment names someone (docs/sync.md): a fresh CI clone
// has no user.name.
func identity() []string {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	var env []string
	for _, k := range []string{"AUTHOR", "COMMITTER"} {
		if os.Getenv("GIT_"+k+"_NAME") == "" {
			env = append(env, "GIT_"+k+"_NAME=task-sync")
		}
		if os.Getenv("GIT_"+k+"_EMAIL") == "" {
			env = append(env, "GIT_"+k+"_EMAIL=task-sync@"+host)
		}
	}
	return env
}

// updateRef moves ref from old ("" = must not exist) to new.
func (r *repo) updateRef(ref, newOID, old string) error {
	if old == "" {
		old = strings.Repeat("0", len(newOID))
	}
	if _, err := r.run(nil, nil, "update-ref", "-m", "task-sync", ref, newOID, old); err != nil {
		return errcode.Wrap(GitFailed, err, "moving %s", ref)
	}
	return nil
}

// mergeBase returns the best common ancestor of a and b ("" when none).
func (r *repo) mergeBase(a, b string) (string, error) {
	out, err := r.run(nil, nil, "merge-base", a, b)
	var ge *gitError
	if errors.As(err, &ge) {
		if ee, ok := ge.err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			return "", nil // unrelated histories
		}
	}
	if err != nil {
		return "", errcode.Wrap(GitFailed, err, "finding the merge base")
	}
	return strings.TrimSpace(string(out)), nil
}

// trackingRef is where the remote's Ref is fetched to.
func trackingRef(remote string) string { return "refs/remotes/" + remote + "/" + Branch }

// fetch fetches the remote's Ref into trackingRef; found is false when the
// remote has no such ref yet (the first machine to sync creates it).
//
// Two syncs of one clone may fetch at once; git then refuses the second
// one's update of the tracking ref ("cannot lock ref"): that fetch is
// retried (up to 10 times, 20-200 ms apart) instead of failing.
func (r *repo) fetch(remote string) (found bool, err error) {
	var ge *gitError
	for try := 0; ; try++ {
		_, err = r.run(nil, []string{"GIT_TERMINAL_PROMPT=0"}, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc",
			remote, "+"+Ref+":"+trackingRef(remote))
		if try < 10 && errors.As(err, &ge) && (strings.Contains(ge.stderr, "cannot lock ref") || strings.Contains(ge.stderr, ".lock': File exists")) {
			time.Sleep(time.Duration(20+rand.IntN(180)) * time.Millisecond)
			continue
		}
		break
	}
	if errors.As(err, &ge) && strings.Contains(ge.stderr, "couldn't find remote ref") {
		// A tracking ref left from before the remote lost the branch
		// would make the next merge wrong: forget it.
		_, _ = r.run(nil, nil, "update-ref", "-d", trackingRef(remote))
		return false, nil
	}
	if err != nil {
		return false, errcode.Wrap(GitFailed, err, "fetching %s from %s", Branch, remote)
	}
	return true, nil
}

// errRejected is a push the remote refused as not a fast-forward.
var errRejected = errors.New("push rejected")

// push pushes Ref to the remote without force: git refuses a push that is
// not a fast-forward (errRejected), which is what makes the first push win.
func (r *repo) push(remote, oid string) error {
	out, err := r.run(nil, []string{"GIT_TERMINAL_PROMPT=0"}, "push", "--porcelain", "--quiet", "--no-verify", remote, oid+":"+Ref)
	if err == nil {
		return nil
	}
	var ge *gitError
	text := string(out)
	if errors.As(err, &ge) {
		text += ge.stderr
	}
	if strings.Contains(text, "[rejected]") || strings.Contains(text, "non-fast-forward") || strings.Contains(text, "fetch first") ||
		strings.Contains(text, "failed to update ref") || strings.Contains(text, "cannot lock ref") || strings.Contains(text, "[remote rejected]") {
		return errRejected
	}
	return errcode.Wrap(GitFailed, err, "pushing %s to %s", Branch, remote)
}
