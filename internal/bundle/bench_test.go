package bundle

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchConversationBytes is the size of the conversation the benchmarks
// carry.
const benchConversationBytes = 50 << 20

// sessionSource reads as size bytes of a session log's JSON lines, made as
// they are read (never held whole), the same on every run.
type sessionSource struct {
	left    int64
	rng     *rand.Rand
	n       int
	line    []byte
	pending []byte
}

var benchWords = []string{"the", "parser", "fails", "on", "nested", "brackets", "fix", "edit", "file", "test", "passes", "go", "ok"}

func newSessionSource(size int64) *sessionSource {
	return &sessionSource{left: size, rng: rand.New(rand.NewPCG(7, 11))}
}

func (s *sessionSource) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	if len(s.pending) == 0 {
		line := append(s.line[:0], `{"type":"assistant","n":`...)
		line = strconv.AppendInt(line, int64(s.n), 10)
		line = append(line, `,"text":"`...)
		for range 12 {
			line = append(line, benchWords[s.rng.IntN(len(benchWords))]...)
			line = append(line, ' ')
		}
		line = append(line, "\"}\n"...)
		s.line, s.pending = line, line
		s.n++
	}
	n := copy(p, s.pending)
	if int64(n) > s.left {
		n = int(s.left)
	}
	s.pending = s.pending[n:]
	s.left -= int64(n)
	return n, nil
}

// writeBenchBundle writes a bundle carrying a benchConversationBytes
// session to w.
func writeBenchBundle(w io.Writer) error {
	bw, err := NewWriter(w, testManifest(SessionMember))
	if err != nil {
		return err
	}
	if err := bw.Add(ChatName, int64(len(testChat)), bytes.NewReader(testChat)); err != nil {
		return err
	}
	if err := bw.Add(SessionMember, benchConversationBytes, newSessionSource(benchConversationBytes)); err != nil {
		return err
	}
	return bw.Close()
}

// heapPeak samples the live heap until stopped and reports the most seen.
type heapPeak struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			h.peak = max(h.peak, sample[0].Value.Uint64())
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	h.done.Wait()
	return h.peak
}

// A 50 MB conversation written into a bundle and unpacked from it as it is
// written (through a pipe): the memory it takes stays that of the buffers,
// whatever the conversation's size.
func BenchmarkRoundTrip50MB(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(benchConversationBytes)
	parent := b.TempDir()
	peak := startHeapPeak()
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(parent, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeBenchBundle(pw)) }()
		u, err := Unpack(pr, dir, DefaultLimits)
		if err != nil {
			b.Fatalf("unpack: %v", err)
		}
		fi, err := os.Stat(filepath.Join(dir, u.Conversation[0]))
		if err != nil || fi.Size() != benchConversationBytes {
			b.Fatalf("unpacked %v (%v), want %d bytes", fi, err, benchConversationBytes)
		}
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak.end())/(1<<20), "peak-heap-MiB")
}

// Writing alone, to a file on disk.
func BenchmarkWrite50MB(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(benchConversationBytes)
	path := filepath.Join(b.TempDir(), "chat.acpmux.tgz")
	peak := startHeapPeak()
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := writeBenchBundle(f); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak.end())/(1<<20), "peak-heap-MiB")
}

// Unpacking alone, from a bundle file on disk.
func BenchmarkUnpack50MB(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(benchConversationBytes)
	parent := b.TempDir()
	path := filepath.Join(parent, "chat.acpmux.tgz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeBenchBundle(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	peak := startHeapPeak()
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(parent, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Unpack(in, dir, DefaultLimits); err != nil {
			b.Fatalf("unpack: %v", err)
		}
		_ = in.Close()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak.end())/(1<<20), "peak-heap-MiB")
	if fi, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(fi.Size())/(1<<20), "bundle-MiB")
	}
}
