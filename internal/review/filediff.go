package review

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpmux/acpmux-tui/proto"
)

// DefaultMaxDiffBytes is the largest diff of one file drawn.
const DefaultMaxDiffBytes = 1 << 20

// FileDiff returns the unified diff of f in section s, at most maxBytes of
// it (DefaultMaxDiffBytes when 0): `git diff BASE -- path` for a tracked
// file, the whole file as added for an untracked one.
func FileDiff(ctx context.Context, s proto.ReviewSection, f proto.ReviewFile, maxBytes int) (proto.ReviewDiff, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDiffBytes
	}
	d := proto.ReviewDiff{Path: f.Path}
	switch {
	case s.Kind != proto.ReviewGit:
		d.NotDiffed = true
		return d, nil
	case f.Binary:
		d.Binary = true
		return d, nil
	}
	var text string
	var tooLarge bool
	var err error
	if f.Status == proto.ReviewUntracked {
		text, tooLarge, err = untrackedDiff(ctx, s.Folder, f.Path, maxBytes)
	} else {
		text, tooLarge, err = trackedDiff(ctx, s.Folder, s.Base, f.Path, maxBytes)
	}
	if err != nil {
		return d, fmt.Errorf("diff %s against %s: %w", f.Path, short(s.Base), err)
	}
	if tooLarge {
		d.TooLarge = true
		return d, nil
	}
	if !strings.Contains(text, "\n@@") && strings.Contains(text, "\nBinary files ") {
		d.Binary = true
		return d, nil
	}
	d.Text = text
	return d, nil
}

// untrackedDiff is the whole file at path (in dir) as added.
func untrackedDiff(ctx context.Context, dir, path string, maxBytes int) (string, bool, error) {
	fi, err := os.Lstat(filepath.Join(dir, path))
	if err != nil {
		return "", false, err
	}
	if fi.Size() > int64(maxBytes) {
		return "", true, nil
	}
	return gitCapped(ctx, dir, nil, maxBytes, "diff", "--no-index", "--no-ext-diff", "--no-textconv", "--", os.DevNull, path)
}

// trackedDiff is `git diff BASE -- path` (in dir, paths relative to it),
// made fast. Given a path, git's diff against a commit still takes every
// entry of the index through the pathspec: 1.2 s on 50,000 files with git
// 2.39, against 0.09 s for all of them with no path. So the file's entry
// at base goes alone into an index of its own, in a temporary folder,
// and the working file is diffed against that: the same diff, headers
// and all, in three quick commands. A path base does not have (added
// since) is diffed against nothing, as git shows a new file.
func trackedDiff(ctx context.Context, dir, base, path string, maxBytes int) (string, bool, error) {
	diff := []string{"diff", "--relative", "--no-ext-diff", "--no-textconv"}
	out, err := git(ctx, dir, "ls-tree", "-z", "--full-name", base, "--", path)
	if err != nil {
		return "", false, err
	}
	entry, _, _ := strings.Cut(string(out), "\x00")
	meta, full, ok := strings.Cut(entry, "\t")
	fields := strings.Fields(meta)
	switch {
	case entry == "":
		// Not in base (added since, staged): the whole file is new.
		return untrackedDiff(ctx, dir, path, maxBytes)
	case !ok || len(fields) != 3 || fields[1] != "blob":
		// A submodule, or a tree where a file was: git's own way.
		return gitCapped(ctx, dir, nil, maxBytes, append(diff, base, "--", path)...)
	}
	tmp, err := os.MkdirTemp("", "acpmux-review-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	actx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	add := gitCmd(actx, dir, "update-index", "-z", "--index-info")
	add.Env = append(add.Env, env...)
	add.Stdin = strings.NewReader(fields[0] + " " + fields[2] + "\t" + full + "\x00")
	if msg, err := add.CombinedOutput(); err != nil {
		return "", false, fmt.Errorf("git update-index: %w: %s", err, firstLine(strings.TrimSpace(string(msg))))
	}
	return gitCapped(ctx, dir, env, maxBytes, append(diff, "--", path)...)
}

// gitCapped runs git (env added to its environment) reading at most
// maxBytes of its output; more stops it and reports tooLarge. Exit status
// 1 (differences, for --no-index) is not an error.
func gitCapped(ctx context.Context, dir string, env []string, maxBytes int, args ...string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCmd(ctx, dir, args...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", false, err
	}
	if err := cmd.Start(); err != nil {
		return "", false, err
	}
	data, rerr := io.ReadAll(io.LimitReader(out, int64(maxBytes)+1))
	if len(data) > maxBytes {
		cancel()
		_ = cmd.Wait()
		return "", true, nil
	}
	werr := cmd.Wait()
	if rerr != nil {
		return "", false, rerr
	}
	if werr != nil {
		if ee, ok := werr.(interface{ ExitCode() int }); !ok || ee.ExitCode() != 1 {
			return "", false, fmt.Errorf("git %s: %w: %s", args[0], werr, firstLine(strings.TrimSpace(stderr.String())))
		}
	}
	return string(data), false, nil
}
