// Package lockedbuf is a bytes.Buffer that several goroutines may use at
// once: a test hands it to a process's stderr or a logger while it reads
// what was written so far.
package lockedbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer whose Write and String take a lock. Its zero
// value is an empty buffer ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
