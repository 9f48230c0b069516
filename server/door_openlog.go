package server

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// openLog is the door's file of open requests (proto.DoorTook), written
// through a shared mapping of it: a request taken and its answer cost no
// system call on the way of a prompt, and what is stored is in the page
// cache the moment it is stored, for the door to read should this process
// die at any instruction.
//
// Every change is one byte store that a reader sees or does not see: the
// log ends at its first NUL (proto.DoorLog) and everything past its lines
// is NUL, so a line is appended by writing all of it but its first byte,
// then that byte over the NUL that ended the log; and the log is emptied
// by a NUL at its start (the bytes after it are cleared next).
type openLog struct {
	f    *os.File
	m    []byte // the mapping, len(m) the file's size
	used int    // bytes of lines in m
	most int    // the largest mapping (openLogMost)
	// write, when the file could not be mapped, appends with write(2).
	write  bool
	closed bool
}

// Sizes of the mapping: it starts small and doubles as lines come while
// some request stays open; past the largest it starts again from the
// requests open.
const (
	openLogFirst = 64 << 10
	openLogMost  = 16 << 20
)

func newOpenLog(f *os.File) *openLog { return newOpenLogSized(f, openLogFirst, openLogMost) }

func newOpenLogSized(f *os.File, first, most int) *openLog {
	l := &openLog{f: f, most: most}
	if err := l.mapSize(first); err != nil {
		l.write = true
	}
	return l
}

// mapSize makes the file size bytes long and maps it anew.
func (l *openLog) mapSize(size int) error {
	if err := l.f.Truncate(int64(size)); err != nil {
		return err
	}
	m, err := unix.Mmap(int(l.f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	if l.m != nil {
		_ = unix.Munmap(l.m)
	}
	l.m = m
	return nil
}

// add appends the line how+id; open lists the ids open with this line
// counted, for a log that must start again from them.
func (l *openLog) add(how byte, id []byte, open func() []string) {
	if l.closed {
		return
	}
	if l.write {
		_, _ = l.f.Write(append(append([]byte{how}, id...), '\n'))
		return
	}
	if l.store(how, id) {
		return
	}
	if len(l.m) < l.most && l.mapSize(min(2*len(l.m), l.most)) == nil && l.store(how, id) {
		return
	}
	l.restart(open())
}

// store appends the line how+id when it fits.
func (l *openLog) store(how byte, id []byte) bool {
	n := len(id) + 2
	if l.used+n > len(l.m) {
		return false
	}
	at := l.m[l.used:]
	copy(at[1:], id)
	at[n-1] = '\n'
	at[0] = how // the line is there from this store on
	l.used += n
	return true
}

// empty empties the log: nothing is open.
func (l *openLog) empty() {
	if l.closed {
		return
	}
	if l.write {
		_ = l.f.Truncate(0)
		_, _ = l.f.Seek(0, 0)
		return
	}
	l.m[0] = 0
	clear(l.m[1:l.used])
	l.used = 0
}

// restart writes the log again with only the ids open. It is the one
// change that a death halfway through can lose open requests in, and it
// comes only after openLogMost bytes of lines with some request open
// throughout.
func (l *openLog) restart(ids []string) {
	l.empty()
	for _, id := range ids {
		l.store(proto.DoorTook, []byte(id))
	}
}

// close lets go of the mapping and the file.
func (l *openLog) close() {
	l.closed = true
	if l.m != nil {
		_ = unix.Munmap(l.m)
		l.m = nil
	}
	l.f.Close()
}
