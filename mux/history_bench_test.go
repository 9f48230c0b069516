package mux

import (
	"bytes"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// BenchmarkHistoryOf50MBFlood is what a handoff's capsule reads of a pty
// chat with no session log: its terminal after a 50 MB flood (the
// scrollback keeps its last 10,000 lines), as plain lines.
func BenchmarkHistoryOf50MBFlood(b *testing.B) {
	var buf bytes.Buffer
	if _, err := flood.Write(&buf, 50<<20); err != nil {
		b.Fatal(err)
	}
	scr := screen.New(160, 45, 10000)
	scr.Write(buf.Bytes())
	b.ReportAllocs()
	for b.Loop() {
		if lines := historyOf(scr, proto.MaxHistoryBytes); len(lines) < 10000 {
			b.Fatalf("%d lines", len(lines))
		}
	}
}
