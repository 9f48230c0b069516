package tui

import (
	"net/url"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the composer's history: up and down in a one-line prompt
// (or at the first and last line of a prompt recalled from it) walk the
// chat's past prompts, newest first: its transcript's user entries, so
// the history outlives the TUI, and what was sent from here since. The
// draft being typed when the walk began comes back at its end.

// pastPrompt is a prompt of the history with the files it linked.
type pastPrompt struct {
	text  string
	links []proto.Link
}

// canWalk reports whether up (older) or down (newer) walks the history
// rather than moving the cursor.
func (c *Composer) canWalk(older bool) bool {
	lines := c.input.LineCount()
	if c.histAt < 0 {
		return older && lines == 1
	}
	if older {
		return c.input.Line() == 0
	}
	return c.input.Line() == lines-1
}

// walk moves the history walk by step (+1 older, -1 newer) and shows the
// prompt there, or the draft at the walk's end.
func (c *Composer) walk(step int, past func() []proto.Entry) {
	if c.histAt < 0 {
		if step < 0 {
			return
		}
		c.hist = c.history(past)
		if len(c.hist) == 0 {
			return
		}
		c.draft, c.draftChips = c.input.Value(), slices.Clone(c.chips)
	}
	at := c.histAt + step
	switch {
	case at >= len(c.hist):
		return
	case at < 0:
		c.histAt = -1
		c.input.SetValue(c.draft)
		c.chips = c.draftChips
		c.hist, c.draft, c.draftChips = nil, "", nil
		return
	}
	c.histAt = at
	p := c.hist[len(c.hist)-1-at]
	c.input.SetValue(p.text)
	c.chips = nil
	for _, l := range p.links {
		if path := linkPath(l); path != "" && l.Name != "" && strings.Contains(p.text, "@"+l.Name) {
			c.chips = append(c.chips, mentionChip{token: "@" + l.Name, path: path})
		}
	}
	c.closePopup()
}

// history is the chat's past prompts, oldest first: the transcript's user
// entries, then what was sent from here that the transcript does not hold
// yet, without a prompt repeated back to back. A prompt's links come with
// it, so its chips come back.
func (c *Composer) history(past func() []proto.Entry) []pastPrompt {
	var out []pastPrompt
	inTranscript := map[string]bool{}
	if past != nil {
		for _, e := range past() {
			if e.Kind != proto.EntryUser {
				continue
			}
			text := strings.TrimSpace(e.Text)
			if text == "" {
				continue
			}
			inTranscript[text] = true
			out = append(out, pastPrompt{text, e.Links})
		}
	}
	for _, s := range c.sent[c.id] {
		if !inTranscript[s.text] {
			out = append(out, s)
		}
	}
	return slices.CompactFunc(out, func(a, b pastPrompt) bool { return a.text == b.text })
}

// linkPath is the path of a file:// link, "" for any other.
func linkPath(l proto.Link) string {
	u, err := url.Parse(l.URI)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return ""
	}
	return u.Path
}
