package mux

import (
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// The transcript's types cross the socket, so they live in proto; the mux's
// code names them as its own.

// EntryKind is proto.EntryKind: what a transcript entry holds.
type EntryKind = proto.EntryKind

// The kinds of transcript entries (proto's).
const (
	EntryUser    = proto.EntryUser
	EntryAgent   = proto.EntryAgent
	EntryThought = proto.EntryThought
	EntryTool    = proto.EntryTool
	EntryPlan    = proto.EntryPlan
	EntryNote    = proto.EntryNote
	EntryError   = proto.EntryError
	EntryStderr  = proto.EntryStderr
)

// NoReplyAfter is proto.NoReplyAfter: how long a running turn may go without
// any update before "no reply yet".
const NoReplyAfter = proto.NoReplyAfter

// Entry is proto.Entry: one item of an ACP chat's transcript.
type Entry = proto.Entry

// LastUpdate is proto.LastUpdate: when the last turn in entries last heard
// from the agent.
func LastUpdate(entries []Entry) time.Time { return proto.LastUpdate(entries) }

// RenderTranscript is proto.RenderTranscript: entries as plain text lines
// wrapped to width.
func RenderTranscript(entries []Entry, width int) []string {
	return proto.RenderTranscript(entries, width)
}
