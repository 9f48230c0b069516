package sessions

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpmux/acpmux-tui/proto"
)

// AddFiles validates files and appends them to the chat's single files;
// files it already has are kept in place. The whole new list goes through
// the validator, so a refusal changes nothing.
func (s *Store) AddFiles(id string, files []string) (*Meta, error) {
	return s.Update(id, func(m *Meta) error {
		if _, err := s.ValidateFiles(m.Cwd, files); err != nil {
			return err
		}
		if gone := CheckStoredFiles(m.AdditionalFiles); len(gone) > 0 {
			return fmt.Errorf("chat %s: stored file %s %s; remove it first (rm-file)", m.ID, quotePath(gone[0].Path), gone[0].Reason)
		}
		all, err := s.ValidateFiles(m.Cwd, append(append([]string(nil), m.AdditionalFiles...), files...))
		if err != nil {
			return err
		}
		m.AdditionalFiles = all
		return nil
	})
}

// SetFiles replaces the chat's single files with files, validated; a
// refusal changes nothing. An empty list removes them all.
func (s *Store) SetFiles(id string, files []string) (*Meta, error) {
	return s.Update(id, func(m *Meta) error {
		all, err := s.ValidateFiles(m.Cwd, files)
		if err != nil {
			return err
		}
		m.AdditionalFiles = nilIfEmpty(all)
		return nil
	})
}

// RemoveFiles drops the named files from the chat's list. A file is matched
// as given, cleaned, or canonical, so a file that has gone can still be
// removed; a name that matches nothing is an error and changes nothing.
func (s *Store) RemoveFiles(id string, files []string) (*Meta, error) {
	return s.Update(id, func(m *Meta) error {
		drop := map[int]bool{}
		var missing []string
		for _, f := range files {
			found := false
			for i, have := range m.AdditionalFiles {
				if sameSharedFile(have, f) {
					drop[i], found = true, true
				}
			}
			if !found {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("chat %s has no file %s", m.ID, strings.Join(quoteAll(missing), ", "))
		}
		var kept []string
		for i, have := range m.AdditionalFiles {
			if !drop[i] {
				kept = append(kept, have)
			}
		}
		m.AdditionalFiles = kept
		return nil
	})
}

// RemoveMissingFiles drops every stored file that no longer passes the
// validator (the one-key fix for a refused start, with
// RemoveMissingFolders) and returns what it dropped.
func (s *Store) RemoveMissingFiles(id string) (*Meta, []proto.FolderProblem, error) {
	var dropped []proto.FolderProblem
	m, err := s.Update(id, func(m *Meta) error {
		dropped = CheckStoredFiles(m.AdditionalFiles)
		bad := map[int]bool{}
		for _, p := range dropped {
			bad[p.Index] = true
		}
		var kept []string
		for i, f := range m.AdditionalFiles {
			if !bad[i] {
				kept = append(kept, f)
			}
		}
		m.AdditionalFiles = kept
		return nil
	})
	return m, dropped, err
}

// sameSharedFile reports whether given names the stored file: as given, cleaned,
// or resolving to it.
func sameSharedFile(stored, given string) bool {
	if stored == given || (filepath.IsAbs(given) && stored == filepath.Clean(given)) {
		return true
	}
	c, err := CanonicalFile(given)
	return err == nil && c == stored
}

func nilIfEmpty(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	return ss
}
