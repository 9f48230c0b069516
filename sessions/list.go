package sessions

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// parsedChat is what ParseMeta made of one chat file's bytes.
type parsedChat struct {
	meta *Meta
	err  error
}

// List returns every chat, sorted by creation time then id. Every
// chats/<name>.toml is listed: a file that does not parse, is over
// MaxChatFileBytes, is a symbolic link (never followed) or is not a regular
// file (a FIFO, a device, a folder) is listed as broken with the reason, and
// left as it is.
//
// The store remembers what the last List parsed, by the SHA-256 of the bytes
// parsed, so listing again reads each file but parses only what changed: a
// megabyte-sized chat costs its parse once, not at every refresh.
func (s *Store) List() ([]Entry, error) {
	des, err := os.ReadDir(filepath.Join(s.home, "chats"))
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	s.mu.Lock()
	before := s.parsed
	s.mu.Unlock()
	// A fresh map each time, so the memory follows the chats there are now;
	// a map once published is never written again, so concurrent Lists may
	// read it without the lock.
	now := make(map[[sha256.Size]byte]parsedChat, len(des))
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		id, ok := strings.CutSuffix(name, ".toml")
		if !ok || strings.HasPrefix(name, ".") {
			continue
		}
		if e, ok := s.listOne(id, de.Type(), before, now); ok {
			out = append(out, e)
		}
	}
	s.mu.Lock()
	s.parsed = now
	s.mu.Unlock()
	// Broken files have no creation time: they go last, by id, so the order
	// stays a total one.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Meta == nil) != (b.Meta == nil) {
			return b.Meta == nil
		}
		if a.Meta != nil && !a.Meta.Created.Equal(b.Meta.Created) {
			return a.Meta.Created.Before(b.Meta.Created)
		}
		return a.ID < b.ID
	})
	return out, nil
}

// listOne reads one chat file for List, parsing its bytes only when neither
// this List nor the last one has parsed the same bytes. It reports false for
// a file removed since the folder was read.
func (s *Store) listOne(id string, typ fs.FileMode, before, now map[[sha256.Size]byte]parsedChat) (Entry, bool) {
	e := Entry{ID: id}
	if !ValidID(id) {
		e.Broken = fmt.Errorf("load chat %q: the file's name is not a chat id (1-64 of [a-z0-9-], then .toml)", clip(id))
		return e, true
	}
	data, _, err := openChatFile(s.ChatPath(id), typ)
	if errors.Is(err, fs.ErrNotExist) {
		return e, false
	}
	if err != nil {
		e.Broken = fmt.Errorf("load chat %s: %w", id, err)
		return e, true
	}
	key := sha256.Sum256(data)
	p, ok := now[key]
	if !ok {
		if p, ok = before[key]; !ok {
			m, err := ParseMeta(data)
			p = parsedChat{m, err}
		}
		now[key] = p
	}
	err = p.err
	if err == nil {
		err = checkFileID(id, p.meta)
	}
	if err != nil {
		e.Broken = fmt.Errorf("load chat %s: %w", id, err)
		return e, true
	}
	// Each caller gets its own copy to change.
	e.Meta = p.meta.Clone()
	e.NoProject = s.NoProject(e.Meta)
	return e, true
}

// Resolve finds the chat an ID argument means: the exact id, the exact name,
// or a unique prefix of either.
func (s *Store) Resolve(ref string) (Entry, error) {
	if ref == "" {
		return Entry{}, fmt.Errorf("find chat: empty id: %w", ErrNotFound)
	}
	if ValidID(ref) {
		if _, err := os.Lstat(s.ChatPath(ref)); err == nil {
			m, err := s.Load(ref)
			return Entry{ID: ref, Meta: m, Broken: err}, nil
		}
	}
	entries, err := s.List()
	if err != nil {
		return Entry{}, err
	}
	var byName, byPrefix []Entry
	for _, e := range entries {
		if e.Meta != nil && e.Meta.Name == ref {
			byName = append(byName, e)
		}
		if strings.HasPrefix(e.ID, ref) || (e.Meta != nil && strings.HasPrefix(e.Meta.Name, ref)) {
			byPrefix = append(byPrefix, e)
		}
	}
	for _, set := range [][]Entry{byName, byPrefix} {
		switch len(set) {
		case 0:
		case 1:
			return set[0], nil
		default:
			ids := make([]string, len(set))
			for i, e := range set {
				ids[i] = e.ID
			}
			return Entry{}, fmt.Errorf("find chat %q: ambiguous, matches %s", ref, strings.Join(ids, ", "))
		}
	}
	return Entry{}, fmt.Errorf("find chat %q: %w", ref, ErrNotFound)
}
