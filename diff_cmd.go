package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/review"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// diffJSON is what `diff --json` prints.
type diffJSON struct {
	ID       string                `json:"id"`
	Sections []proto.ReviewSection `json:"sections"`
}

func cmdDiff(a *app, args []string) error {
	fs := newFlags(a, "diff")
	stat := fs.Bool("stat", false, "print each section's files with their counts, like git diff --stat")
	asJSON := fs.Bool("json", false, "print the sections and their files as JSON")
	base := fs.String("base", "", "compare the chat's folder against `REF` instead of its base")
	parent := fs.Bool("parent", false, "compare the chat's folder against the parent chat's branch")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui diff ID [--stat] [--json] [--base REF|--parent]")
	}
	if *base != "" && *parent {
		return usagef("diff: --base and --parent both name the compare side; give one")
	}
	e, err := a.resolve(pos[0])
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return fmt.Errorf("diff %s: %w (the file is left as it is: fix or move it by hand)", e.ID, e.Broken)
	}
	var par *sessions.Meta
	if e.Meta.Parent != "" {
		par, _ = a.store.Load(e.Meta.Parent)
	}
	ctx := context.Background()
	sections, err := review.OfChat(ctx, e.Meta, par, proto.ReviewSide{Ref: *base, Parent: *parent})
	if err != nil {
		return fmt.Errorf("diff %s: %w", e.ID, err)
	}
	switch {
	case *asJSON:
		return a.printJSON(diffJSON{ID: e.ID, Sections: sections})
	case *stat:
		return writeStat(a.stdout, sections)
	}
	return writeDiffs(ctx, a.stdout, sections)
}

// sectionHeader is one section's first line: its folder, and what it is
// compared against.
func sectionHeader(s proto.ReviewSection) string {
	against := "changed since " + s.Base
	if s.Kind == proto.ReviewGit {
		against = "against " + shortSHA(s.Base)
	}
	h := fmt.Sprintf("%s (%s, %s)", s.Folder, s.Kind, against)
	if s.Note != "" {
		h += ": " + s.Note
	}
	return plaintext.Line(h)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// statWidth is the widest +/- bar of a stat line.
const statWidth = 40

// writeStat prints each section as git diff --stat prints a diff: a line per
// file with its count and a bar, then the totals.
func writeStat(w io.Writer, sections []proto.ReviewSection) error {
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(sectionHeader(s) + "\n")
		nameW, most := 0, 0
		for _, f := range s.Files {
			nameW = max(nameW, len(plaintext.Line(f.Path)))
			most = max(most, f.Added+f.Deleted)
		}
		adds, dels := 0, 0
		for _, f := range s.Files {
			name := plaintext.Line(f.Path)
			switch {
			case s.Kind != proto.ReviewGit:
				fmt.Fprintf(&b, " %-*s | modified\n", nameW, name)
			case f.Binary:
				fmt.Fprintf(&b, " %-*s | Bin\n", nameW, name)
			default:
				plus, minus := f.Added, f.Deleted
				if most > statWidth {
					plus, minus = scaled(f.Added, most), scaled(f.Deleted, most)
				}
				fmt.Fprintf(&b, " %-*s | %d %s%s\n", nameW, name, f.Added+f.Deleted, strings.Repeat("+", plus), strings.Repeat("-", minus))
			}
			adds += f.Added
			dels += f.Deleted
		}
		switch {
		case len(s.Files) == 0:
			b.WriteString(" no changes\n")
		case s.Kind == proto.ReviewGit:
			fmt.Fprintf(&b, " %d %s changed, %d insertions(+), %d deletions(-)\n", len(s.Files), plural(len(s.Files), "file", "files"), adds, dels)
		default:
			fmt.Fprintf(&b, " %d %s modified\n", len(s.Files), plural(len(s.Files), "file", "files"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scaled is n's share of a statWidth bar whose longest is most, at least one
// mark for a nonzero n.
func scaled(n, most int) int {
	if n == 0 {
		return 0
	}
	return max(1, n*statWidth/most)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeDiffs prints every section's files with the diff of each; a file that
// is binary, too large or in a folder reviewed by mtime is named, not drawn.
func writeDiffs(ctx context.Context, w io.Writer, sections []proto.ReviewSection) error {
	for i, s := range sections {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "# "+sectionHeader(s)+"\n"); err != nil {
			return err
		}
		if len(s.Files) == 0 {
			if _, err := io.WriteString(w, "# no changes\n"); err != nil {
				return err
			}
		}
		for _, f := range s.Files {
			d, err := review.FileDiff(ctx, s, f, 0)
			if err != nil {
				return err
			}
			text := d.Text
			if why := d.Reason(); why != "" {
				text = fmt.Sprintf("# %s (%s): %s\n", plaintext.Line(f.Path), f.Status, why)
			}
			if _, err := io.WriteString(w, plaintext.Clean(text)); err != nil {
				return err
			}
		}
	}
	return nil
}
