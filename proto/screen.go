package proto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// A key is one MethodWrite and its echo one NotifyScreen: the client
// writes the first and the server the second with the functions below,
// and the client reads the second, without reflection, which cost more
// than the rest of their paths. They write the JSON encoding/json would.

// AppendJSON appends p as encoding/json writes it.
func (p WriteParams) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = rpcline.AppendString(b, p.ID)
	b = append(b, `,"data":`...)
	if p.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, p.Data)
		b = append(b, '"')
	}
	return append(b, '}')
}

// DecodeJSON reads params in the form AppendJSON writes them with an id
// that needs no escape, {"id":"ID","data":"BASE64"}, into p, and reports
// whether it could: anything else (escapes, other keys, spaces, null
// data, bad base64) is left to encoding/json, which reads the same params
// to the same value. A key's params are read so at every key.
func (p *WriteParams) DecodeJSON(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte(`{"id":"`))
	if !ok {
		return false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return false
	}
	id := rest[:end]
	for _, c := range id {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	if !utf8.Valid(id) {
		return false
	}
	data, ok := bytes.CutPrefix(rest[end:], []byte(`","data":"`))
	if !ok {
		return false
	}
	data, ok = bytes.CutSuffix(data, []byte(`"}`))
	if !ok || bytes.IndexByte(data, '"') >= 0 {
		return false
	}
	// base64 skips a raw CR or LF, which a JSON string may not hold.
	if bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, '\n') >= 0 {
		return false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	n, err := base64.StdEncoding.Decode(out, data)
	if err != nil {
		return false
	}
	p.ID, p.Data = string(id), out[:n]
	return true
}

// EncodeScreenUpdate returns the NotifyScreen line for u, its newline
// included.
func EncodeScreenUpdate(u ScreenUpdate) []byte {
	b := make([]byte, 0, 96+len(u.ID)+screenPatchSize(u.Screen))
	b = append(b, `{"jsonrpc":"2.0","method":"`+NotifyScreen+`","params":{"id":`...)
	b = rpcline.AppendString(b, u.ID)
	b = append(b, `,"cursor":[`...)
	b = strconv.AppendInt(b, int64(u.Cursor[0]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(u.Cursor[1]), 10)
	b = append(b, `],"screen":{`...)
	if u.Screen.Full != nil {
		b = append(b, `"full":`...)
		b = rpcline.AppendString(b, *u.Screen.Full)
	}
	if len(u.Screen.Rows) > 0 {
		if u.Screen.Full != nil {
			b = append(b, ',')
		}
		b = append(b, `"rows":{`...)
		rows := make([]int, 0, len(u.Screen.Rows))
		for n := range u.Screen.Rows {
			rows = append(rows, n)
		}
		slices.Sort(rows)
		for i, n := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, `":`...)
			b = rpcline.AppendString(b, u.Screen.Rows[n])
		}
		b = append(b, '}')
	}
	return append(b, "}}}\n"...)
}

func screenPatchSize(p ScreenPatch) int {
	n := 0
	if p.Full != nil {
		n += len(*p.Full) + 16
	}
	for _, row := range p.Rows {
		n += len(row) + 16
	}
	return n
}

// DecodeScreenUpdate reads NotifyScreen's params, which must be valid JSON
// (the client's reader has checked the whole line). The form
// EncodeScreenUpdate writes is read directly; any other goes through
// encoding/json, which decides what it means.
func DecodeScreenUpdate(params []byte) (ScreenUpdate, error) {
	if u, ok := decodeScreenFast(params); ok {
		return u, nil
	}
	var u ScreenUpdate
	if err := json.Unmarshal(params, &u); err != nil {
		return ScreenUpdate{}, fmt.Errorf("%s: %w", NotifyScreen, err)
	}
	return u, nil
}

// decodeScreenFast reads valid JSON params when they have exactly the members
// EncodeScreenUpdate writes, each once and of its type; ok is false for
// anything else.
func decodeScreenFast(params []byte) (u ScreenUpdate, ok bool) {
	var seen [3]bool
	ok = true
	done := rpcline.Each(params, func(key, value []byte) bool {
		switch string(key) {
		case `"id"`:
			u.ID, ok = rpcline.Unquote(value)
			ok = ok && !seen[0]
			seen[0] = true
		case `"cursor"`:
			u.Cursor, ok = decodeCursor(value)
			ok = ok && !seen[1]
			seen[1] = true
		case `"screen"`:
			u.Screen, ok = decodePatchFast(value)
			ok = ok && !seen[2]
			seen[2] = true
		default:
			ok = false
		}
		return ok
	})
	return u, done && ok && seen[0] && seen[1] && seen[2]
}

// decodeCursor reads [col,row] written with no spaces.
func decodeCursor(v []byte) (c [2]int, ok bool) {
	if len(v) < 5 || v[0] != '[' || v[len(v)-1] != ']' {
		return c, false
	}
	inner := v[1 : len(v)-1]
	comma := slices.Index(inner, ',')
	if comma < 0 {
		return c, false
	}
	x, err1 := strconv.Atoi(string(inner[:comma]))
	y, err2 := strconv.Atoi(string(inner[comma+1:]))
	return [2]int{x, y}, err1 == nil && err2 == nil
}

// decodePatchFast reads a ScreenPatch with a full screen, rows, or both.
func decodePatchFast(v []byte) (p ScreenPatch, ok bool) {
	ok = true
	var seenFull, seenRows bool
	done := rpcline.Each(v, func(key, value []byte) bool {
		switch string(key) {
		case `"full"`:
			var full string
			full, ok = rpcline.Unquote(value)
			p.Full = &full
			ok = ok && !seenFull
			seenFull = true
		case `"rows"`:
			ok = !seenRows
			seenRows = true
			p.Rows = map[int]string{}
			rowsDone := rpcline.Each(value, func(k, row []byte) bool {
				name, kOK := rpcline.Unquote(k)
				n, err := strconv.Atoi(name)
				text, rOK := rpcline.Unquote(row)
				_, dup := p.Rows[n]
				if !kOK || err != nil || !rOK || dup || strconv.Itoa(n) != name {
					ok = false
					return false
				}
				p.Rows[n] = text
				return true
			})
			ok = ok && rowsDone
		default:
			ok = false
		}
		return ok
	})
	return p, done && ok
}
