package mux

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// writeFlood writes about size bytes of mixed ANSI colour and UTF-8 lines
// (like internal/benchtool/flood), numbered so the last one is known, and
// returns the last line's text as it appears on screen.
func writeFlood(t testing.TB, path string, size int) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	words := []string{"alpha", "beta", "gamma", "\x1b[31mred\x1b[0m", "\x1b[1;32mbold-green\x1b[0m",
		"\x1b[38;5;208morange\x1b[0m", "\x1b[38;2;10;20;30mtrue\x1b[0m", "λ", "日本語", "emoji🙂", "{}", "func"}
	plain := map[string]string{}
	for _, w := range words {
		p := w
		for strings.Contains(p, "\x1b[") {
			i := strings.Index(p, "\x1b[")
			j := strings.IndexByte(p[i:], 'm')
			p = p[:i] + p[i+j+1:]
		}
		plain[w] = p
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var last string
	for n, line := 0, 0; n < size; line++ {
		var raw, shown strings.Builder
		fmt.Fprintf(&raw, "%07d", line)
		fmt.Fprintf(&shown, "%07d", line)
		for range 10 {
			w := words[rng.IntN(len(words))]
			raw.WriteString(" " + w)
			shown.WriteString(" " + plain[w])
		}
		raw.WriteString("\n")
		n += raw.Len()
		w.WriteString(raw.String())
		last = shown.String()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return last
}

// floodBytes is the flood a test pushes through a pty: the full 50 MB of
// the benchmark in a plain run, 5 MB under the race detector (which slows
// the emulator about tenfold); both overflow the scrollback many times.
func floodBytes() int {
	if raceEnabled {
		return 5_000_000
	}
	return 50_000_000
}

func TestFloodIsDrainedWithoutLoss(t *testing.T) {
	file := filepath.Join(t.TempDir(), "flood.txt")
	last := writeFlood(t, file, floodBytes())
	r := newRig(t, "cat:"+file, nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 160, 45); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "FLOOD-DONE on screen", func() bool {
		lines := r.mux.PlainLines(m.ID)
		for i, l := range lines {
			if l == "FLOOD-DONE" {
				if i == 0 || lines[i-1] != last {
					t.Fatalf("line before FLOOD-DONE is %q, want the last line written %q", lines[i-1], last)
				}
				return true
			}
		}
		return false
	})
	runner, _ := r.mux.existing(m.ID)
	c := runner.(*ptyChat)
	c.mu.Lock()
	sb := c.scr.ScrollbackLen()
	c.mu.Unlock()
	if sb != r.cfg.Scrollback {
		t.Fatalf("scrollback holds %d lines, want the full %d", sb, r.cfg.Scrollback)
	}
}

// BenchmarkPtyThroughput measures output through a real pty into the screen:
// cat of a flood file in a 160x45 chat, from start until the output is
// drained (scripts/bench sets the same beside a tmux pane).
func BenchmarkPtyThroughput(b *testing.B) {
	file := filepath.Join(b.TempDir(), "flood.txt")
	const size = 20_000_000
	writeFlood(b, file, size)
	store, err := sessions.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"cat": {Command: "/bin/cat", Args: []string{file}}}
	table, err := harness.NewTable(cfg)
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Store: store, Table: table, Config: cfg})
	defer m.Close()
	meta, err := store.Create(sessions.NewChat{Harness: "cat"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		if err := m.Start(meta.ID, 160, 45); err != nil {
			b.Fatal(err)
		}
		m.Wait(meta.ID)
	}
}
