package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// floodWords are the words of /work/shared/bench/flood.py: plain words, SGR
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

// pythonFlood runs flood.py once and caches its output with "\n" turned into
// "\r\n" as a pty does; it skips the benchmark when python3 or the script is
// missing.
var pythonFlood struct {
	once sync.Once
	data []byte
	err  error
}

func loadPythonFlood(b *testing.B, megabytes int) []byte {
	b.Helper()
	script := floodScript()
	if _, err := exec.LookPath("python3"); err != nil || script == "" {
		b.Skip("python3 or flood.py not available")
	}
	pythonFlood.once.Do(func() {
		out := filepath.Join(b.TempDir(), "flood.txt")
		cmd := exec.Command("python3", script, out, fmt.Sprint(megabytes))
		if msg, err := cmd.CombinedOutput(); err != nil {
			pythonFlood.err = fmt.Errorf("flood.py: %v: %s", err, msg)
			return
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			pythonFlood.err = err
			return
		}
		pythonFlood.data = bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n"))
	})
	if pythonFlood.err != nil {
		b.Fatal(pythonFlood.err)
	}
	return pythonFlood.data
}

// floodScript finds flood.py: $FLOOD_PY, else the shared bench folder.
func floodScript() string {
	for _, p := range []string{os.Getenv("FLOOD_PY"), "/work/shared/bench/flood.py", "../../../shared/bench/flood.py"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
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
