package rpcline

import (
	"bytes"
	"encoding/json"
)

// Stream finds the id and method members of one JSON-RPC message fed to it
// in pieces, wherever they stand in the object, and keeps only them: a line
// too long to hold can still be told apart (a request, whose id can be
// answered, or not) while it is read and dropped. It follows the structure
// of the text without checking it is valid JSON, holds a few bytes whatever
// the size of the message, and never panics.
type Stream struct {
	// ID and Method are the raw values of the top-level "id" and "method"
	// members seen so far (the last of each), nil when absent or longer
	// than MaxStreamMember.
	ID, Method []byte
	// NotObject is set once the text turns out not to be a JSON object.
	NotObject bool
	// Ended is set once the top-level object has closed.
	Ended bool

	depth      int
	inStr, esc bool
	phase      streamPhase
	key        []byte
	keyOver    bool
	dst        *[]byte // the member value being kept, nil when skipped
	over       bool    // the value kept passed MaxStreamMember
}

// MaxStreamMember bounds the id and method a Stream keeps, in bytes.
const MaxStreamMember = 1024

// maxStreamKey bounds a member's key as kept: longer keys are neither "id"
// nor "method", even escaped.
const maxStreamKey = 64

type streamPhase uint8

// The phases of the top-level object.
const (
	wantKey streamPhase = iota
	inKey
	wantColon
	wantValue
	inString // a string value
	inNested // an object or array value
	inScalar // a number, true, false or null
	wantComma
)

// Write feeds the next bytes of the message. It never fails.
func (s *Stream) Write(b []byte) (int, error) {
	for _, c := range b {
		if s.NotObject || s.Ended {
			break
		}
		s.step(c)
	}
	return len(b), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (s *Stream) step(c byte) {
	if s.inStr {
		s.keep(c)
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			switch {
			case s.depth > 1:
			case s.phase == inKey:
				s.phase = wantColon
			case s.phase == inString:
				s.endValue()
			}
		}
		return
	}
	if s.depth == 0 {
		switch {
		case isSpace(c):
		case c == '{':
			s.depth, s.phase = 1, wantKey
		default:
			s.NotObject = true
		}
		return
	}
	if s.depth > 1 {
		s.keep(c)
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			if s.depth--; s.depth == 1 {
				s.endValue()
			}
		}
		return
	}
	if s.phase == inScalar {
		if !isSpace(c) && c != ',' && c != '}' {
			s.keep(c)
			return
		}
		s.endValue()
	}
	if isSpace(c) {
		return
	}
	switch s.phase {
	case wantKey:
		switch c {
		case '"':
			s.inStr, s.phase, s.key, s.keyOver = true, inKey, append(s.key[:0], c), false
		case '}':
			s.Ended = true
		}
	case wantColon:
		if c == ':' {
			s.phase = wantValue
		}
	case wantValue:
		s.dst, s.over = s.target(), false
		if s.dst != nil {
			*s.dst = append((*s.dst)[:0], c)
		}
		switch c {
		case '"':
			s.inStr, s.phase = true, inString
		case '{', '[':
			s.depth, s.phase = 2, inNested
		default:
			s.phase = inScalar
		}
	case wantComma:
		switch c {
		case ',':
			s.phase = wantKey
		case '}':
			s.Ended = true
		}
	}
}

// keep adds c to the key or the member value being kept.
func (s *Stream) keep(c byte) {
	switch {
	case s.phase == inKey && s.depth == 1:
		if len(s.key) >= maxStreamKey {
			s.keyOver = true
			return
		}
		s.key = append(s.key, c)
	case s.dst != nil && !s.over:
		if len(*s.dst) >= MaxStreamMember {
			s.over = true
			return
		}
		*s.dst = append(*s.dst, c)
	}
}

func (s *Stream) endValue() {
	if s.dst != nil && s.over {
		*s.dst = nil
	}
	s.dst, s.phase = nil, wantComma
}

// target is where the value of the member just named is kept, nil for a
// member not kept.
func (s *Stream) target() *[]byte {
	if s.keyOver || len(s.key) < 2 {
		return nil
	}
	name := string(s.key[1 : len(s.key)-1])
	if bytes.IndexByte(s.key, '\\') >= 0 {
		var ok bool
		if name, ok = Unquote(s.key); !ok {
			return nil
		}
	}
	switch name {
	case "id":
		return &s.ID
	case "method":
		return &s.Method
	}
	return nil
}

// Request returns the id (raw JSON: a number or a string) and the method of
// the message fed so far, when it is a request: ok is false for a
// notification (no id, or a null one), a response (no method), or members
// that do not read as an id and a method.
func (s *Stream) Request() (id json.RawMessage, method string, ok bool) {
	if s.NotObject || len(s.ID) == 0 || len(s.Method) == 0 || !json.Valid(s.ID) {
		return nil, "", false
	}
	switch c := s.ID[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
	default:
		return nil, "", false
	}
	method, ok = Unquote(s.Method)
	if !ok || method == "" {
		return nil, "", false
	}
	return append(json.RawMessage(nil), s.ID...), method, true
}
