package agent

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// The transcript's types cross the socket, so they live in proto.

// NoteCancelled is the mark a turn the user cancelled leaves.
const NoteCancelled = "turn cancelled"

// MaxTranscriptEntries bounds an ACP chat's transcript in memory; older
// entries are dropped (the agent keeps the full history). Past it each new
// entry takes the place of the oldest, in a ring: nothing is copied or
// made. Cutting the front at once, as it was, copied the 5,000 kept
// entries (1.4 MB, into memory fresh from the kernel) on the way of the
// update that came past the bound, every 1,250 entries.
const MaxTranscriptEntries = 5000

// maxEntryText bounds one entry's text.
const maxEntryText = 1 << 20

// MaxEntryPaths bounds the paths, and the locations, one tool entry keeps,
// and maxPathBytes one path.
const (
	MaxEntryPaths = 64
	maxPathBytes  = 4096
)

// Transcript is an ACP chat's conversation as streamed by the agent, and
// where its running turn stands.
type Transcript struct {
	// ring holds the entries, the oldest at head once it is full
	// (MaxTranscriptEntries): entry(i) is the i-th kept, oldest first.
	ring []proto.Entry
	head int
	// stamps[j] is when ring[j] last changed, counted in changes (seq): a
	// drawing client asks for what changed since the last change it saw
	// (Since). dropped counts the entries dropped from the front, so an
	// entry's place in the whole conversation is dropped + i. epoch names
	// this transcript: a client's count of another one's changes means
	// nothing here.
	stamps  []uint64
	seq     uint64
	dropped int64
	epoch   uint64
	// Cancelled is set when the user cancels the running turn, until the
	// next turn starts: the turn's end leaves one mark, and permission
	// requests that arrive meanwhile are answered "Cancelled".
	Cancelled bool
}

// Add appends an entry, cleaning what it shows (its locations come
// cleaned: see Locations; its content too: see ToolContents) and cutting a
// message's text to the bound (Size then says what the agent sent).
func (t *Transcript) Add(e proto.Entry) {
	if len(e.Text) > maxEntryText {
		e.Size = max(e.Size, int64(len(e.Text)))
		e.Text = cutUTF8(e.Text, maxEntryText)
	}
	e.Text = CleanText(e.Text)
	e.Title, e.ToolStatus = cleanLine(e.Title), cleanLine(e.ToolStatus)
	for i, p := range e.Plan {
		e.Plan[i] = cleanLine(p)
	}
	for i := range e.PlanItems {
		e.PlanItems[i].Content = cleanLine(e.PlanItems[i].Content)
	}
	paths := e.Paths
	e.Paths = nil
	addEntryPaths(&e, paths)
	if e.At.IsZero() {
		e.At = time.Now()
	}
	if len(t.ring) < MaxTranscriptEntries {
		t.ring = append(t.ring, e)
		t.stamps = append(t.stamps, 0)
	} else {
		t.ring[t.head] = e // the oldest goes
		t.head++
		if t.head == len(t.ring) {
			t.head = 0
		}
		t.dropped++
	}
	t.changed(t.count() - 1)
}

// count is how many entries are kept.
func (t *Transcript) count() int { return len(t.ring) }

// slot is where the i-th entry kept (oldest first) is in the ring.
func (t *Transcript) slot(i int) int {
	j := t.head + i
	if j >= len(t.ring) {
		j -= len(t.ring)
	}
	return j
}

// entry is the i-th entry kept, oldest first.
func (t *Transcript) entry(i int) *proto.Entry { return &t.ring[t.slot(i)] }

// changed stamps entry i as changed now: every change to an entry already
// kept goes through it, so Since tells it.
func (t *Transcript) changed(i int) {
	t.seq++
	t.stamps[t.slot(i)] = t.seq
}

// AppendText adds a streamed chunk to the message it belongs to, else starts
// a new one. A chunk belongs to the last entry when that entry is of its
// kind and has its message id. Without message ids (ACP v1 stable has
// none), agent messages and thoughts are streamed, so their chunks join;
// a user message is sent whole (a session/load replays each prompt as its
// own chunk), so each user chunk without an id is a message of its own:
// two prompts replayed back to back stay two messages.
//
// A message keeps maxEntryText bytes of text; past them its chunks are
// counted, not kept: Size is then the bytes the agent sent in all. It
// returns the part of text kept (cleaned) and the message's Size.
func (t *Transcript) AppendText(kind proto.EntryKind, text, messageID string) (kept string, size int64) {
	if n := t.count(); n > 0 {
		e := t.entry(n - 1)
		// A user message's links may come before its text (a replay of
		// a prompt that linked files): the text joins them.
		linksOnly := kind == proto.EntryUser && e.Text == "" && len(e.Links) > 0
		joins := e.Kind == kind && e.MessageID == messageID && (kind != proto.EntryUser || messageID != "" || linksOnly)
		if joins {
			if room := maxEntryText - len(e.Text); len(text) > room || e.Size > 0 {
				if e.Size == 0 {
					e.Size = int64(len(e.Text))
				}
				e.Size += int64(len(text))
				text = cutUTF8(text, max(room, 0))
			}
			text = CleanText(text)
			e.Text += text
			e.At = time.Now()
			t.changed(n - 1)
			return text, e.Size
		}
	}
	t.Add(proto.Entry{Kind: kind, Text: text, MessageID: messageID})
	e := t.entry(t.count() - 1)
	return e.Text, e.Size
}

// Tool records a Tool call or an update to one (u: the call's id and what
// the update says; "" and nil for what it leaves as it was). Locations
// (as Locations cleans them) and content (as ToolContents cleans it)
// replace the call's when not nil, as ACP's tool_call_update says; the
// locations' paths join the call's Paths.
func (t *Transcript) Tool(u proto.Entry) {
	for i := t.count() - 1; i >= 0; i-- {
		e := t.entry(i)
		if e.Kind == proto.EntryTool && e.ToolCallID == u.ToolCallID {
			if u.Title != "" {
				e.Title = cleanLine(u.Title)
			}
			if u.ToolStatus != "" {
				e.ToolStatus = cleanLine(u.ToolStatus)
			}
			if u.ToolKind != "" {
				e.ToolKind = u.ToolKind
			}
			if u.Locations != nil {
				e.Locations = u.Locations
				addLocationPaths(e, u.Locations)
			}
			if u.Content != nil {
				e.Content = u.Content
			}
			e.At = time.Now()
			t.changed(i)
			return
		}
	}
	e := proto.Entry{Kind: proto.EntryTool, ToolCallID: u.ToolCallID, Title: u.Title, ToolStatus: u.ToolStatus,
		ToolKind: u.ToolKind, Locations: u.Locations, Content: u.Content}
	if e.ToolStatus == "" {
		e.ToolStatus = "pending"
	}
	addLocationPaths(&e, u.Locations)
	t.Add(e)
}

// addEntryPaths adds paths the entry does not have yet, cleaned and bounded.
func addEntryPaths(e *proto.Entry, paths []string) {
	for _, p := range paths {
		addEntryPath(e, p)
	}
}

// addLocationPaths adds the paths of locations to the entry's Paths.
func addLocationPaths(e *proto.Entry, locations []proto.Location) {
	for _, l := range locations {
		addEntryPath(e, l.Path)
	}
}

// addEntryPath adds p unless the entry has it, cleaned and bounded.
func addEntryPath(e *proto.Entry, p string) {
	p = cleanLine(p)
	if p == "" || len(p) > maxPathBytes || len(e.Paths) >= MaxEntryPaths || slices.Contains(e.Paths, p) {
		return
	}
	e.Paths = append(e.Paths, p)
}

// Wrote records a file the agent Wrote through fs/write_text_file: on the
// latest tool call of the running turn (the one that Wrote it), else as a
// tool entry of its own.
func (t *Transcript) Wrote(path string) {
	for i := t.count() - 1; i >= 0; i-- {
		e := t.entry(i)
		if e.Kind == proto.EntryUser {
			break
		}
		if e.Kind == proto.EntryTool {
			addEntryPath(e, path)
			t.changed(i)
			return
		}
	}
	t.Add(proto.Entry{Kind: proto.EntryTool, Title: "write " + path, ToolStatus: "completed", Paths: []string{path}})
}

// Plan keeps a plan: an agent sends the whole plan each time, which
// replaces the plan just before it.
func (t *Transcript) Plan(items []string, whole []proto.PlanItem) {
	if n := t.count(); n > 0 && t.entry(n-1).Kind == proto.EntryPlan {
		for i, p := range items {
			items[i] = cleanLine(p)
		}
		for i := range whole {
			whole[i].Content = cleanLine(whole[i].Content)
		}
		last := t.entry(n - 1)
		last.Plan, last.PlanItems, last.At = items, whole, time.Now()
		t.changed(n - 1)
		return
	}
	t.Add(proto.Entry{Kind: proto.EntryPlan, Plan: items, PlanItems: whole})
}

// StartTurn records the user's prompt at the start of a turn, with the
// files it links (checked where they entered: CheckLinks).
func (t *Transcript) StartTurn(text string, links ...proto.Link) {
	t.Cancelled = false
	t.Add(proto.Entry{Kind: proto.EntryUser, Text: text, Links: slices.Clone(links)})
}

// Cancel records that the user cancelled the running turn.
func (t *Transcript) Cancel() { t.Cancelled = true }

// EndTurn leaves the turn's one mark: "turn cancelled" when the user
// cancelled it or the agent says it was, else the error, else a stop
// reason other than end_turn.
func (t *Transcript) EndTurn(reason string, err error) {
	switch {
	case t.Cancelled || err == nil && reason == "cancelled":
		t.Add(proto.Entry{Kind: proto.EntryNote, Text: NoteCancelled})
	case err != nil:
		t.Add(proto.Entry{Kind: proto.EntryError, Text: err.Error()})
	case reason != "end_turn":
		t.Add(proto.Entry{Kind: proto.EntryNote, Text: "turn ended: " + reason})
	}
	t.Cancelled = false
}

func (t *Transcript) HasUserMessage() bool {
	for i := range t.count() {
		if t.entry(i).Kind == proto.EntryUser {
			return true
		}
	}
	return false
}

func (t *Transcript) Entries() []proto.Entry {
	out := make([]proto.Entry, t.count())
	for i := range out {
		out[i] = entryCopy(*t.entry(i))
	}
	return out
}

// entryCopy is e with lists of its own.
func entryCopy(e proto.Entry) proto.Entry {
	e.Plan = append([]string(nil), e.Plan...)
	e.PlanItems = append([]proto.PlanItem(nil), e.PlanItems...)
	e.Paths = append([]string(nil), e.Paths...)
	e.Locations = append([]proto.Location(nil), e.Locations...)
	// A content's OldText is never changed in place: the pointer may be
	// shared.
	e.Content = append([]proto.ToolContent(nil), e.Content...)
	e.Links = append([]proto.Link(nil), e.Links...)
	return e
}

// Since is the transcript for a client that holds it as of change since
// of transcript epoch: the entries changed after it, each with its place,
// and where the transcript now starts and ends; or the whole transcript
// (Delta unset) when the client holds none (since 0) or another
// transcript's. A chunk of a long conversation then costs the chunk's
// message, not the conversation.
func (t *Transcript) Since(epoch, since uint64) proto.TranscriptResult {
	if t.epoch == 0 {
		t.epoch = rand.Uint64() | 1
	}
	res := proto.TranscriptResult{Epoch: t.epoch, Seq: t.seq, Base: t.dropped, Len: t.dropped + int64(t.count())}
	if epoch != t.epoch || since == 0 || since > t.seq {
		res.Entries = t.Entries()
		return res
	}
	res.Delta = true
	for i := t.count() - 1; i >= 0; i-- {
		if t.stamps[t.slot(i)] <= since {
			continue
		}
		res.Changed = append(res.Changed, proto.PlacedEntry{At: t.dropped + int64(i), Entry: entryCopy(*t.entry(i))})
	}
	slices.Reverse(res.Changed)
	return res
}

// Apply takes a session/update into the transcript and returns the entry
// it makes of it, as the update said it (a chunk alone, not the message it
// joins), for a chat's observer; nil for an update the transcript does not
// keep (modes and options are the session's, not the conversation's).
func (t *Transcript) Apply(u acp.SessionUpdate) *proto.Entry {
	chunk := func(kind proto.EntryKind, content acp.ContentBlock, messageID *string) *proto.Entry {
		e := proto.Entry{Kind: kind}
		if messageID != nil {
			e.MessageID = *messageID
		}
		// The stream gets what the transcript kept of the chunk: past the
		// message's bound, no text and the size so far.
		e.Text, e.Size = t.AppendText(e.Kind, ContentText(content), e.MessageID)
		return &e
	}
	switch {
	case u.UserMessageChunk != nil:
		if l := u.UserMessageChunk.Content.ResourceLink; l != nil {
			if e := t.userLink(proto.Link{URI: l.Uri, Name: l.Name}, u.UserMessageChunk.MessageId); e != nil {
				return e
			}
		}
		return chunk(proto.EntryUser, u.UserMessageChunk.Content, u.UserMessageChunk.MessageId)
	case u.AgentMessageChunk != nil:
		return chunk(proto.EntryAgent, u.AgentMessageChunk.Content, u.AgentMessageChunk.MessageId)
	case u.AgentThoughtChunk != nil:
		return chunk(proto.EntryThought, u.AgentThoughtChunk.Content, u.AgentThoughtChunk.MessageId)
	case u.ToolCall != nil:
		c := u.ToolCall
		e := proto.Entry{Kind: proto.EntryTool, ToolCallID: string(c.ToolCallId), Title: cleanLine(c.Title),
			ToolStatus: cleanLine(string(c.Status)), ToolKind: ToolKind(c.Kind),
			Locations: Locations(c.Locations), Content: ToolContents(c.Content)}
		t.Tool(e)
		return &e
	case u.ToolCallUpdate != nil:
		c := u.ToolCallUpdate
		e := proto.Entry{Kind: proto.EntryTool, ToolCallID: string(c.ToolCallId),
			Locations: Locations(c.Locations), Content: ToolContents(c.Content)}
		if c.Title != nil {
			e.Title = cleanLine(*c.Title)
		}
		if c.Status != nil {
			e.ToolStatus = cleanLine(string(*c.Status))
		}
		if c.Kind != nil {
			e.ToolKind = ToolKind(*c.Kind)
		}
		t.Tool(e)
		return &e
	case u.Plan != nil:
		items := make([]string, len(u.Plan.Entries))
		whole := make([]proto.PlanItem, len(u.Plan.Entries))
		for i, e := range u.Plan.Entries {
			items[i] = cleanLine(fmt.Sprintf("[%s] %s", e.Status, e.Content))
			whole[i] = proto.PlanItem{Content: cleanLine(e.Content), Priority: known(string(e.Priority), "high", "medium", "low"),
				Status: known(string(e.Status), "pending", "in_progress", "completed")}
		}
		t.Plan(items, whole)
		return &proto.Entry{Kind: proto.EntryPlan, Plan: append([]string(nil), items...), PlanItems: append([]proto.PlanItem(nil), whole...)}
	}
	return nil
}

// userLink keeps a file a user's message links (a resource_link block of
// a session/load's replay) as a link of that message: of the last entry
// when it is the user's message (of the same id), else of a new one. A
// link that CheckLinks would refuse is not kept as one (nil): it is shown
// as text.
func (t *Transcript) userLink(l proto.Link, messageID *string) *proto.Entry {
	if checkLink(l) != nil {
		return nil
	}
	e := proto.Entry{Kind: proto.EntryUser, Links: []proto.Link{l}}
	if messageID != nil {
		e.MessageID = *messageID
	}
	if n := t.count(); n > 0 {
		last := t.entry(n - 1)
		if last.Kind == proto.EntryUser && last.MessageID == e.MessageID && len(last.Links) < proto.MaxPromptLinks {
			last.Links = append(last.Links, l)
			last.At = time.Now()
			t.changed(n - 1)
			return &e
		}
	}
	t.Add(e)
	return &e
}

// known is v when it is one of values, else "": an agent's word for a
// plan's priority or status is kept only when it is one ACP defines.
func known(v string, values ...string) string {
	if slices.Contains(values, v) {
		return v
	}
	return ""
}
