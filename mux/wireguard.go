package mux

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxMessageBytes bounds one JSON-RPC message from an agent (8 MiB).
const maxMessageBytes = 8 << 20

// wireGuard sits between an agent's stdout and the ACP connection: it lets
// through only whole lines that are JSON and at most max bytes. The first
// malformed or oversized message calls bad (which logs it and stops the
// harness) and ends the stream, so the chat is marked failed instead of the
// connection guessing.
type wireGuard struct {
	r    *bufio.Reader
	max  int
	bad  func(reason string)
	out  []byte
	done bool
}

func newWireGuard(r io.Reader, max int, bad func(string)) *wireGuard {
	return &wireGuard{r: bufio.NewReaderSize(r, 64*1024), max: max, bad: bad}
}

func (g *wireGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.done {
			return 0, io.EOF
		}
		line, err := g.readLine()
		if err != nil {
			g.done = true
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
				// The agent is gone (or only a grandchild holds the pipe).
				return 0, io.EOF
			}
			g.bad(err.Error())
			return 0, io.EOF
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !json.Valid(trimmed) {
			g.done = true
			g.bad(fmt.Sprintf("not JSON: %.120q", trimmed))
			return 0, io.EOF
		}
		g.out = append(trimmed, '\n')
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// readLine reads one line, refusing one longer than max without holding more
// than max bytes.
func (g *wireGuard) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := g.r.ReadSlice('\n')
		if len(line)+len(chunk) > g.max {
			return nil, fmt.Errorf("message longer than %d bytes", g.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}
