package mux

import "testing"

// TestReadBuffersGrowAtTheFirstFullRead: an idle chat reads into a small
// buffer; a read that fills it makes the buffer readBufferSize from the
// next read on, and the size never shrinks.
func TestReadBuffersGrowAtTheFirstFullRead(t *testing.T) {
	size := firstReadSize
	if size >= readBufferSize {
		t.Fatalf("first read buffer %d is not smaller than %d", size, readBufferSize)
	}
	if got := nextReadSize(size, 120, size); got != size {
		t.Fatalf("a prompt's read (120 bytes) made the buffers %d", got)
	}
	size = nextReadSize(size, firstReadSize, firstReadSize)
	if size != readBufferSize {
		t.Fatalf("a full read left the buffers at %d, want %d", size, readBufferSize)
	}
	if got := nextReadSize(size, 10, readBufferSize); got != readBufferSize {
		t.Fatalf("a small read after a flood shrank the buffers to %d", got)
	}
	small := make([]byte, firstReadSize)
	if b := sizedBuffer(small[:10], firstReadSize); len(b) != firstReadSize || &b[0] != &small[0] {
		t.Fatal("a buffer of the current size was not reused at its full length")
	}
	if b := sizedBuffer(small, readBufferSize); len(b) != readBufferSize {
		t.Fatalf("a small buffer came back as %d bytes after the buffers grew", len(b))
	}
}
