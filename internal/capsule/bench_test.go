package capsule

import (
	"bytes"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
	"github.com/acpmux/acpmux-tui/screen"
)

// BenchmarkBuildFromFloodScrollback builds a handoff's capsule from the
// plain lines of a terminal that took a 50 MB flood (what Mux.History
// hands over: the last 10,000 lines of scrollback and the screen).
func BenchmarkBuildFromFloodScrollback(b *testing.B) {
	var buf bytes.Buffer
	if _, err := flood.Write(&buf, 50<<20); err != nil {
		b.Fatal(err)
	}
	scr := screen.New(160, 45, 10000)
	scr.Write(buf.Bytes())
	var lines []string
	for i := range scr.ScrollbackLen() {
		lines = append(lines, scr.PlainScrollback(i))
	}
	_, rows := scr.Size()
	for r := range rows {
		lines = append(lines, scr.PlainLine(r))
	}
	info := Info{Kind: KindHandoff, ParentID: "k3x9q2", ParentName: "flood", ParentHarness: "shell", Harness: "claude"}
	b.ReportAllocs()
	for b.Loop() {
		if c := Build(info, FromLines(lines)); len(c) == 0 || len(c) > MaxBytes {
			b.Fatalf("capsule of %d bytes", len(c))
		}
	}
}
