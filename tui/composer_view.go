package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// This file draws the composer: its input, with each chip's token styled,
// and its popup, drawn by the pane over the lines above the input.

// View returns the input's lines, each chip's token drawn as a chip.
func (c *Composer) View() string {
	v := c.input.View()
	if len(c.chips) == 0 {
		return v
	}
	// Longer tokens first, so "@a.go" is not drawn inside "@a.go.bak".
	tokens := make([]string, 0, len(c.chips))
	for _, ch := range c.chips {
		tokens = append(tokens, ch.token)
	}
	slices.SortFunc(tokens, func(a, b string) int { return len(b) - len(a) })
	tokens = slices.Compact(tokens)
	pairs := make([]string, 0, 2*len(tokens))
	for _, t := range tokens {
		pairs = append(pairs, t, c.chip.Render(t))
	}
	return strings.NewReplacer(pairs...).Replace(v)
}

// PopupView returns the popup's lines, at most rows of them (nil when it
// is closed): a header that says what it offers, then its rows, the
// selected one marked, each with its description dimmed and cut to the
// width. A completed command's hint shows alone, dimmed.
func (c *Composer) PopupView(rows int) []string {
	if rows < 2 || c.w <= 0 {
		return nil
	}
	if c.kind == popupNone {
		if c.hint != "" && c.input.Value() == c.hintFor {
			return []string{c.dim.Render(c.fit("  " + c.hintFor + c.hint))}
		}
		return nil
	}
	head := ""
	switch c.kind {
	case popupCommands:
		if len(c.items) == 0 {
			return nil
		}
		head = "commands of the agent"
	case popupFiles:
		l, ok := c.listings[c.id]
		switch {
		case !ok:
			head = "listing the chat's files…"
		case len(c.items) == 0 && len(l.files) == 0:
			head = "no files in the chat's folders"
		case len(c.items) == 0:
			head = "no file matches @" + c.query
		default:
			head = "files of the chat"
		}
		if ok && l.note != "" {
			head += " · " + l.note
		}
	}
	if len(c.items) > 0 {
		head += " · tab completes"
	}
	head += " · esc closes"
	out := []string{c.dim.Render(c.fit(head))}
	n := min(len(c.items), popupRows, rows-1)
	if n == 0 {
		return out
	}
	first := 0
	if c.sel >= n {
		first = c.sel - n + 1
	}
	labelW := 0
	for _, it := range c.items[first : first+n] {
		labelW = max(labelW, ansi.StringWidth(it.label))
	}
	labelW = min(labelW, max(c.w/2, 8))
	for i, it := range c.items[first : first+n] {
		selected := first+i == c.sel
		mark := "  "
		if selected {
			mark = "> "
		}
		label := ansi.Truncate(it.label, labelW, "…")
		label += strings.Repeat(" ", labelW-ansi.StringWidth(label))
		row := mark + label
		desc := ""
		if it.desc != "" {
			desc = ansi.Truncate("  "+it.desc, max(c.w-ansi.StringWidth(row), 0), "…")
		}
		row = ansi.Truncate(row, c.w, "…")
		pad := strings.Repeat(" ", max(c.w-ansi.StringWidth(row)-ansi.StringWidth(desc), 0))
		if selected {
			out = append(out, c.sel1.Render(row)+c.selDim.Render(desc+pad))
		} else {
			out = append(out, row+c.dim.Render(desc)+pad)
		}
	}
	return out
}

// fit cuts a line of plain text to the popup's width and pads it there:
// the popup covers the lines under it whole.
func (c *Composer) fit(s string) string {
	s = ansi.Truncate(s, c.w, "…")
	return s + strings.Repeat(" ", max(c.w-ansi.StringWidth(s), 0))
}
