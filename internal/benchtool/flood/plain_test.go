package flood

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The plain flood is the same bytes on every machine and every Go
// release, as the flood is: a change to it changes every plain figure.
func TestPlainIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	na, err := WritePlain(&a, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WritePlain(&b, 1_000_000); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two plain floods of the same size differ")
	}
	if na != int64(a.Len()) || na < 1_000_000 || na > 1_000_000+4096 {
		t.Errorf("wrote %d bytes (reported %d), want 1,000,000 rounded up to a whole block and the last line", a.Len(), na)
	}
	sum := sha256.Sum256(a.Bytes())
	const want = "372f20e4ab99ad61a489337c2b98da1f7d1f5e3da50514c3f7dfef572154191b"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("1 MB plain flood sha256 %s, want %s", got, want)
	}
}

// tabWidth is a terminal's tab stop.
const tabWidth = 8

// Every line of the plain flood is printable ASCII, tabs and spaces, and
// fits a 160-column pane with its tabs expanded; it has tabs and runs of
// spaces (both take their own paths through a pty and an emulator), and
// ends with PlainLastLine, found nowhere else.
func TestPlainLines(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WritePlain(&buf, 500_000); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasSuffix(text, "\n"+PlainLastLine+"\n") {
		t.Fatalf("the plain flood ends with %q, want the line %q", text[max(len(text)-80, 0):], PlainLastLine)
	}
	if n := strings.Count(text, PlainLastLine); n != 1 {
		t.Errorf("PlainLastLine found %d times, want once", n)
	}
	tabs, spaced, lines := 0, 0, 0
	for line := range strings.Lines(text) {
		lines++
		line = strings.TrimSuffix(line, "\n")
		col := 0
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '\t':
				col += tabWidth - col%tabWidth
			case c >= ' ' && c < 0x7f:
				col++
			default:
				t.Fatalf("line %d %q: byte %#x is not printable ASCII or a tab", lines, line, c)
			}
		}
		if col > paneCols {
			t.Fatalf("line %d %q is %d columns wide", lines, line, col)
		}
		if strings.HasPrefix(line, "\t") {
			tabs++
		}
		if strings.Contains(line, "  ") {
			spaced++
		}
	}
	if tabs < lines/2 || spaced < lines/50 {
		t.Errorf("%d lines: %d indented with tabs, %d with runs of spaces; want at least half and a fiftieth", lines, tabs, spaced)
	}
}
