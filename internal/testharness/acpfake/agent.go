package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/coder/acp-go-sdk"
)

// Error codes a strict agent answers with, beyond the SDK's constructors.
const (
	codeInvalidParams    = -32602
	codeResourceNotFound = -32002
)

// fakeAgent implements the SDK's Agent, AgentLoader and the one unstable
// method it serves, session/fork.
type fakeAgent struct {
	cfg           config
	out           *stdout
	conn          *acp.AgentSideConnection
	store         *store
	authenticated atomic.Bool
	toolCalls     atomic.Int64
	deaf          *deafReader // stdin, which stops after a session/new (ACPMUX_FAKE_DEAF_GATE)
}

var (
	_ acp.Agent       = (*fakeAgent)(nil)
	_ acp.AgentLoader = (*fakeAgent)(nil)
	_ interface {
		UnstableForkSession(context.Context, acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error)
	} = (*fakeAgent)(nil)
)

func newAgent(cfg config, out *stdout) *fakeAgent {
	return &fakeAgent{cfg: cfg, out: out, store: newStore(cfg.stateDir)}
}

// Initialize advertises what the environment asked for.
func (a *fakeAgent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	logf("acpfake: initialize protocolVersion=%d", p.ProtocolVersion)
	defer initPace()()
	caps := acp.AgentCapabilities{LoadSession: a.cfg.load}
	if a.cfg.advertiseDirs {
		caps.SessionCapabilities.AdditionalDirectories = &acp.SessionAdditionalDirectoriesCapabilities{}
	}
	if a.cfg.resume {
		caps.SessionCapabilities.Resume = &acp.SessionResumeCapabilities{}
	}
	if a.cfg.fork {
		caps.SessionCapabilities.Fork = &acp.SessionForkCapabilities{}
	}
	methods := a.authMethods(p.ClientCapabilities)
	return acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersionNumber,
		AgentCapabilities: caps,
		AgentInfo:         &acp.Implementation{Name: "acpfake", Version: "0.0.0"},
		AuthMethods:       methods,
	}, nil
}

// checkFolders validates cwd and additionalDirectories as a strict agent
// does: absolute paths only, and the field only when advertised.
func (a *fakeAgent) checkFolders(method, cwd string, dirs []string) error {
	if !filepath.IsAbs(cwd) {
		return &acp.RequestError{Code: codeInvalidParams,
			Message: fmt.Sprintf("%s: cwd must be an absolute path: %q", method, cwd),
			Data:    map[string]any{"cwd": cwd}}
	}
	if dirs != nil && !a.cfg.advertiseDirs {
		return &acp.RequestError{Code: codeInvalidParams,
			Message: "additionalDirectories not supported",
			Data:    map[string]any{"additionalDirectories": dirs}}
	}
	for i, d := range dirs {
		if !filepath.IsAbs(d) {
			return &acp.RequestError{Code: codeInvalidParams,
				Message: fmt.Sprintf("%s: additionalDirectories[%d] must be an absolute path: %q", method, i, d),
				Data:    map[string]any{"index": i, "path": d}}
		}
	}
	return nil
}

func unknownSession(id acp.SessionId) error {
	return &acp.RequestError{Code: codeResourceNotFound,
		Message: fmt.Sprintf("session not found: %s", id),
		Data:    map[string]any{"sessionId": string(id)}}
}

func methodNotFound(method string) error {
	return acp.NewMethodNotFound(method)
}

// newSessionID is the id of a new session: ACPMUX_FAKE_SESSION_ID when set,
// else a fresh one.
func (a *fakeAgent) newSessionID() string {
	if a.cfg.sessionID != "" {
		return a.cfg.sessionID
	}
	return newSessionID()
}

// NewSession starts an empty conversation.
func (a *fakeAgent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	logf("acpfake: session/new cwd=%s additionalDirectories=%q", p.Cwd, p.AdditionalDirectories)
	if err := a.checkAuth(); err != nil {
		return acp.NewSessionResponse{}, err
	}
	if err := a.checkFolders(acp.AgentMethodSessionNew, p.Cwd, p.AdditionalDirectories); err != nil {
		return acp.NewSessionResponse{}, err
	}
	ss := session{ID: a.newSessionID(), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories, History: []turn{}}
	if err := a.store.put(ss); err != nil {
		return acp.NewSessionResponse{}, err
	}
	modes, opts := a.sessionConfig(ss)
	a.offerCommands(ss.ID)
	if a.deaf != nil {
		a.deaf.stop()
	}
	return acp.NewSessionResponse{SessionId: acp.SessionId(ss.ID), Modes: modes, ConfigOptions: opts}, nil
}

// LoadSession replays the stored history as session/update notifications,
// then answers.
func (a *fakeAgent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	logf("acpfake: session/load %s cwd=%s additionalDirectories=%q", p.SessionId, p.Cwd, p.AdditionalDirectories)
	if !a.cfg.load {
		return acp.LoadSessionResponse{}, methodNotFound(acp.AgentMethodSessionLoad)
	}
	ss, err := a.reopen(acp.AgentMethodSessionLoad, p.SessionId, p.Cwd, p.AdditionalDirectories)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	for _, t := range ss.History {
		if err := a.update(ctx, ss.ID, acp.UpdateUserMessageText(t.User)); err != nil {
			return acp.LoadSessionResponse{}, err
		}
		if t.Agent == "" {
			continue
		}
		if err := a.update(ctx, ss.ID, acp.UpdateAgentMessageText(t.Agent)); err != nil {
			return acp.LoadSessionResponse{}, err
		}
	}
	modes, opts := a.sessionConfig(ss)
	a.offerCommands(ss.ID)
	return acp.LoadSessionResponse{Modes: modes, ConfigOptions: opts}, nil
}

// ResumeSession reopens a stored session without replaying it.
func (a *fakeAgent) ResumeSession(_ context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	logf("acpfake: session/resume %s cwd=%s additionalDirectories=%q", p.SessionId, p.Cwd, p.AdditionalDirectories)
	if !a.cfg.resume {
		return acp.ResumeSessionResponse{}, methodNotFound(acp.AgentMethodSessionResume)
	}
	ss, err := a.reopen(acp.AgentMethodSessionResume, p.SessionId, p.Cwd, p.AdditionalDirectories)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	modes, opts := a.sessionConfig(ss)
	a.offerCommands(ss.ID)
	return acp.ResumeSessionResponse{Modes: modes, ConfigOptions: opts}, nil
}

// UnstableForkSession copies a stored session's history into a new one.
func (a *fakeAgent) UnstableForkSession(_ context.Context, p acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
	logf("acpfake: session/fork %s cwd=%s additionalDirectories=%q", p.SessionId, p.Cwd, p.AdditionalDirectories)
	if !a.cfg.fork {
		return acp.UnstableForkSessionResponse{}, methodNotFound(acp.AgentMethodSessionFork)
	}
	if err := a.checkAuth(); err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	if err := a.checkFolders(acp.AgentMethodSessionFork, p.Cwd, p.AdditionalDirectories); err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	src, ok := a.store.get(string(p.SessionId))
	if !ok {
		return acp.UnstableForkSessionResponse{}, unknownSession(p.SessionId)
	}
	fork := session{ID: a.newSessionID(), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories,
		Parent: src.ID, History: src.History, Mode: src.Mode, Model: src.Model}
	if err := a.store.put(fork); err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	modes, _ := a.sessionConfig(fork)
	a.offerCommands(fork.ID)
	return acp.UnstableForkSessionResponse{SessionId: acp.SessionId(fork.ID), Modes: modes}, nil
}

// reopen checks a load or resume request and records the cwd and folders it
// carried on the stored session.
func (a *fakeAgent) reopen(method string, id acp.SessionId, cwd string, dirs []string) (session, error) {
	if err := a.checkAuth(); err != nil {
		return session{}, err
	}
	if err := a.checkFolders(method, cwd, dirs); err != nil {
		return session{}, err
	}
	if _, ok := a.store.get(string(id)); !ok {
		return session{}, unknownSession(id)
	}
	if err := a.store.update(string(id), func(ss *session) {
		ss.Cwd = cwd
		ss.AdditionalDirectories = dirs
	}); err != nil {
		return session{}, err
	}
	ss, _ := a.store.get(string(id))
	return ss, nil
}

// update sends one session/update notification.
func (a *fakeAgent) update(ctx context.Context, id string, u acp.SessionUpdate) error {
	return a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(id), Update: u})
}

// Cancel needs no work of its own: the SDK cancels the running prompt's
// context when session/cancel arrives.
func (a *fakeAgent) Cancel(_ context.Context, p acp.CancelNotification) error {
	logf("acpfake: session/cancel %s", p.SessionId)
	return nil
}

// Logout is not advertised.
func (a *fakeAgent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, methodNotFound(acp.AgentMethodLogout)
}

// CloseSession is not advertised.
func (a *fakeAgent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, methodNotFound(acp.AgentMethodSessionClose)
}

// ListSessions is not advertised.
func (a *fakeAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, methodNotFound(acp.AgentMethodSessionList)
}
