package sessions

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValidate64 validates 64 real folders, the most a chat may have,
// half of them given through a symlink or with a trailing slash.
func BenchmarkValidate64(b *testing.B) {
	tr := newTree(b)
	dirs := makeDirs(b, tr.p("many"), MaxFolders)
	for i := range dirs {
		if i%2 == 1 {
			dirs[i] += "/"
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := ValidateFolders(tr.p("own"), dirs)
		if err != nil || len(out) != MaxFolders {
			b.Fatal(len(out), err)
		}
	}
}

// BenchmarkRefuse100k refuses a hostile list of 100,000 entries.
func BenchmarkRefuse100k(b *testing.B) {
	dirs := make([]string, 100_000)
	for i := range dirs {
		dirs[i] = fmt.Sprintf("/home/me/src/project-%d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ValidateFolders("/home/me", dirs); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkRefuse1MBPath refuses one entry of a megabyte.
func BenchmarkRefuse1MBPath(b *testing.B) {
	dirs := []string{"/" + strings.Repeat("x", 1<<20)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ValidateFolders("/home/me", dirs); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkList1000 lists a home of 1,000 chats, each with two folders: what
// `ls` does after finding the paths.
func BenchmarkList1000(b *testing.B) {
	s := openStore(b)
	tr := newTree(b)
	for range 1000 {
		if _, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tr.p("a"), tr.p("b")}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		entries, err := s.List()
		if err != nil || len(entries) != 1000 {
			b.Fatal(len(entries), err)
		}
	}
}
