package sessions

import "bytes"

// Which table decodeCanonical is reading.
const (
	tableTop = iota
	tableBaseline
	tableFolder
)

// baselineTables reads, for decodeCanonical, the tables Marshal writes
// after the top-level keys: `[baseline]` (at, head), then any number of
// `[[baseline.folders]]` (path, head, since). Anything else (another
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
	default:
		return false
	}
	b.seen = 0
	return true
}

// set decodes one key of the current table.
func (b *baselineTables) set(m *Meta, key string, val []byte) bool {
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

// oneString decodes val, a basic string and nothing after it, into dst.
func oneString(val []byte, dst *string) bool {
	s, rest, ok := basicString(val)
	if !ok || len(rest) != 0 {
		return false
	}
	*dst = s
	return true
}
