package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestHelpShowsEveryKey: `?` at 80x24 shows every binding's key and what
// it does, scrolling through them; at 160 columns they all show at once,
// and nothing is ever cut with "…".
func TestHelpShowsEveryKey(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	want := map[string]string{}
	for _, g := range r.m.fullHelp() {
		for _, b := range g {
			if h := b.Help(); b.Enabled() && h.Key != "" {
				want[h.Key] = h.Desc
			}
		}
	}
	if len(want) < 25 {
		t.Fatalf("only %d bindings in the full help", len(want))
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 50}} {
		d := NewHelpDialog(r.m.c, r.m.fullHelp())
		d.SetSize(size.w, size.h)
		seen := ""
		for range 100 {
			view := d.View()
			if len(view) > size.h-1 {
				t.Fatalf("%dx%d: the dialog is %d lines high", size.w, size.h, len(view))
			}
			for _, l := range view {
				plain := ansi.Strip(l)
				if ansi.StringWidth(plain) > size.w {
					t.Fatalf("%dx%d: a line of %d cells: %q", size.w, size.h, ansi.StringWidth(plain), plain)
				}
				if strings.Contains(plain, "…") {
					t.Fatalf("%dx%d: a line is cut: %q", size.w, size.h, plain)
				}
				seen += plain + "\n"
			}
			if d.off == d.maxOff() {
				break
			}
			d.Update(runeKey('j'))
		}
		for k, desc := range want {
			if !strings.Contains(seen, k) || !strings.Contains(seen, desc) {
				t.Errorf("%dx%d: %q (%s) never shows", size.w, size.h, k, desc)
			}
		}
		if !strings.Contains(seen, "rebind under [keys]") && !strings.Contains(seen, "Rebind any key under [keys] in the config file.") {
			t.Errorf("%dx%d: the note is cut:\n%s", size.w, size.h, seen)
		}
		if size.w == 160 && d.maxOff() != 0 {
			t.Errorf("160x50 scrolls: %d rows more than fit", d.maxOff())
		}
		if size.w == 80 && d.maxOff() == 0 {
			t.Errorf("80x24 holds every key without scrolling: the test no longer tries the scroll")
		}
	}
}

// TestFooterLeavesOutWhatDoesNotFit: at every width the help line ends
// with a whole key and what it does, or with "…": never with a
// separator whose key was cut off.
func TestFooterLeavesOutWhatDoesNotFit(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	bindings := r.m.shortHelp()
	last := bindings[len(bindings)-1].Help()
	for w := 30; w <= 120; w++ {
		r.m.lay.width = w
		line := strings.TrimRight(ansi.Strip(r.m.footer(bindings)), " ")
		if ansi.StringWidth(line) > w {
			t.Fatalf("width %d: a line of %d cells: %q", w, ansi.StringWidth(line), line)
		}
		if strings.HasSuffix(line, "•") {
			t.Errorf("width %d: the line ends with a separator: %q", w, line)
		}
		if strings.Contains(line, last.Key+" ") && !strings.HasSuffix(line, last.Desc) {
			t.Errorf("width %d: the last key's help is cut: %q", w, line)
		}
	}
}
