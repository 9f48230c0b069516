package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFile writes a file of size bytes of text lines and returns its root
// and path.
func benchFile(b *testing.B, size int) (string, string) {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("x", 79) + "\n"
	content := strings.Repeat(line, size/len(line)+1)[:size]
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, p
}

func benchReadRoot(b *testing.B, size int) {
	dir, p := benchFile(b, size)
	// An agent home beside the folder, as every server has one: the check
	// that nothing inside it is served runs at each request.
	r := NewRoots(filepath.Join(filepath.Dir(dir), "agent"), dir, nil)
	defer r.close()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		text, err := r.ReadText(context.Background(), p, nil, nil, 10<<20)
		if err != nil || len(text) != size {
			b.Fatalf("%d bytes, %v", len(text), err)
		}
	}
}

// benchReadPlain is what fs/read_text_file did before it went through a
// root: os.ReadFile, then the string the response carries.
func benchReadPlain(b *testing.B, size int) {
	_, p := benchFile(b, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		data, err := os.ReadFile(p)
		if text := string(data); err != nil || len(text) != size {
			b.Fatalf("%d bytes, %v", len(text), err)
		}
	}
}

// BenchmarkFSReadRoot reads a 5 MB file through the chat's roots, as
// fs/read_text_file does.
func BenchmarkFSReadRoot(b *testing.B) { benchReadRoot(b, 5<<20) }

// BenchmarkFSReadPlain reads the same file with os.ReadFile.
func BenchmarkFSReadPlain(b *testing.B) { benchReadPlain(b, 5<<20) }

// BenchmarkFSReadRootSmall reads a 4 KiB file through the roots, whose
// folder is held open.
func BenchmarkFSReadRootSmall(b *testing.B) { benchReadRoot(b, 4<<10) }

// BenchmarkFSReadRootSmallOpenEach opens the folder's os.Root for every
// read instead: the cost the held-open folder saves.
func BenchmarkFSReadRootSmallOpenEach(b *testing.B) {
	dir, p := benchFile(b, 4<<10)
	r := NewRoots(filepath.Join(filepath.Dir(dir), "agent"), dir, nil)
	defer r.close()
	b.SetBytes(4 << 10)
	b.ReportAllocs()
	for b.Loop() {
		text, err := r.ReadText(context.Background(), p, nil, nil, 10<<20)
		if err != nil || len(text) != 4<<10 {
			b.Fatalf("%d bytes, %v", len(text), err)
		}
		r.state.handles[0].Close()
		r.state.handles[0] = nil
	}
}

// BenchmarkFSReadPlainSmall reads the 4 KiB file with os.ReadFile.
func BenchmarkFSReadPlainSmall(b *testing.B) { benchReadPlain(b, 4<<10) }
