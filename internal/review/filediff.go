package review

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxDiffBytes is the largest diff of one file drawn.
const DefaultMaxDiffBytes = 1 << 20

// Diff is one file's diff, or why it is not drawn.
type Diff struct {
	Path string
	// Text is the unified diff; empty when Binary, TooLarge or NotDiffed.
	Text     string
	Binary   bool
	TooLarge bool
	// NotDiffed is set for a file of an mtime section: listed only.
	NotDiffed bool
}

// Reason says why a diff has no text, or "".
func (d Diff) Reason() string {
	switch {
	case d.NotDiffed:
		return "not in a git repository: listed, not diffed"
	case d.Binary:
		return "binary file: not drawn"
	case d.TooLarge:
		return "diff too large: not drawn"
	}
	return ""
}

// FileDiff returns the unified diff of f in section s, at most maxBytes of
// it (DefaultMaxDiffBytes when 0): `git diff BASE -- path` for a tracked
// file, the whole file as added for an untracked one.
func FileDiff(ctx context.Context, s Section, f File, maxBytes int) (Diff, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDiffBytes
	}
	d := Diff{Path: f.Path}
	switch {
	case s.Kind != KindGit:
		d.NotDiffed = true
		return d, nil
	case f.Binary:
		d.Binary = true
		return d, nil
	}
	var args []string
	if f.Status == StatusUntracked {
		full := filepath.Join(s.Folder, f.Path)
		fi, err := os.Lstat(full)
		if err != nil {
			return d, fmt.Errorf("diff %s: %w", f.Path, err)
		}
		if fi.Size() > int64(maxBytes) {
			d.TooLarge = true
			return d, nil
		}
		args = []string{"diff", "--no-index", "--no-ext-diff", "--no-textconv", "--", os.DevNull, f.Path}
	} else {
		args = []string{"diff", "--relative", "--no-ext-diff", "--no-textconv", s.Base, "--", f.Path}
	}
	text, tooLarge, err := gitCapped(ctx, s.Folder, maxBytes, args...)
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

// gitCapped runs git reading at most maxBytes of its output; more stops it
// and reports tooLarge. Exit status 1 (differences, for --no-index) is not
// an error.
func gitCapped(ctx context.Context, dir string, maxBytes int, args ...string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCmd(ctx, dir, args...)
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
