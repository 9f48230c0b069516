// Package startrecord is how the fake harnesses tell tests what a start
// really received: one JSON line per process start, appended to the file
// named by $ACPMUX_FAKE_RECORD, read back by the tests.
package startrecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// Record is one start of a fake harness as it saw it.
type Record struct {
	Argv       []string `json:"argv"`
	Cwd        string   `json:"cwd"`
	Env        []string `json:"env"`
	Pid        int      `json:"pid"`
	Pgid       int      `json:"pgid"`
	StdinIsTTY bool     `json:"stdinIsTTY,omitempty"`
	Cols       int      `json:"cols,omitempty"`
	Rows       int      `json:"rows,omitempty"`
	ChildPid   int      `json:"childPid,omitempty"`
}

// Current returns the record of this process: its argv, folder,
// environment, pid and process group.
func Current() Record {
	cwd, _ := os.Getwd()
	pgid, _ := syscall.Getpgid(0)
	return Record{Argv: os.Args, Cwd: cwd, Env: os.Environ(), Pid: os.Getpid(), Pgid: pgid}
}

// Getenv returns a variable of the recorded environment.
func (r Record) Getenv(name string) (string, bool) {
	for _, kv := range r.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// Append adds r to the file $ACPMUX_FAKE_RECORD names; without it, nothing.
// One write of one line, in append mode, so concurrent starts do not mix.
func Append(r Record) error {
	path := os.Getenv("ACPMUX_FAKE_RECORD")
	if path == "" {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Read returns every record in the file, oldest first; a missing file is no
// records yet. A last line without its newline is a record still being
// written (a reader can see a write half done): it is left for the next
// read.
func Read(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	for len(b) > 0 {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		if !complete {
			break
		}
		b = rest
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("record %q: %w", line, err)
		}
		out = append(out, r)
	}
	return out, nil
}
