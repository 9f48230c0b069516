package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteHeapProfile: ACPMUX_HEAPPROFILE's file is a profile (pprof's
// format is gzip-compressed), and with the variable unset nothing is
// written.
func TestWriteHeapProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.prof")
	writeHeapProfile("")
	writeHeapProfile(path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("the heap profile starts %q, not gzip's magic", b[:min(len(b), 8)])
	}
}
