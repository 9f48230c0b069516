package memtrim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mapping is one mapping of /proc/self/smaps.
type mapping struct {
	start, end uint64
	perms      string
	path       string
	anon       uint64 // Anonymous: kB, pages copied on write
}

// unmapBinary drops the page-table entries of the executable's read-only
// mappings (MADV_DONTNEED): text and read-only data come back from the
// page cache at their next use. A mapping with any page copied on write
// (relocations written at load time) is left alone: dropping it would
// lose them.
func unmapBinary() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("find the executable to unmap its pages: %w", err)
	}
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("read the mappings to unmap the binary's pages: %w", err)
	}
	var done int64
	for _, m := range parseSmaps(raw) {
		if m.path != exe || strings.ContainsAny(m.perms, "w") || m.anon != 0 {
			continue
		}
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); e != 0 {
			return done, fmt.Errorf("unmap the binary's pages at %#x: %w", m.start, e)
		}
		done += int64(m.end - m.start)
	}
	return done, nil
}

// parseSmaps reads the mappings of a /proc/PID/smaps text: each header
// line (start-end perms offset dev inode [path]) and its Anonymous field.
func parseSmaps(raw []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.HasSuffix(f[0], ":") {
			if f[0] == "Anonymous:" && len(out) > 0 && len(f) >= 2 {
				n, _ := strconv.ParseUint(f[1], 10, 64)
				out[len(out)-1].anon = n
			}
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 5 {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		m := mapping{start: start, end: end, perms: f[1]}
		if len(f) >= 6 {
			// The path is the rest of the line after the inode: it may hold
			// spaces (and " (deleted)" when the file was replaced).
			m.path = strings.Join(f[5:], " ")
		}
		out = append(out, m)
	}
	return out
}
