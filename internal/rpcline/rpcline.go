// Package rpcline splits one JSON-RPC 2.0 message, a JSON object on one
// line, into the members that say what it is, without decoding their
// values: a key's echo crosses the socket twice as such a line, and
// encoding/json's map decoding of it cost more than the rest of the
// server's work on the key. The values stay raw JSON, for the caller to
// decode the one it needs.
package rpcline

import (
	"bytes"
	"unicode/utf8"
)

// Members are the raw JSON values of a message's members; a member left
// out is nil. Of a member given twice, the last counts, as when the object
// is decoded into a map. Other members are skipped.
type Members struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

// Split returns the members of obj, which must be valid JSON (json.Valid):
// ok is false when it is not an object. Split does not check validity
// itself: on other input its result means nothing, but it never panics.
func Split(obj []byte) (m Members, ok bool) {
	ok = Each(obj, func(key, value []byte) bool {
		if dst := m.member(key); dst != nil {
			*dst = value
		}
		return true
	})
	return m, ok
}

// Each calls fn with each member of the object obj in order, its key and
// its value raw (the key with its quotes), until fn returns false. obj
// must be valid JSON; ok is false when it is not an object.
func Each(obj []byte, fn func(key, value []byte) bool) (ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return true
		}
		if obj[i] == ',' {
			i++
			continue
		}
		keyEnd := skipString(obj, i)
		key := obj[i:keyEnd]
		i = skipSpace(obj, keyEnd)
		if i < len(obj) && obj[i] == ':' {
			i++
		}
		i = skipSpace(obj, i)
		end := skipValue(obj, i)
		if end <= i {
			return true // not valid JSON: stop rather than loop
		}
		if !fn(key, obj[i:end]) {
			return true
		}
		i = end
	}
}

// member returns where the value of the member named by the JSON string
// key goes, nil for a member not kept.
func (m *Members) member(key []byte) *[]byte {
	if len(key) < 2 {
		return nil
	}
	name := key[1 : len(key)-1]
	if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
		s, ok := Unquote(key) // "\u0069d" is "id" too
		if !ok {
			return nil
		}
		name = []byte(s)
	}
	switch string(name) {
	case "jsonrpc":
		return &m.JSONRPC
	case "id":
		return &m.ID
	case "method":
		return &m.Method
	case "params":
		return &m.Params
	case "result":
		return &m.Result
	case "error":
		return &m.Error
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value that starts at i.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// Elements calls fn with each element of the array arr in order, raw,
// until fn returns false. arr must be valid JSON; ok is false when it is
// not an array.
func Elements(arr []byte, fn func(value []byte) bool) (ok bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i++
	for {
		i = skipSpace(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return true
		}
		if arr[i] == ',' {
			i++
			continue
		}
		end := skipValue(arr, i)
		if end <= i {
			return true // not valid JSON: stop rather than loop
		}
		if !fn(arr[i:end]) {
			return true
		}
		i = end
	}
}
