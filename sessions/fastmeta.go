package sessions

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The chat files this store writes are a plain subset of TOML: one
// `key = value` line per known key, each value a basic string, an integer,
// a boolean, a UTC date-time or a one-line array of basic strings.
// The baseline's tables, which Marshal writes last, are in the subset too
// (fastbaseline.go). decodeCanonical reads that subset without the TOML parser, which was
// most of `ls`'s time at 1,000 chats (a profile: 16 of its 27 ms of
// listing, the rest reading the files). It never decides that a file is
// broken: anything outside the subset (a comment, a table, a key it does
// not know, a literal or multi-line string, CRLF, another form of a
// number or a date) makes it give up, and ParseMeta parses the file with
// the TOML parser as before, so a file that does not parse is refused with
// the same error as ever. Where it does decode, the Meta is the one
// toml.Decode makes of the same text (TestDecodeCanonicalIsTOML and
// FuzzDecodeCanonical check).

// canonicalKind is the TOML type a known key holds in Meta.
type canonicalKind uint8

const (
	kindString canonicalKind = iota
	kindStrings
	kindInt
	kindBool
	kindTime
	kindFloat
)

// canonicalKeys are Meta's keys and their kinds: knownKeys, typed.
var canonicalKeys = map[string]canonicalKind{
	"version": kindInt, "id": kindString, "name": kindString, "title": kindString, "harness": kindString, "cwd": kindString,
	"additional_directories": kindStrings, "additional_files": kindStrings, "created": kindTime,
	"parent": kindString, "origin": kindString, "agent_session_id": kindString,
	"folders_via": kindString, "files_via": kindString, "capsule": kindBool, "sandbox": kindBool,
	"context_used": kindInt, "context_size": kindInt, "cost": kindFloat, "cost_currency": kindString,
}

// decodeCanonical decodes data when it is in the plain subset, and
// reports false, with nothing decoded, when it is not. It does not check
// the chat's rules (Meta.check does).
func decodeCanonical(data []byte) (*Meta, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	var m Meta
	var seen uint32
	var tables baselineTables
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.Trim(line, " \t")) == 0 {
			continue
		}
		if line[0] == '[' {
			if !tables.header(&m, line) {
				return nil, false
			}
			continue
		}
		eq := bytes.IndexByte(line, '=')
		if eq < 0 {
			return nil, false
		}
		key := string(bytes.TrimRight(line[:eq], " \t"))
		if tables.in != tableTop {
			if !tables.set(&m, key, bytes.Trim(line[eq+1:], " \t")) {
				return nil, false
			}
			continue
		}
		kind, ok := canonicalKeys[key]
		if !ok {
			// Leading blanks, quoted or dotted keys, unknown ones.
			return nil, false
		}
		bit := uint32(1) << keyIndex(key)
		if seen&bit != 0 {
			return nil, false // a key twice: TOML refuses it
		}
		seen |= bit
		val := bytes.Trim(line[eq+1:], " \t")
		if !setCanonical(&m, key, kind, val) {
			return nil, false
		}
	}
	return &m, true
}

// keyIndex is a key's bit in decodeCanonical's set of keys seen.
func keyIndex(key string) uint {
	switch key {
	case "version":
		return 0
	case "id":
		return 1
	case "name":
		return 2
	case "harness":
		return 3
	case "cwd":
		return 4
	case "additional_directories":
		return 5
	case "additional_files":
		return 6
	case "created":
		return 7
	case "parent":
		return 8
	case "origin":
		return 9
	case "agent_session_id":
		return 10
	case "folders_via":
		return 11
	case "files_via":
		return 12
	case "capsule":
		return 13
	case "sandbox":
		return 14
	case "context_used":
		return 16
	case "context_size":
		return 17
	case "cost":
		return 18
	case "cost_currency":
		return 19
	default: // title
		return 15
	}
}

// setCanonical decodes one value of the key's kind into m.
func setCanonical(m *Meta, key string, kind canonicalKind, val []byte) bool {
	switch kind {
	case kindString:
		s, rest, ok := basicString(val)
		if !ok || len(rest) != 0 {
			return false
		}
		switch key {
		case "id":
			m.ID = s
		case "name":
			m.Name = s
		case "title":
			m.Title = s
		case "harness":
			m.Harness = s
		case "cwd":
			m.Cwd = s
		case "parent":
			m.Parent = s
		case "origin":
			m.Origin = s
		case "agent_session_id":
			m.AgentSessionID = s
		case "folders_via":
			m.FoldersVia = s
		case "files_via":
			m.FilesVia = s
		case "cost_currency":
			m.CostCurrency = s
		}
	case kindStrings:
		list, ok := stringArray(val)
		if !ok {
			return false
		}
		if key == "additional_directories" {
			m.AdditionalDirectories = list
		} else {
			m.AdditionalFiles = list
		}
	case kindInt:
		// A decimal integer as TOML writes one: no sign, no leading zero,
		// no underscore.
		if len(val) == 0 || len(val) > 18 || (val[0] == '0' && len(val) > 1) {
			return false
		}
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || strings.ContainsAny(string(val), "+-_") {
			return false
		}
		switch key {
		case "context_used":
			m.ContextUsed = n
		case "context_size":
			m.ContextSize = n
		default:
			if n > 1<<31-1 {
				return false
			}
			m.Version = int(n)
		}
	case kindBool:
		var v bool
		switch string(val) {
		case "true":
			v = true
		case "false":
		default:
			return false
		}
		if key == "capsule" {
			m.Capsule = v
		} else {
			m.Sandbox = v
		}
	case kindFloat:
		f, ok := plainFloat(val)
		if !ok {
			return false
		}
		m.Cost = f
	case kindTime:
		t, ok := utcDateTime(val)
		if !ok {
			return false
		}
		m.Created = t
	}
	return true
}

// plainFloat reads a float as TOML writes one with a fraction and no
// exponent or sign: digits, a point, digits (0.42, 12.0), with no leading
// zero before other digits. Any other form (an exponent, a sign, inf, nan,
// underscores) is left to the TOML parser.
func plainFloat(val []byte) (float64, bool) {
	dot := bytes.IndexByte(val, '.')
	if dot < 1 || dot == len(val)-1 || (val[0] == '0' && dot > 1) {
		return 0, false
	}
	for i, c := range val {
		if i != dot && (c < '0' || c > '9') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(val), 64)
	return f, err == nil
}

// utcDateTime reads YYYY-MM-DDTHH:MM:SS, an optional fraction of 1 to 9
// digits, and Z: the form Marshal writes (time.RFC3339Nano in UTC).
func utcDateTime(val []byte) (time.Time, bool) {
	const head = "0000-00-00T00:00:00"
	if len(val) < len(head)+1 || val[len(val)-1] != 'Z' {
		return time.Time{}, false
	}
	for i := range len(head) {
		if head[i] == '0' {
			if val[i] < '0' || val[i] > '9' {
				return time.Time{}, false
			}
		} else if val[i] != head[i] {
			return time.Time{}, false
		}
	}
	if frac := val[len(head) : len(val)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		for _, c := range frac[1:] {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
		}
	}
	// As the TOML parser reads an offset date-time.
	t, err := time.ParseInLocation(time.RFC3339Nano, string(val), time.Local)
	return t, err == nil
}

// stringArray reads a one-line array of basic strings: `[]`, `["a"]`,
// `["a", "b"]`.
func stringArray(val []byte) ([]string, bool) {
	if len(val) < 2 || val[0] != '[' || val[len(val)-1] != ']' {
		return nil, false
	}
	rest := bytes.TrimLeft(val[1:len(val)-1], " \t")
	// Non-nil when empty, as the TOML parser decodes [] into a slice.
	list := []string{}
	for len(rest) > 0 {
		s, after, ok := basicString(rest)
		if !ok {
			return nil, false
		}
		list = append(list, s)
		after = bytes.TrimLeft(after, " \t")
		if len(after) == 0 {
			break
		}
		if after[0] != ',' {
			return nil, false
		}
		rest = bytes.TrimLeft(after[1:], " \t")
		if len(rest) == 0 {
			return nil, false // a trailing comma: leave it to the parser
		}
	}
	return list, true
}

// basicString reads a TOML basic string at the start of val ("…", with
// the escapes \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX), and returns it and
// what follows it. A control character other than tab, any other escape,
// or an escape that is not a Unicode scalar value makes it give up.
func basicString(val []byte) (string, []byte, bool) {
	if len(val) == 0 || val[0] != '"' {
		return "", nil, false
	}
	i := 1
	plain := true
	for ; i < len(val); i++ {
		c := val[i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			i++ // the escaped character; checked below
			continue
		}
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return "", nil, false
		}
	}
	if i >= len(val) {
		return "", nil, false // unterminated
	}
	body, rest := val[1:i], val[i+1:]
	if plain {
		return string(body), rest, true
	}
	var b strings.Builder
	b.Grow(len(body))
	for j := 0; j < len(body); j++ {
		c := body[j]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		j++
		if j >= len(body) {
			return "", nil, false
		}
		switch body[j] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'u', 'U':
			n := 4
			if body[j] == 'U' {
				n = 8
			}
			if j+n >= len(body) {
				return "", nil, false
			}
			v, ok := hexRune(body[j+1 : j+1+n])
			if !ok {
				return "", nil, false
			}
			b.WriteRune(rune(v))
			j += n
		default:
			return "", nil, false
		}
	}
	return b.String(), rest, true
}

// hexRune reads hex digits as a Unicode scalar value (no surrogate, at
// most U+10FFFF), as TOML's \u and \U escapes require.
func hexRune(hex []byte) (rune, bool) {
	var v uint32
	for _, c := range hex {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	if v > utf8.MaxRune || !utf8.ValidRune(rune(v)) {
		return 0, false
	}
	return rune(v), true
}
