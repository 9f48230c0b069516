package server

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file announces a chat that needs its user: the mux reports each
// chat that asks, or finishes a turn, while nobody looks at it (Needs);
// the server tells every drawing client (NotifyNotice, which a TUI turns
// into a desktop notification through its terminal) and runs the
// [notify] command, at most once per chat per NoticeInterval. It also
// answers the hooks harnesses run and the clients' MethodLook.

// NoticeInterval is the least time between two notices of one chat.
const NoticeInterval = 10 * time.Second

// noticeCommandTimeout bounds a [notify] command's run: one that hangs is
// killed, so notices never pile up processes.
const noticeCommandTimeout = 30 * time.Second

// Needs carries the mux's reports of chats that need their user to the
// server: give Heard to mux.Options.NeedsUser and Needs to Options.Needs.
type Needs struct {
	ch chan need
	// pass, once the server announces, is its choice of the reports it
	// announces, made in Heard: a report it turns away (most turns' ends:
	// the chat had a notice a moment ago, or the config does not notify
	// on them) wakes no goroutine on the way of the turn that made it.
	pass atomic.Pointer[func(id string, s proto.Status) bool]
}

type need struct {
	id     string
	status proto.Status
	passed bool // pass let it through already
}

// NewNeeds returns an empty Needs.
func NewNeeds() *Needs { return &Needs{ch: make(chan need, 256)} }

// Heard takes one report; it never blocks (a report past a full queue is
// dropped: hundreds of notices at once are not read one by one anyway).
func (n *Needs) Heard(id string, s proto.Status) {
	r := need{id: id, status: s}
	if pass := n.pass.Load(); pass != nil {
		if !(*pass)(id, s) {
			return
		}
		r.passed = true
	}
	select {
	case n.ch <- r:
	default:
	}
}

// noticeLimit lets at most one notice per chat through in each interval.
type noticeLimit struct {
	every time.Duration
	mu    sync.Mutex
	last  map[string]time.Time
}

func (l *noticeLimit) allow(id string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.last[id]; ok && now.Sub(t) < l.every {
		return false
	}
	if l.last == nil {
		l.last = map[string]time.Time{}
	}
	l.last[id] = now
	return true
}

// announce reads the mux's reports until stop closes, and announces each
// one the config asks for and the limit lets through. Reports made once
// it runs are chosen where they are made (Needs.pass); those queued
// before are chosen here.
func (s *Server) announce(stop <-chan struct{}) {
	needs := s.opt.Needs
	if needs == nil {
		return
	}
	limit := &noticeLimit{every: s.opt.NoticeInterval}
	pass := func(id string, status proto.Status) bool {
		return s.config().Notify.NotifiesOn(status.String()) && limit.allow(id, time.Now())
	}
	needs.pass.Store(&pass)
	defer needs.pass.Store(nil)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		select {
		case <-stop:
			return
		case n := <-needs.ch:
			if !n.passed && !pass(n.id, n.status) {
				continue
			}
			notice := s.noticeOf(n.id, n.status)
			s.views.notice(notice)
			if cmd := s.config().Notify.Command; len(cmd) > 0 {
				running.Add(1)
				go func() { defer running.Done(); s.runNoticeCommand(cmd, notice) }()
			}
		}
	}
}

// noticeOf phrases a notice: the chat's name and what it needs.
func (s *Server) noticeOf(id string, status proto.Status) proto.Notice {
	name := id
	if meta, err := s.opt.Store.Load(id); err == nil && meta.Name != "" {
		name = meta.Name
	}
	body := "finished its turn"
	if status == proto.StatusAsking {
		body = "asks for you"
		if p := s.opt.Mux.State(id).Permission; p != nil {
			body = "asks: " + p.Title
		}
	}
	return proto.Notice{ID: id, Status: status.String(), Title: clipText(plaintext.Line(name)), Body: clipText(plaintext.Line(body))}
}

// runNoticeCommand runs the [notify] command with the title and the body
// as two more arguments, away from any terminal, and reaps it.
func (s *Server) runNoticeCommand(argv []string, n proto.Notice) {
	ctx, cancel := context.WithTimeout(context.Background(), noticeCommandTimeout)
	defer cancel()
	args := append(append([]string(nil), argv[1:]...), "acpmux · "+n.Title, n.Body)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Env = append(os.Environ(), harness.EnvChatID+"="+n.ID, "ACPMUX_STATUS="+n.Status)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.opt.Logger.Warn("notify command failed", "chat", n.ID, "command", argv[0], "err", err, "output", clipText(string(out)))
	}
}

// hook answers MethodHook: what a harness's hook or notify program says
// of its turn. It is taken only from a process of that chat's harness
// (hookpeer.go); from any other it is ignored, answered as if taken (the
// caller learns nothing of the chat) and logged.
func (s *Server) hook(c *conn, p proto.HookParams) (struct{}, *Error) {
	if p.ID == "" {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if st := s.opt.Mux.State(p.ID); st.Pid != 0 && !s.reportFromHarness(c, p.ID, st.Pid) {
		return struct{}{}, nil
	}
	var sig harness.TurnSignal
	var ok bool
	if p.Event == harness.CodexHookEvent {
		sig, ok = harness.CodexNotifySignal(p.Payload)
	} else {
		sig, ok = harness.ClaudeHookSignal(p.Event, p.NotificationType, p.Message)
	}
	if !ok {
		return struct{}{}, nil
	}
	if err := s.opt.Mux.Report(p.ID, sig); err != nil {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: %s", clipText(err.Error()))
	}
	if sig == harness.SignalDone {
		s.readUsageFromLog(p.ID)
	}
	return struct{}{}, nil
}

// notice sends n to every watching connection.
func (h *viewHub) notice(n proto.Notice) {
	for _, v := range h.all() {
		v.mu.Lock()
		if v.watching && !v.closed {
			v.c.notify(proto.NotifyNotice, n)
		}
		v.mu.Unlock()
	}
}
