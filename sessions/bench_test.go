package sessions

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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
func BenchmarkList1000(b *testing.B) { benchList1000(b, (*Store).List) }

// BenchmarkListOnce1000 lists 1,000 chats as `ls` does: once, nothing kept
// for a next list.
func BenchmarkListOnce1000(b *testing.B) { benchList1000(b, (*Store).ListOnce) }

// benchList1000 makes 1,000 chats with two folders each and times list.
func benchList1000(b *testing.B, list func(*Store) ([]Entry, error)) {
	s := openStore(b)
	tr := newTree(b)
	for range 1000 {
		if _, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tr.p("a"), tr.p("b")}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		entries, err := list(s)
		if err != nil || len(entries) != 1000 {
			b.Fatal(len(entries), err)
		}
	}
}

// BenchmarkList1000With1MB lists a home of 1,000 chats, one of which is a
// megabyte: a sound one (a newer version's key holding a large value) or one
// over the size limit. "warm" is a store listing again, as the TUI does at
// every change; "cold" opens the store each time, as `ls` does.
func BenchmarkList1000With1MB(b *testing.B) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, bc := range []struct {
		name   string
		cold   bool
		pad    int
		broken int
	}{
		{"warm", false, MaxChatFileBytes - 400, 0},
		{"cold", true, MaxChatFileBytes - 400, 0},
		{"over-limit-warm", false, 2 << 20, 1},
		{"over-limit-cold", true, 2 << 20, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := openStore(b)
			for i := range 999 {
				id := fmt.Sprintf("c%05d", i)
				if err := os.WriteFile(s.ChatPath(id), []byte(chatText(id, "chat "+id, "/", created.Add(time.Duration(i)*time.Second))), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			big := chatText("big", "big", "/", created) + "notes = \"" + strings.Repeat("x", bc.pad) + "\"\n"
			if err := os.WriteFile(s.ChatPath("big"), []byte(big), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				ls := s
				if bc.cold {
					var err error
					if ls, err = OpenStore(s.Home()); err != nil {
						b.Fatal(err)
					}
				}
				entries, err := ls.List()
				if err != nil || len(entries) != 1000 {
					b.Fatal(len(entries), err)
				}
				if n := brokenCount(entries); n != bc.broken {
					b.Fatalf("%d broken", n)
				}
			}
		})
	}
}

func brokenCount(entries []Entry) int {
	n := 0
	for _, e := range entries {
		if e.Broken != nil {
			n++
		}
	}
	return n
}
