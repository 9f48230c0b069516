// Package review computes what a chat changed: the files changed in its cwd
// since a base commit (committed, uncommitted and untracked), and in each of
// its additional folders since the chat's baseline (against the folder's
// HEAD then, or by mtime for a folder that is not a git repository), and the
// diff of one file. It answers in the protocol's types (proto.ReviewSection,
// ReviewFile, ReviewDiff), which the server sends to the review pane as they
// are. It runs the real git with argv slices; it knows nothing of the mux or
// the TUI; ForChat (chat.go) maps a chat file to a request.
package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// Folder is one additional folder to review and its baseline.
type Folder struct {
	Path string
	// Head is the folder's HEAD at its baseline; "" when it was not a git
	// repository then (it is reviewed by mtime).
	Head string
	// Since is when its files start to count for the mtime review.
	Since time.Time
}

// Request says what to review.
type Request struct {
	// Cwd is the chat's folder and Base the commit it is compared against;
	// Base "" reviews Cwd by mtime since Since.
	Cwd   string
	Base  string
	Since time.Time
	// Folders are the chat's additional folders.
	Folders []Folder
	// BaseNote, if set, becomes the cwd section's note (why this base).
	BaseNote string
}

// Limits of the work one review does.
const (
	// MaxWalkEntries is how many entries an mtime walk looks at in one
	// folder before it stops and says so.
	MaxWalkEntries = 200_000
	// MaxListed is how many files an mtime section lists.
	MaxListed = 1_000
	// maxCountBytes is the largest untracked file whose lines are counted.
	maxCountBytes = 8 << 20
	// gitTimeout bounds each git command.
	gitTimeout = 2 * time.Minute
	// mtimeSlack is how far before the baseline time a file's mtime may
	// be and still count: the kernel stamps files from a coarse clock,
	// up to a tick behind the clock the baseline was read from.
	mtimeSlack = 20 * time.Millisecond
)

// Compute returns the sections of req: the cwd, then each folder in order.
func Compute(ctx context.Context, req Request) ([]proto.ReviewSection, error) {
	var out []proto.ReviewSection
	cwd, err := folderSection(ctx, req.Cwd, req.Base, req.Since)
	if err != nil {
		return nil, err
	}
	if req.BaseNote != "" {
		cwd.Note = strings.TrimSpace(req.BaseNote + "; " + cwd.Note)
		cwd.Note = strings.TrimSuffix(cwd.Note, ";")
	}
	out = append(out, cwd)
	for _, f := range req.Folders {
		s, err := folderSection(ctx, f.Path, f.Head, f.Since)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// folderSection reviews dir against base when both are set and dir is in a
// git repository, by mtime otherwise. A folder that has gone is a section
// that says so.
func folderSection(ctx context.Context, dir, base string, since time.Time) (proto.ReviewSection, error) {
	if _, err := os.Stat(dir); err != nil {
		return proto.ReviewSection{Folder: dir, Kind: proto.ReviewMtime, Base: since.UTC().Format(time.RFC3339Nano), Files: []proto.ReviewFile{}, Note: fmt.Sprintf("folder unreadable: %v", err)}, nil
	}
	if base != "" {
		if _, err := exec.LookPath("git"); err != nil {
			return proto.ReviewSection{}, fmt.Errorf("review %s: git is needed to compare with %s: %w", dir, short(base), err)
		}
	}
	if base != "" {
		// Whether dir is in a work tree is asked beside the review's own
		// git commands, not before them: one git start less on the way.
		// Outside a work tree those fail at once and are dropped.
		inRepo := make(chan bool, 1)
		go func() { inRepo <- InRepo(ctx, dir) }()
		s, err := GitSection(ctx, dir, base)
		if <-inRepo {
			return s, err
		}
	}
	s := MtimeSection(dir, since)
	if base != "" {
		s.Note = strings.TrimPrefix(s.Note+"; no longer a git repository", "; ")
	}
	return s, nil
}

// InRepo reports whether dir is inside a git work tree.
func InRepo(ctx context.Context, dir string) bool {
	out, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// ResolveCommit returns the commit ref names in the repository of dir.
func ResolveCommit(ctx context.Context, dir, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("resolve %q in %s: a ref does not start with -", ref, dir)
	}
	out, err := git(ctx, dir, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("resolve %q in %s: %w", ref, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// GitSection lists the files changed in dir (limited to dir, paths relative
// to it) between base and the working tree: committed, staged, unstaged and
// untracked.
func GitSection(ctx context.Context, dir, base string) (proto.ReviewSection, error) {
	s := proto.ReviewSection{Folder: dir, Kind: proto.ReviewGit, Base: base, Files: []proto.ReviewFile{}}
	// The untracked files are a walk of the work tree and the diff a stat
	// of every tracked file: run side by side, on two cores they cost
	// about the slower one.
	type result struct {
		out []byte
		err error
	}
	untracked := make(chan result, 1)
	go func() {
		out, err := git(ctx, dir, "ls-files", "--others", "--exclude-standard", "-z")
		untracked <- result{out, err}
	}()
	out, err := git(ctx, dir, "diff", "--raw", "--numstat", "-z", "--no-renames", "--relative", "--no-ext-diff", "--no-textconv", base, "--")
	others := <-untracked
	if err != nil {
		return s, fmt.Errorf("review %s against %s: %w", dir, short(base), err)
	}
	files, err := parseRawNumstat(out)
	if err != nil {
		return s, fmt.Errorf("review %s against %s: %w", dir, short(base), err)
	}
	if others.err != nil {
		return s, fmt.Errorf("review %s: untracked files: %w", dir, others.err)
	}
	for _, p := range splitZ(others.out) {
		f := proto.ReviewFile{Path: p, Status: proto.ReviewUntracked}
		f.Added, f.Binary = countLines(filepath.Join(dir, p))
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b proto.ReviewFile) int { return strings.Compare(a.Path, b.Path) })
	s.Files = files
	return s, nil
}

// parseRawNumstat reads `git diff --raw --numstat -z`: the raw records
// (":modes shas STATUS\0path\0") then the numstat ones ("a\td\tpath\0").
func parseRawNumstat(out []byte) ([]proto.ReviewFile, error) {
	fields := splitZ(out)
	var files []proto.ReviewFile
	index := map[string]int{}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.HasPrefix(f, ":") {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("git diff: raw record %q has no path", f)
			}
			i++
			index[fields[i]] = len(files)
			files = append(files, proto.ReviewFile{Path: fields[i], Status: rawStatus(f)})
			continue
		}
		parts := strings.SplitN(f, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("git diff: numstat record %q", f)
		}
		j, ok := index[parts[2]]
		if !ok {
			return nil, fmt.Errorf("git diff: numstat for %q with no raw record", parts[2])
		}
		if parts[0] == "-" && parts[1] == "-" {
			files[j].Binary = true
			continue
		}
		files[j].Added, _ = strconv.Atoi(parts[0])
		files[j].Deleted, _ = strconv.Atoi(parts[1])
	}
	return files, nil
}

// rawStatus maps a raw record's status letter to a Status.
func rawStatus(rec string) proto.ReviewStatus {
	fs := strings.Fields(rec)
	if len(fs) == 0 {
		return proto.ReviewModified
	}
	switch fs[len(fs)-1][0] {
	case 'A':
		return proto.ReviewAdded
	case 'D':
		return proto.ReviewDeleted
	case 'U':
		return proto.ReviewUnmerged
	default:
		return proto.ReviewModified
	}
}

// countLines counts an untracked file's lines, as git's numstat would for a
// new file; a file with a NUL in its first 8000 bytes (git's rule) or too
// large to read is reported binary with no count.
func countLines(path string) (int, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	if fi.Size() > maxCountBytes {
		return 0, true
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	if isBinary(data) {
		return 0, true
	}
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n, false
}

// isBinary applies git's rule: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

func splitZ(out []byte) []string {
	var fs []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			fs = append(fs, string(f))
		}
	}
	return fs
}

// git runs git in dir and returns its stdout; a failure carries its stderr.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCmd(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, firstLine(msg))
	}
	return out, nil
}

// gitCmd is git in dir with paths unquoted and no optional index write.
func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotepath=off", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "LC_ALL=C")
	return cmd
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// short is a commit's first 12 characters, for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// errTooMany stops a walk that has seen MaxWalkEntries.
var errTooMany = errors.New("too many entries")
