package server

import (
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers _acpmux/signIn: one of the sign-in offers a failed
// ACP chat keeps (its agent's authMethods, cleaned by the mux) taken for
// every client (the TUI's dialog, `acpmux-tui sign-in`).

// signInShell is the harness a terminal sign-in chat's file names: a pty
// harness, whose start the mux replaces with the method's command while
// the sign-in runs (a later start of the chat is a shell in that folder).
const signInShell = "shell"

// signIn answers MethodSignIn.
func (s *Server) signIn(p proto.SignInParams) (proto.SignInResult, *Error) {
	var none proto.SignInResult
	if p.ID == "" {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	meta, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return none, failure(err)
	}
	offer, err := s.opt.Mux.SignInOffer(p.ID, p.Method)
	if err != nil {
		return none, refused(err.Error())
	}
	if rpcErr := s.refuseWhenClosing(); rpcErr != nil {
		return none, rpcErr
	}
	res := proto.SignInResult{Method: offer}
	switch offer.Kind {
	case proto.SignInEnv:
		res.Message = proto.SignInWhere(offer, meta.Harness, s.opt.ConfigPath)
	case proto.SignInTerminal:
		term, err := s.signInTerminal(meta, offer)
		if err != nil {
			return none, failure(err)
		}
		res.Terminal = term
		res.Message = "terminal chat " + term + " runs `" + strings.Join(offer.Command, " ") +
			"`: sign in there; chat " + p.ID + " starts again when it ends"
	default:
		s.revivals.take(p.ID)
		s.track(p.ID)
		if err := s.opt.Mux.SignInAgent(p.ID, offer.ID); err != nil {
			return none, failure(err)
		}
		res.Message = "chat " + p.ID + " starts again and signs in with " + offer.ID
	}
	s.poke()
	s.opt.Logger.Info("sign-in", "chat", p.ID, "method", offer.ID, "kind", offer.Kind, "terminal", res.Terminal)
	return res, nil
}

// signInTerminal makes the terminal chat that runs offer's command for
// ACP chat meta, in its folder (a chat with no project gets its own), and
// starts it.
func (s *Server) signInTerminal(meta *sessions.Meta, offer proto.SignIn) (string, error) {
	if spec, ok := s.table().Get(signInShell); !ok || spec.Transport != harness.TransportPty {
		return "", fmt.Errorf("a terminal sign-in needs the %q harness to be a pty one", signInShell)
	}
	cwd := meta.Cwd
	if s.opt.Store.NoProject(meta) {
		cwd = "" // its own home; the command still runs in the ACP chat's folder
	}
	no := false
	term, err := s.chats.Create(sessions.NewChat{Harness: signInShell, Cwd: cwd, Name: "sign in to " + meta.Harness,
		Worktree: &no, Sandbox: &no})
	if err != nil {
		return "", fmt.Errorf("make the sign-in chat: %w", err)
	}
	s.track(term.ID)
	if err := s.opt.Mux.RunSignInTerminal(term.ID, meta.ID, offer); err != nil {
		return term.ID, fmt.Errorf("start the sign-in chat %s: %w", term.ID, err)
	}
	return term.ID, nil
}
