// Package transcript lays out an ACP chat's transcript for the chat pane:
// user prompts with their linked files, agent messages as markdown,
// thoughts folded to a line, tool calls as cards with their diffs and
// output, plans as checklists. Each entry's lines are kept until the
// entry, the width or the fold changes, so a streamed chunk lays out only
// the message it belongs to; the pane takes the window it shows.
package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// Bounds of what one entry lays out, so no frame pays for a huge one.
const (
	// FoldBytes is the size above which a message or a tool's content is
	// folded to its first lines until the fold key opens it.
	FoldBytes = 64 << 10
	// foldedLines is how many lines of a folded huge message show.
	foldedLines = 20
	// MaxLines bounds the source lines of one message or content laid out
	// even when open.
	MaxLines = 2000
	// boxLines is how many lines of a tool's output or diff an open card
	// shows before "… K more lines", until the fold key opens it.
	boxLines = 12
	// maxShown bounds the bytes of one message or content laid out, open
	// (a folded one lays out a sixteenth): a 10 MB line is not wrapped
	// whole either.
	maxShown = 256 << 10
)

// key is what an entry's layout depends on: when it is the same, the
// lines are too.
type key struct {
	kind     proto.EntryKind
	text     int
	at       int64 // when the entry last changed, in nanoseconds
	status   string
	contents int
	plan     int
	width    int
	open     bool
	gap      bool
	frame    int // the spinner's frame, for a running tool card only
}

// laid is an entry's lines and the key they were laid out for.
type laid struct {
	key   key
	lines []string
	ok    bool
	md    *mdCache // an agent message's layout up to its last split
}

// View is a transcript laid out at a width. It is used from the UI
// goroutine only.
type View struct {
	st      *markdown.Styles
	chat    string // the chat laid out
	root    string // its folder: paths inside it are shown relative (SetRoot)
	width   int
	open    bool
	entries []laid
	starts  []int // where each entry's lines start
	total   int
	// spinning is set while a running tool card shows a spinner.
	spinning bool
}

// New returns an empty view drawn with st.
func New(st *markdown.Styles) *View { return &View{st: st} }

// SetRoot gives the chat's folder: a path inside it is shown relative to
// it. Another folder lays every entry out again.
func (v *View) SetRoot(root string) {
	root = strings.TrimSuffix(root, "/")
	if root == v.root {
		return
	}
	v.root, v.entries, v.starts, v.total = root, nil, nil, 0
}

// Toggle opens every folded card, thought and huge message, or folds them
// again (the fold key).
func (v *View) Toggle() { v.open = !v.open }

// Opened reports whether the fold key has opened what is folded.
func (v *View) Opened() bool { return v.open }

// Spinning reports whether a running tool card shows a spinner: the
// pane's clock should lay it out again as it ticks.
func (v *View) Spinning() bool { return v.spinning }

// Len is the lines of the transcript.
func (v *View) Len() int { return v.total }

// Update lays out the entries of chat at width with the spinner at frame, laying out
// again only the entries that changed. keep is the line (as laid out
// before) under the bottom of what the pane shows; the result is how many
// lines were added or taken away at or below it, by which a pane scrolled
// back moves its offset so that what the user reads stays put. A new
// width or fold moves everything: then it is 0.
func (v *View) Update(chat string, entries []proto.Entry, width, frame, keep int) int {
	if chat != v.chat {
		// Another chat's entries share nothing with these.
		v.chat, v.entries, v.starts, v.total, v.width = chat, nil, nil, 0, -1
	}
	same := width == v.width && len(entries) >= len(v.entries)
	v.width = width
	shift := 0
	if len(entries) < len(v.entries) {
		v.entries = v.entries[:len(entries)]
	}
	v.spinning = false
	for i := range entries {
		e := &entries[i]
		k := v.keyOf(entries, i, frame)
		if e.Kind == proto.EntryTool && running(e.ToolStatus) {
			v.spinning = true
		}
		if i < len(v.entries) && v.entries[i].ok && v.entries[i].key == k {
			continue
		}
		if i >= len(v.entries) {
			v.entries = append(v.entries, laid{})
		}
		old := v.entries[i]
		md := old.md
		lines := v.layout(e, k, &md)
		if same {
			oldEnd := v.total
			if i < len(v.starts) {
				oldEnd = v.starts[i] + len(old.lines)
			}
			if oldEnd >= keep {
				shift += len(lines) - len(old.lines)
			}
		}
		v.entries[i] = laid{key: k, lines: lines, ok: true, md: md}
	}
	v.starts = v.starts[:0]
	v.total = 0
	for _, l := range v.entries {
		v.starts = append(v.starts, v.total)
		v.total += len(l.lines)
	}
	if !same {
		return 0
	}
	return shift
}

// Invalidate drops every layout: the next Update lays out all again.
func (v *View) Invalidate() {
	for i := range v.entries {
		v.entries[i].ok = false
	}
}

// Window returns the lines from from up to to.
func (v *View) Window(from, to int) []string {
	from, to = max(from, 0), min(to, v.total)
	if from >= to {
		return nil
	}
	out := make([]string, 0, to-from)
	// The first entry holding from: a binary search of the starts.
	lo, hi := 0, len(v.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if v.starts[mid] <= from {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for i := lo; i < len(v.entries) && len(out) < to-from; i++ {
		lines := v.entries[i].lines
		at := max(from-v.starts[i], 0)
		for _, l := range lines[min(at, len(lines)):] {
			if len(out) >= to-from {
				break
			}
			out = append(out, l)
		}
	}
	return out
}

// keyOf is the layout key of entries[i].
func (v *View) keyOf(entries []proto.Entry, i, frame int) key {
	e := &entries[i]
	k := key{kind: e.Kind, text: len(e.Text), at: e.At.UnixNano(), status: e.ToolStatus, contents: len(e.Content),
		plan: len(e.PlanItems) + len(e.Plan), width: v.width, open: v.open, gap: gapBefore(entries, i)}
	for _, c := range e.Content {
		k.contents += len(c.Text) + len(c.NewText)
	}
	if e.Kind == proto.EntryTool && running(e.ToolStatus) {
		k.frame = frame
	}
	return k
}

// gapBefore reports whether a blank line goes before entries[i]: before
// each entry but the first, and but a tool card right under another.
func gapBefore(entries []proto.Entry, i int) bool {
	if i == 0 {
		return false
	}
	return entries[i].Kind != proto.EntryTool || entries[i-1].Kind != proto.EntryTool
}

// running reports whether a tool call's status is a running one.
func running(status string) bool {
	return status == "pending" || status == "in_progress" || status == ""
}

// Hit is a line of the transcript that holds what a search looks for,
// and the entry it belongs to.
type Hit struct{ Line, Entry int }

// Find returns the lines whose text holds query, case folded, in order.
func (v *View) Find(query string) []Hit {
	if query == "" {
		return nil
	}
	q := strings.ToLower(query)
	var hits []Hit
	for i, l := range v.entries {
		for j, line := range l.lines {
			if strings.Contains(strings.ToLower(ansi.Strip(line)), q) {
				hits = append(hits, Hit{Line: v.starts[i] + j, Entry: i})
			}
		}
	}
	return hits
}
