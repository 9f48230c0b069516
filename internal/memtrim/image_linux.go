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

// ReleaseImage lets go of the pages of the program's own file (its code,
// read-only data and tables) that the process holds mapped, and returns
// how many bytes were mapped. The kernel maps an executable's pages 64 KiB
// at a time around each one touched (fault-around), so start-up (about
// ninety package inits scattered over the binary, the flags, the config,
// the chat files) leaves nearly all of a 9 MB binary mapped in each process
// (scripts/bench memory-10). The pages stay in the page cache: what the
// process touches again comes back at its next use, a minor fault for each
// 64 KiB, and what it does not is no longer held by it.
//
// Only mappings of the binary that are not writable and hold no page of
// their own are let go: a page changed in place (a relocation the dynamic
// loader made before sealing it read-only, a debugger's breakpoint) would
// be lost, so a mapping with any such page is left whole, and so is every
// mapping while a debugger traces the process. A binary changed in place
// while it runs would break it at any page the kernel reclaims anyway, so
// this adds no new way to fail.
func ReleaseImage() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("release the binary's pages: %w", err)
	}
	traced, err := isTraced()
	if err != nil || traced {
		return 0, err
	}
	return releaseMappings(exe)
}

// releaseMappings lets go of the read-only mappings of the file at path
// that hold no page of their own, and returns how many bytes they had
// resident.
func releaseMappings(path string) (int64, error) {
	maps, err := readMappings(path)
	if err != nil {
		return 0, err
	}
	var released int64
	for _, m := range maps {
		if m.writable || m.anonymous > 0 {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("release the binary's pages at %#x: madvise: %w", m.start, errno)
		}
		released += m.rss
	}
	return released, nil
}

// mapping is one of /proc/self/smaps's mappings of a file.
type mapping struct {
	start, end uintptr
	writable   bool
	rss        int64 // bytes resident
	anonymous  int64 // bytes of the process's own (copied on write)
}

// readMappings reads the process's mappings of the file at path from
// /proc/self/smaps.
func readMappings(path string) ([]mapping, error) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return nil, fmt.Errorf("read the process's mappings: %w", err)
	}
	var out []mapping
	var cur *mapping
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		if strings.HasSuffix(key, ":") { // a field of the current mapping
			if cur != nil {
				switch key {
				case "Rss:":
					cur.rss = kilobytes(rest)
				case "Anonymous:":
					cur.anonymous = kilobytes(rest)
				}
			}
			continue
		}
		// A mapping: start-end perms offset dev inode path.
		cur = nil
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 || strings.TrimLeft(f[5], " ") != path {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start || len(f[1]) < 4 {
			continue
		}
		out = append(out, mapping{start: uintptr(start), end: uintptr(end),
			writable: f[1][1] == 'w' || f[1][3] == 's'})
		cur = &out[len(out)-1]
	}
	return out, sc.Err()
}

// kilobytes reads smaps's "   1234 kB" as bytes (0 when it is not that).
func kilobytes(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "kB")), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}

// isTraced reports whether a debugger traces the process (its breakpoints
// are pages of its own in the code).
func isTraced() (bool, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false, fmt.Errorf("release the binary's pages: %w", err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			return strings.TrimSpace(v) != "0", nil
		}
	}
	return false, nil
}
