package review

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// MtimeSection lists the regular files under dir modified after since,
// skipping .git folders and not following symbolic links. The walk stops
// after MaxWalkEntries entries and the list after MaxListed files; the
// section's note says when either happened.
func MtimeSection(dir string, since time.Time) proto.ReviewSection {
	s := proto.ReviewSection{Folder: dir, Kind: proto.ReviewMtime, Base: since.UTC().Format(time.RFC3339Nano), Files: []proto.ReviewFile{}}
	from := since.Add(-mtimeSlack)
	seen, more := 0, 0
	var unreadable int
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			unreadable++
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		seen++
		if seen > MaxWalkEntries {
			return errTooMany
		}
		if d.IsDir() {
			if d.Name() == ".git" && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().Before(from) {
			return nil
		}
		if len(s.Files) >= MaxListed {
			more++
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		s.Files = append(s.Files, proto.ReviewFile{Path: filepath.ToSlash(rel), Status: proto.ReviewModified})
		return nil
	})
	var notes []string
	if errors.Is(err, errTooMany) {
		notes = append(notes, fmt.Sprintf("walk stopped after %d entries", MaxWalkEntries))
	}
	if more > 0 {
		notes = append(notes, fmt.Sprintf("%d more files not listed (at most %d)", more, MaxListed))
	}
	if unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d entries unreadable", unreadable))
	}
	notes = append(notes, "not a git repository: files modified since, not diffed")
	s.Note = strings.Join(notes, "; ")
	slices.SortFunc(s.Files, func(a, b proto.ReviewFile) int { return strings.Compare(a.Path, b.Path) })
	return s
}
