package screen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// writeChunks writes data in pty-read-sized chunks.
func writeChunks(s *Screen, data []byte, chunk int) {
	for len(data) > 0 {
		n := min(len(data), chunk)
		s.Write(data[:n])
		data = data[n:]
	}
}

// BenchmarkFlood feeds the standard 50 MB flood (benchtool flood, "\n" sent as
// "\r\n" as through a pty) into a 160x45 screen with 10,000 lines of
// scrollback.
func BenchmarkFlood(b *testing.B) {
	data := loadFlood(b, 50)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(160, 45, 10000)
		writeChunks(s, data, 32<<10)
	}
}

var goFlood struct {
	once sync.Once
	data []byte
}

// BenchmarkFloodGo is BenchmarkFlood on about 10 MB of this package's own
// generator, for a quicker run.
func BenchmarkFloodGo(b *testing.B) {
	goFlood.once.Do(func() { goFlood.data, _ = genFlood(110000, 1) })
	data := goFlood.data
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(160, 45, 10000)
		writeChunks(s, data, 32<<10)
	}
}

// floodScreen returns a 160x45 screen whose scrollback of 10,000 lines is
// full of flood lines.
func floodScreen() *Screen {
	data, _ := genFlood(10100, 3)
	s := New(160, 45, 10000)
	writeChunks(s, data, 32<<10)
	return s
}

// BenchmarkRender renders a full 160x45 screen of flood lines, live and
// scrolled back into the scrollback.
func BenchmarkRender(b *testing.B) {
	s := floodScreen()
	b.Run("live", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.Render(0)
		}
	})
	b.Run("scrollback", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.Render(5000)
		}
	})
}

// scrollbackHeap returns the heap bytes held by a 160x45 screen with a full
// 10,000-line scrollback of flood lines.
func scrollbackHeap() (uint64, *Screen) {
	data, _ := genFlood(10100, 3)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := New(160, 45, 10000)
	writeChunks(s, data, 32<<10)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(data)
	return after.HeapAlloc - before.HeapAlloc, s
}

// TestScrollbackMemory bounds the heap a full scrollback costs (tmux: about
// 6.6 MB for the same lines).
func TestScrollbackMemory(t *testing.T) {
	heap, s := scrollbackHeap()
	if n := s.ScrollbackLen(); n != 10000 {
		t.Fatalf("ScrollbackLen = %d, want 10000", n)
	}
	t.Logf("full scrollback: %d heap bytes", heap)
	if heap > 6<<20 {
		t.Errorf("a full scrollback costs %d heap bytes, want < 6 MiB", heap)
	}
	runtime.KeepAlive(s)
}

// BenchmarkScrollbackMemory reports the heap bytes of a full scrollback.
func BenchmarkScrollbackMemory(b *testing.B) {
	var heap uint64
	for b.Loop() {
		var s *Screen
		heap, s = scrollbackHeap()
		runtime.KeepAlive(s)
	}
	b.ReportMetric(float64(heap), "heap-bytes")
}

var plainFlood struct {
	once sync.Once
	data []byte
	err  error
}

// BenchmarkFloodPlain is BenchmarkFlood on 20 MB of plain text: this
// package's own source, over and over (tabs, short lines, no escapes), as
// `cat` of a source tree prints it.
func BenchmarkFloodPlain(b *testing.B) {
	plainFlood.once.Do(func() {
		files, err := filepath.Glob("*.go")
		if err != nil || len(files) == 0 {
			plainFlood.err = fmt.Errorf("no Go files: %v", err)
			return
		}
		var src bytes.Buffer
		for _, f := range files {
			t, err := os.ReadFile(f)
			if err != nil {
				plainFlood.err = err
				return
			}
			src.Write(t)
		}
		one := bytes.ReplaceAll(src.Bytes(), []byte("\n"), []byte("\r\n"))
		for len(plainFlood.data) < 20_000_000 {
			plainFlood.data = append(plainFlood.data, one...)
		}
	})
	if plainFlood.err != nil {
		b.Fatal(plainFlood.err)
	}
	data := plainFlood.data
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(160, 45, 10000)
		writeChunks(s, data, 32<<10)
	}
}
