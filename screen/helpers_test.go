package screen

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
)

// floodWords are the words of the standard flood (internal/benchtool/flood): plain words, SGR
// colours, CJK, a Greek letter and an emoji.
var floodWords = []string{
	"alpha", "beta", "gamma", "delta", "\x1b[31mred\x1b[0m", "\x1b[1;32mbold-green\x1b[0m",
	"func", "return", "{}", "λ", "日本語", "emoji🙂",
}

// genFlood returns n flood lines (12 words each) ending in "\r\n", as they
// arrive through a pty, and each line as plain text.
func genFlood(n int, seed uint64) (data []byte, plain []string) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	var line strings.Builder
	for range n {
		line.Reset()
		for w := range 12 {
			if w > 0 {
				line.WriteByte(' ')
			}
			line.WriteString(floodWords[rng.IntN(len(floodWords))])
		}
		plain = append(plain, stripSGR(line.String()))
		b.WriteString(line.String())
		b.WriteString("\r\n")
	}
	return b.Bytes(), plain
}

var sgrPattern = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func stripSGR(s string) string { return sgrPattern.ReplaceAllString(s, "") }

// standardFlood is the benchmarks' standard input (internal/benchtool/flood,
// the same bytes scripts/bench measures), made once, with "\n" turned into
// "\r\n" as a pty does.
var standardFlood struct {
	once sync.Once
	data []byte
	err  error
}

func loadFlood(b *testing.B, megabytes int) []byte {
	b.Helper()
	standardFlood.once.Do(func() {
		var raw bytes.Buffer
		if _, err := flood.Write(&raw, int64(megabytes)*1_000_000); err != nil {
			standardFlood.err = err
			return
		}
		standardFlood.data = bytes.ReplaceAll(raw.Bytes(), []byte("\n"), []byte("\r\n"))
	})
	if standardFlood.err != nil {
		b.Fatal(standardFlood.err)
	}
	return standardFlood.data
}

// feed returns a new screen after writing input to it.
func feed(cols, rows, scrollback int, input string) *Screen {
	s := New(cols, rows, scrollback)
	s.Write([]byte(input))
	return s
}

// screenLines returns the plain lines of the live screen without the blank
// rows at the bottom.
func screenLines(s *Screen) []string {
	_, rows := s.Size()
	var out []string
	for i := range rows {
		out = append(out, s.PlainLine(i))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func scrollbackLines(s *Screen) []string {
	var out []string
	for i := range s.ScrollbackLen() {
		out = append(out, s.PlainScrollback(i))
	}
	return out
}

// visibleWidth measures a rendered line with this package's own widths.
func visibleWidth(line string) int {
	w := 0
	for _, r := range stripSGR(line) {
		w += runeWidth(r)
	}
	return w
}
