package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// This file checks the fast paths of Write (printASCII's runs, plainSGR)
// against the general path they shortcut: a screen with slow set takes
// every byte through printRune and the parser, and must end up exactly as
// the fast one, whatever the input and wherever it is cut.

// fastTokens are the pieces random input is made of: printable runs,
// plain and not-so-plain SGR (sub-parameters, empty and long parameters,
// many of them, cut short), UTF-8 of every width, controls, and the modes
// and moves that change how printing goes (insert, charsets, autowrap,
// margins, the alternate screen).
var fastTokens = []string{
	"alpha", "beta gamma ", "x", " ", "{}", "0123456789abcdefghijklmnopqrstuvwxyz",
	"\x1b[0m", "\x1b[m", "\x1b[1m", "\x1b[31m", "\x1b[1;32m", "\x1b[38;5;208m",
	"\x1b[38;2;10;20;30m", "\x1b[48;5;17;4m", "\x1b[38:5:99m", "\x1b[4:0m",
	"\x1b[;1m", "\x1b[1;m", "\x1b[1;;3m", "\x1b[0001m", "\x1b[999m", "\x1b[1000m",
	"\x1b[1;2;3;4;5;6;7;8;9;21;22;23;24;25;27;28;29m",
	"\x1b[30;31;32;33;34;35;36;37;39;40;41;42;43;44;45;46;47;49m",
	"\x1b[90;101;7m", "\x1b[?25m", "\x1b[>4m", "\x1b[1 m", "\x1b[1", "\x1b[", "\x1b",
	"λ", "日本語", "emoji🙂", "e\u0301", "\u200b", "\xe6\x97", "\xff", "\xc3(",
	"\r\n", "\n", "\r", "\t", "\b", "\x07", "\x0e", "\x0f",
	"\x1b[4h", "\x1b[4l", "\x1b(0", "\x1b(B", "\x1b)0", "\x1b[?7l", "\x1b[?7h",
	"\x1b[2;4r", "\x1b[r", "\x1b[H", "\x1b[3;10H", "\x1b[K", "\x1b[2J", "\x1b[5b",
	"\x1b[2@", "\x1b[3P", "\x1b[?1049h", "\x1b[?1049l", "\x1b7", "\x1b8", "\x1bM",
	"\x1b]0;title\x07", "\x1b]2;\x1b[31mt\x1b\\", "\x1b#8", "\x1b[44m\x1b[2K", "\x1bc",
}

// randomInput joins n random tokens.
func randomInput(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString(fastTokens[rng.IntN(len(fastTokens))])
	}
	return b.Bytes()
}

// writeCut writes data to both screens in the same random pieces.
func writeCut(rng *rand.Rand, fast, slow *Screen, data []byte) {
	for len(data) > 0 {
		n := min(len(data), 1+rng.IntN(40))
		fast.Write(data[:n])
		slow.Write(data[:n])
		data = data[n:]
	}
}

// newPair returns a screen and its slow twin.
func newPair(cols, rows, sb int) (fast, slow *Screen) {
	fast, slow = New(cols, rows, sb), New(cols, rows, sb)
	slow.slow = true
	return fast, slow
}

// sameState fails the test where a screen and its slow twin differ: all
// sameScreen compares, and the state a later write depends on (the pen,
// the last character for REP, modes, margins, title and events) and the
// scrollback's encoded lines.
func sameState(t *testing.T, step string, fast, slow *Screen) {
	t.Helper()
	sameScreen(t, step, fast, slow)
	if fast.cur != slow.cur {
		t.Fatalf("%s: cursor state %+v, slow %+v", step, fast.cur, slow.cur)
	}
	if fast.last != slow.last || fast.modes != slow.modes || fast.top != slow.top || fast.bot != slow.bot {
		t.Fatalf("%s: last %q modes %+v region %d-%d; slow %q %+v %d-%d", step,
			fast.last, fast.modes, fast.top, fast.bot, slow.last, slow.modes, slow.top, slow.bot)
	}
	if fast.Title() != slow.Title() {
		t.Fatalf("%s: title %q, slow %q", step, fast.Title(), slow.Title())
	}
	if a, b := fmt.Sprintf("%+v", fast.Events()), fmt.Sprintf("%+v", slow.Events()); a != b {
		t.Fatalf("%s: events %s, slow %s", step, a, b)
	}
	for i := range fast.sb.len() {
		if a, b := fast.sb.line(i), slow.sb.line(i); !bytes.Equal(a, b) {
			t.Fatalf("%s: scrollback line %d encoded %q, slow %q", step, i, a, b)
		}
	}
}

func TestFastPathsMatchSlow(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cols, rows := 3+rng.IntN(30), 1+rng.IntN(8)
		fast, slow := newPair(cols, rows, 30)
		for step := range 6 {
			if step%2 == 1 {
				// Lines come back from the scrollback, or go to it.
				c, r := 3+rng.IntN(30), 1+rng.IntN(8)
				fast.Resize(c, r)
				slow.Resize(c, r)
			}
			data := randomInput(rng, 20+rng.IntN(60))
			writeCut(rng, fast, slow, data)
			checkConsistent(t, fast)
			sameState(t, fmt.Sprintf("seed %d step %d after %q", seed, step, data), fast, slow)
		}
	}
}

// TestFastPathsMatchSlowOnFlood runs the benchmarks' flood lines, which
// mostly take the fast paths, through both.
func TestFastPathsMatchSlowOnFlood(t *testing.T) {
	data, _ := genFlood(300, 5)
	fast, slow := newPair(80, 10, 100)
	writeCut(rand.New(rand.NewPCG(1, 2)), fast, slow, data)
	sameState(t, "flood", fast, slow)
}

// FuzzFastPaths is TestFastPathsMatchSlow on any input, cut where the
// input's first byte says. The seed corpus is in testdata/fuzz/FuzzFastPaths.
func FuzzFastPaths(f *testing.F) {
	f.Add([]byte("\x1b[1;32mbold-green\x1b[0m λ 日本語 emoji🙂\r\n"))
	f.Add([]byte(strings.Repeat("\x1b[38;5;208mab\x1b[4:3mcd\x1b[;7mef", 4)))
	f.Add([]byte("\x1b[4hins\x1b(0qqq\x1b(B\x1b[?7lnowrap-nowrap-nowrap\x1b[5b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cut := 0
		if len(data) > 0 {
			cut = int(data[0]) % (len(data) + 1)
		}
		fast, slow := newPair(11, 4, 10)
		for _, piece := range [][]byte{data[:cut], data[cut:], data} {
			fast.Write(piece)
			slow.Write(piece)
			checkConsistent(t, fast)
			sameState(t, fmt.Sprintf("after %q", piece), fast, slow)
		}
	})
}

// TestRuneWidthPages: the cached widths are the computed ones, for every
// rune.
func TestRuneWidthPages(t *testing.T) {
	for r := rune(-1); r <= unicode.MaxRune+1; r++ {
		if got, want := runeWidth(r), int(computeWidth(r)); got != want {
			t.Fatalf("runeWidth(%U) = %d, computed %d", r, got, want)
		}
	}
}
