package flood

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The flood is the same bytes on every machine and every Go release: a
// change to it changes every throughput figure, so it shows here first.
func TestFloodIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	na, err := Write(&a, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, 1_000_000); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two floods of the same size differ")
	}
	if na != int64(a.Len()) || na < 1_000_000 || na > 1_000_000+200 {
		t.Errorf("wrote %d bytes (reported %d), want 1,000,000 rounded up to a whole line", a.Len(), na)
	}
	sum := sha256.Sum256(a.Bytes())
	const want = "f2dfe0d81e9ba3b8cbf770f7d51f68c23179bd47c7eb448ed81e4708ee4c633a"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("1 MB flood sha256 %s, want %s", got, want)
	}
}

// paneCols is the width of the benchmarks' panes.
const paneCols = 160

// Every line is 12 words from the word list, mixing colour and wide
// characters, and fits a 160-column pane.
func TestFloodLines(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Write(&buf, 200_000); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
		t.Fatal("the flood does not end with a whole line")
	}
	known := map[string]bool{}
	for _, w := range Words {
		known[w] = true
	}
	seen := map[string]int{}
	for line := range strings.Lines(buf.String()) {
		words := strings.Split(strings.TrimSuffix(line, "\n"), " ")
		if len(words) != WordsPerLine {
			t.Fatalf("line %q has %d words", line, len(words))
		}
		for _, w := range words {
			if !known[w] {
				t.Fatalf("line %q: unknown word %q", line, w)
			}
			seen[w]++
		}
		if w := ansi.StringWidth(line); w > paneCols {
			t.Fatalf("line %q is %d columns wide", line, w)
		}
	}
	for _, w := range Words {
		if seen[w] == 0 {
			t.Errorf("word %q never drawn", w)
		}
	}
}
