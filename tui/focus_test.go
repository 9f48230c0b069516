package tui

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// msgRecorder is a Bubble Tea model that keeps what Update got, through
// focusReport, and quits on "q".
type msgRecorder struct{ got []tea.Msg }

func (r *msgRecorder) Init() tea.Cmd { return nil }

func (r *msgRecorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	msg = focusReport(msg)
	switch msg.(type) {
	case tea.FocusMsg, tea.BlurMsg, tea.KeyMsg:
		r.got = append(r.got, msg)
	}
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "q" {
		return r, tea.Quit
	}
	return r, nil
}

func (r *msgRecorder) View() string { return "" }

// TestFocusReportInOneReadWithKeys: Bubble Tea's own reader, given a focus
// report and keys in one read, gives the keys and (through focusReport)
// the focus change, in order.
func TestFocusReportInOneReadWithKeys(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  []string
	}{
		{"\x1b[Ohi q", []string{"blur", "hi", " ", "q"}},
		{"a\x1b[Ib\x1b[Oq", []string{"a", "focus", "b", "blur", "q"}},
		{"\x1b[O\x1b[Iq", []string{"blur", "focus", "q"}},
	} {
		rec := &msgRecorder{}
		p := tea.NewProgram(rec, tea.WithInput(bytes.NewReader([]byte(tc.input))), tea.WithOutput(io.Discard), tea.WithoutRenderer())
		done := make(chan error, 1)
		go func() { _, err := p.Run(); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%q: %v", tc.input, err)
			}
		case <-time.After(10 * time.Second):
			p.Kill()
			t.Fatalf("%q: the program did not quit on q within 10 s", tc.input)
		}
		var got []string
		for _, m := range rec.got {
			switch m := m.(type) {
			case tea.FocusMsg:
				got = append(got, "focus")
			case tea.BlurMsg:
				got = append(got, "blur")
			case tea.KeyMsg:
				got = append(got, m.String())
			}
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%q: got %q, want %q", tc.input, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%q: got %q, want %q", tc.input, got, tc.want)
			}
		}
	}
}
