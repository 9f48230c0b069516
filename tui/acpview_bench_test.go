package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// streamChunks is a long markdown message (about 48 KB: headings,
// paragraphs, lists, tables, code fences) cut into 2,000 chunks as an
// agent streams it.
func streamChunks() []string {
	var b strings.Builder
	for i := 0; b.Len() < 48<<10; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe **parser** reads `token %d` and keeps its *state* between calls; see [the notes](https://example.org/n/%d).\n\n", i, i, i)
		fmt.Fprintf(&b, "- first point %d\n- second point with more words\n  - nested detail\n\n", i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "| name | value |\n|---|--:|\n| a%d | %d |\n| b | 2 |\n\n", i, i)
		}
		if i%4 == 0 {
			fmt.Fprintf(&b, "```go\nfunc step%d(s *scanner) error {\n\treturn s.next(%d) // go on\n}\n```\n\n", i, i)
		}
	}
	text := b.String()
	const n = 2000
	size := len(text) / n
	chunks := make([]string, 0, n)
	for i := range n {
		end := (i + 1) * size
		if i == n-1 {
			end = len(text)
		}
		chunks = append(chunks, text[i*size:end])
	}
	return chunks
}

// streamRig is an ACP chat shown in a 160x50 app with a prompt, a few tool
// cards and a plan before the message that streams.
func streamRig(b testing.TB) (*fakeMux, *Model, string) {
	b.Helper()
	fake := newFakeMux(nil)
	id := "str34m"
	entries := []sessions.Entry{{ID: id, Meta: &sessions.Meta{ID: id, Name: "stream", Harness: "claude-acp", Cwd: "/home/me/src/app"}}}
	fake.states[id] = proto.State{Status: proto.StatusRunning, TurnActive: true}
	fake.transcripts[id] = acpEntries()[:7]
	table, err := harness.NewTable(config.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Table: table, Mux: fake, Renderer: asciiRenderer(), Entries: entries, Tick: -1})
	b.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	if !m.pane.IsACP() || m.pane.ID() != id {
		b.Fatalf("the pane shows %q, not the ACP chat", m.pane.ID())
	}
	return fake, m, id
}

// BenchmarkStreamMarkdown is a chunk of a long markdown message arriving
// in an open ACP chat: the pane lays out only that message again, as
// markdown, and the frame is drawn.
func BenchmarkStreamMarkdown(b *testing.B) {
	fake, m, id := streamRig(b)
	benchStream(b, fake, m, id, func([]proto.Entry) { m.Update(chatsChangedMsg{ids: []string{id}}) })
}

// BenchmarkStreamPlain is the same stream laid out as the pane did before
// markdown: the whole transcript as plain text (proto.RenderTranscript) at
// every chunk, then its window fitted to the pane.
func BenchmarkStreamPlain(b *testing.B) {
	fake, m, id := streamRig(b)
	benchStream(b, fake, m, id, func(entries []proto.Entry) {
		p := m.pane
		lines := proto.RenderTranscript(entries, p.w)
		th := p.h - promptHeight - 1
		screen := make([]string, 0, th)
		for _, l := range lines[max(len(lines)-th, 0):] {
			screen = append(screen, fitLine(l, p.w))
		}
		_ = screen
	})
}

// benchStream streams the chunks into the chat's last message, one chunk
// an op: lay handles it (lays the transcript out) and the frame is drawn.
// After the 2,000th chunk the message starts again.
func benchStream(b *testing.B, fake *fakeMux, m *Model, id string, lay func(entries []proto.Entry)) {
	chunks := streamChunks()
	base := fake.Transcript(id)
	msg := proto.Entry{Kind: proto.EntryAgent, At: goldenNow}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%len(chunks) == 0 {
			msg.Text = ""
		}
		msg.Text += chunks[i%len(chunks)]
		i++
		fake.mu.Lock()
		fake.transcripts[id] = append(base[:len(base):len(base)], msg)
		fake.mu.Unlock()
		lay(fake.Transcript(id))
		_ = m.View()
	}
}
