package memtrim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// readSink keeps the reads of mapped pages from being optimised away.
var readSink byte

// residentOf is how many bytes of the file at path the process has
// resident in its read-only mappings of it.
func residentOf(t *testing.T, path string) int64 {
	t.Helper()
	maps, err := readMappings(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, m := range maps {
		if !m.writable {
			n += m.rss
		}
	}
	return n
}

// TestReleaseImageLetsGoOfTheBinary: the test binary's code and tables,
// mapped by its start, are let go of; the process runs on, taking back
// what it touches.
func TestReleaseImageLetsGoOfTheBinary(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	before := residentOf(t, exe)
	if before < 1<<20 {
		t.Fatalf("only %d bytes of the running test binary are resident: smaps is not read right", before)
	}
	released, err := ReleaseImage()
	if err != nil {
		t.Fatal(err)
	}
	after := residentOf(t, exe)
	t.Logf("binary resident: %d kB before, %d kB after; ReleaseImage said %d kB", before>>10, after>>10, released>>10)
	// Reading smaps again runs code, which maps its 64 KiB runs back:
	// less than was let go of, not nothing.
	if released < before*9/10 || after >= before {
		t.Fatalf("ReleaseImage released %d bytes; %d resident before, %d after: want nearly all let go", released, before, after)
	}
	// The process goes on: what it runs comes back from the page cache.
	if res := Trim(); res.ImageErr != nil {
		t.Fatalf("a trim after the release: %v", res.ImageErr)
	}
}

// TestReleaseKeepsPagesOfItsOwn: a read-only mapping holding a page the
// process changed (as a relocation sealed read-only, or a breakpoint) is
// left whole, and its change survives; an untouched one is let go of and
// reads back the file's bytes.
func TestReleaseKeepsPagesOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	page := os.Getpagesize()
	content := bytes.Repeat([]byte("acpmux"), 4*page/6+1)[:4*page]
	path := filepath.Join(dir, "image")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Two private mappings of the file: one read-only and only read, one
	// written (copied on write) and then sealed read-only.
	clean, err := unix.Mmap(int(f.Fd()), 0, len(content), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(clean)
	ownFd, err := unix.Open(path, unix.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ownFd)
	own, err := unix.Mmap(ownFd, 0, len(content), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(own)
	for i := 0; i < len(content); i += page {
		readSink += clean[i] + own[i]
	}
	own[page] = '!'
	if err := unix.Mprotect(own, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	maps, err := readMappings(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(maps) != 2 {
		t.Fatalf("read %d mappings of %s, want 2: %+v", len(maps), path, maps)
	}
	released, err := releaseMappings(path)
	if err != nil {
		t.Fatal(err)
	}
	if released <= 0 {
		t.Fatalf("released %d bytes: the read-only, untouched mapping was not let go of", released)
	}
	maps, err = readMappings(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range maps {
		switch {
		case m.anonymous > 0 && m.rss < 4*int64(page):
			t.Fatalf("the changed mapping lost pages: %+v", m)
		case m.anonymous == 0 && m.rss != 0:
			t.Fatalf("the untouched mapping still has %d bytes resident", m.rss)
		}
	}
	if own[page] != '!' {
		t.Fatal("the mapping with a page of its own was let go of: its change is lost")
	}
	if !bytes.Equal(clean, content) {
		t.Fatal("the released mapping does not read back the file's bytes")
	}
}
