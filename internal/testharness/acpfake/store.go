package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// session is one conversation, as kept in memory and in
// ACPMUX_FAKE_STATE/<id>.json.
type session struct {
	ID  string `json:"sessionId"`
	Cwd string `json:"cwd"`
	// AdditionalDirectories is the field as last received: null when the
	// request left it out, [] when it carried an empty list.
	AdditionalDirectories []string `json:"additionalDirectories"`
	Parent                string   `json:"parent,omitempty"` // the session a fork came from
	History               []turn   `json:"history"`
	// Links are the resource_link blocks received in prompts, in order,
	// as "NAME URI MIMETYPE" (MIMETYPE "-" when the block has none).
	Links []string `json:"links,omitempty"`
	// Mode and Model are the session's mode and "model" option, with
	// ACPMUX_FAKE_MODES=1 ("" for the first of each).
	Mode  string `json:"mode,omitempty"`
	Model string `json:"model,omitempty"`
}

// turn is one prompt and the agent's whole reply to it.
type turn struct {
	User  string `json:"user"`
	Agent string `json:"agent"`
}

// store holds the sessions of this process and, with a state folder, of
// earlier processes too.
type store struct {
	mu       sync.Mutex
	dir      string // "" keeps sessions in memory only
	sessions map[string]*session
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func newStore(dir string) *store {
	return &store{dir: dir, sessions: map[string]*session{}}
}

func newSessionID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "fake-" + hex.EncodeToString(b[:])
}

// get returns a copy of session id from memory or the state folder.
func (s *store) get(id string) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.lookup(id)
	if !ok {
		return session{}, false
	}
	return ss.clone(), true
}

func (s *store) lookup(id string) (*session, bool) {
	if ss, ok := s.sessions[id]; ok {
		return ss, true
	}
	if s.dir == "" || !sessionIDPattern.MatchString(id) {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(s.dir, id+".json"))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			logf("acpfake: read session %s: %v", id, err)
		}
		return nil, false
	}
	var ss session
	if err := json.Unmarshal(data, &ss); err != nil {
		logf("acpfake: parse session %s: %v", id, err)
		return nil, false
	}
	s.sessions[id] = &ss
	return &ss, true
}

// put stores ss (replacing any session with its id) and persists it.
func (s *store) put(ss session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := ss.clone()
	s.sessions[ss.ID] = &c
	return s.save(&c)
}

// update changes session id in place under the lock and persists it.
func (s *store) update(id string, change func(*session)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.lookup(id)
	if !ok {
		return fmt.Errorf("unknown session %s", id)
	}
	change(ss)
	return s.save(ss)
}

// save writes one session atomically: a temp file then a rename.
func (s *store) save(ss *session) error {
	if s.dir == "" {
		return nil
	}
	if !sessionIDPattern.MatchString(ss.ID) {
		logf("acpfake: session id %q is no file name: kept in memory only", ss.ID)
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	data, err := json.MarshalIndent(ss, "", "  ")
	if err != nil {
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	tmp, err := os.CreateTemp(s.dir, ss.ID+".*.tmp")
	if err != nil {
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, ss.ID+".json")); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save session %s: %w", ss.ID, err)
	}
	return nil
}

func (ss *session) clone() session {
	c := *ss
	if ss.AdditionalDirectories != nil {
		c.AdditionalDirectories = append([]string{}, ss.AdditionalDirectories...)
	}
	c.History = append([]turn(nil), ss.History...)
	return c
}
