package sessions

import "bytes"

// Which table decodeCanonical is reading.
const (
	tableTop = iota
	tableBaseline
	tableFolder
	tableWorktree
)

// baselineTables reads, for decodeCanonical, the tables Marshal writes
// after the top-level keys: `[baseline]` (at, head), then any number of
// `[[baseline.folders]]` (path, head, since), then `[worktree]` (path,
// branch, base, base_ref, repo). Anything else (another
// table, a header in another spelling, a key twice, an unknown key) makes
// it give up, and the file goes to the TOML parser.
type baselineTables struct {
	in   int
	seen uint8 // keys seen in the current table
}

// header starts the table line names.
func (b *baselineTables) header(m *Meta, line []byte) bool {
	switch {
	case b.in == tableTop && bytes.Equal(line, []byte("[baseline]")):
		m.Baseline = &Baseline{}
		b.in = tableBaseline
	case b.in != tableTop && bytes.Equal(line, []byte("[[baseline.folders]]")):
		m.Baseline.Folders = append(m.Baseline.Folders, FolderBaseline{})
		b.in = tableFolder
	case b.in != tableWorktree && m.Worktree == nil && bytes.Equal(line, []byte("[worktree]")):
		m.Worktree = &Worktree{}
		b.in = tableWorktree
	default:
		return false
	}
	b.seen = 0
	return true
}

// set decodes one key of the current table.
func (b *baselineTables) set(m *Meta, key string, val []byte) bool {
	if b.in == tableWorktree {
		return b.setWorktree(m.Worktree, key, val)
	}
	var bit uint8
	switch key {
	case "at":
		bit = 1
	case "head":
		bit = 2
	case "path":
		bit = 4
	case "since":
		bit = 8
	default:
		return false
	}
	if b.seen&bit != 0 {
		return false
	}
	b.seen |= bit
	if b.in == tableBaseline {
		switch key {
		case "at":
			t, ok := utcDateTime(val)
			m.Baseline.At = t
			return ok
		case "head":
			return oneString(val, &m.Baseline.Head)
		}
		return false
	}
	f := &m.Baseline.Folders[len(m.Baseline.Folders)-1]
	switch key {
	case "path":
		return oneString(val, &f.Path)
	case "head":
		return oneString(val, &f.Head)
	case "since":
		t, ok := utcDateTime(val)
		f.Since = &t
		return ok
	}
	return false
}

// setWorktree decodes one key of the [worktree] table into w.
func (b *baselineTables) setWorktree(w *Worktree, key string, val []byte) bool {
	var bit uint8
	var dst *string
	switch key {
	case "path":
		bit, dst = 1, &w.Path
	case "branch":
		bit, dst = 2, &w.Branch
	case "base":
		bit, dst = 4, &w.Base
	case "base_ref":
		bit, dst = 8, &w.BaseRef
	case "repo":
		bit, dst = 16, &w.Repo
	default:
		return false
	}
	if b.seen&bit != 0 {
		return false
	}
	b.seen |= bit
	return oneString(val, dst)
}

// oneString decodes val, a basic string and nothing after it, into dst.
func oneString(val []byte, dst *string) bool {
	s, rest, ok := basicString(val)
	if !ok || len(rest) != 0 {
		return false
	}
	*dst = s
	return true
}
