package capsule

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Bounds on reading a harness's session log, a file acpmux-tui did not
// write: a log larger than headBytes+tailBytes is read in two windows, its
// head (where the goal is) and its tail (where the last exchange is); a
// line longer than maxLineBytes is skipped whole.
const (
	headBytes    = 4 << 20
	tailBytes    = 12 << 20
	maxLineBytes = 2 << 20
)

// readLog calls line for each line of the log at path, reading at most
// headBytes+tailBytes of it. The file is opened without following a
// symbolic link and must be a regular file. gap reports a middle left
// unread.
func readLog(path string, line func([]byte)) (gap bool, err error) {
	f, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	size := fi.Size()
	if size <= headBytes+tailBytes {
		return false, eachLine(io.LimitReader(f, headBytes+tailBytes), false, line)
	}
	if err := eachLine(io.LimitReader(f, headBytes), false, line); err != nil {
		return true, err
	}
	if _, err := f.Seek(size-tailBytes, io.SeekStart); err != nil {
		return true, err
	}
	// The tail window starts inside a line: its first, partial one is
	// dropped.
	return true, eachLine(io.LimitReader(f, tailBytes), true, line)
}

// ReadLog is readLog for a reader outside the package (the search of
// every chat): the same bounds, the same refusal of what is not a regular
// file.
func ReadLog(path string, line func([]byte)) (gap bool, err error) { return readLog(path, line) }

// openRegular opens path for reading only if it is a regular file, never
// through a symbolic link at its last component, and without blocking on
// a FIFO.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) {
		f.Close()
		return nil, fmt.Errorf("%s: changed while opened", path)
	}
	return f, nil
}

// eachLine splits r into lines and calls line for each one no longer than
// maxLineBytes; longer ones are read through and skipped. With skipFirst
// the first line is dropped.
func eachLine(r io.Reader, skipFirst bool, line func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLineBytes {
			over, buf = true, buf[:0]
		} else if !over {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 || len(buf) > 0 {
			if !over && !skipFirst {
				line(bytes.TrimRight(buf, "\r\n"))
			}
			skipFirst = false
		}
		buf, over = buf[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// missing reports an error that means there is no such log.
func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
