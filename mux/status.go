package mux

import "github.com/acpmux/acpmux-tui/proto"

// The status types cross the socket, so they live in proto; the mux's code
// names them as its own.

// Status is proto.Status: where a chat's harness is in its life.
type Status = proto.Status

// The statuses a chat reports (proto's).
const (
	StatusStopped  = proto.StatusStopped
	StatusStarting = proto.StatusStarting
	StatusRunning  = proto.StatusRunning
	StatusAsking   = proto.StatusAsking
	StatusWaiting  = proto.StatusWaiting
	StatusExited   = proto.StatusExited
	StatusFailed   = proto.StatusFailed
)

// StatusSource is proto.StatusSource: where a chat's status comes from.
type StatusSource = proto.StatusSource

// The sources (proto's).
const (
	SourceScreen = proto.SourceScreen
	SourceHooks  = proto.SourceHooks
	SourceNotify = proto.SourceNotify
	SourceACP    = proto.SourceACP
)

// State is proto.State: a chat's harness as the UI shows it.
type State = proto.State

// The wording of when a running chat takes a change of its folders
// (proto's).
const (
	PendingAtTurnEnd = proto.PendingAtTurnEnd
	PendingAtRestart = proto.PendingAtRestart
)

// needsUser reports whether a change of status from prev to s is one the
// user is told of: the chat asks, or a turn has ended.
func needsUser(prev, s Status) bool {
	return s == StatusAsking || s == StatusWaiting && (prev == StatusRunning || prev == StatusAsking)
}
