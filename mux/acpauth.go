package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is signing in to an ACP agent. An agent that answers
// session/new (or load, resume, fork) with auth_required (-32000) lists
// its authMethods; the chat keeps them as offers (proto.SignIn, cleaned
// here, where they enter) and fails, unless one signs it in by itself: an
// environment-variable method whose variables the agent's environment
// holds. The user takes an offer with Mux.SignIn: an agent method makes
// the next start call authenticate first; a terminal method runs its
// command in a terminal chat of its own (RunSignInTerminal), and the ACP
// chat starts again when it ends.
//
// The automatic authenticate is made at the first auth_required, never
// before session/new: an agent that has credentials of its own (an OAuth
// login, a stored key) needs none, and authenticate is not free of
// effects (Gemini CLI records the method as the user's choice and drops a
// cached login of another kind).

// codeAuthRequired is ACP's auth_required error code.
const codeAuthRequired = -32000

// Bounds on what an agent's auth methods may hold once kept.
const (
	maxSignIns    = 16  // offers kept per chat
	maxSignInVars = 8   // variables per env_var method
	maxSignInArgs = 32  // arguments a terminal method adds
	maxSignInArg  = 512 // bytes per argument
)

// keyMethods are agent-kind methods known to sign in from a variable
// the agent reads (Gemini CLI's gemini-api-key, which it lists without
// naming the variable): once it is set, authenticate with the method
// succeeds, as with an env_var method.
var keyMethods = map[string][]string{
	"gemini-api-key": {"GEMINI_API_KEY"},
}

// signInState is what an ACP chat keeps of signing in.
type signInState struct {
	// with is an agent method the user chose: the next start calls
	// authenticate with it before it opens its session.
	with string
	// env is, by method id, the environment each terminal method the
	// agent offered adds to its command.
	env map[string]map[string]string
}

// signIns are the terminal sign-in chats running, by their id.
type signIns struct {
	mu   sync.Mutex
	runs map[string]signInRun
}

// signInRun is one terminal sign-in chat: the ACP chat it signs in and
// the command it runs.
type signInRun struct {
	acp    string
	launch harness.Launch
}

// authRequired reports whether err is the agent's auth_required.
func authRequired(err error) bool {
	var re *acp.RequestError
	return errors.As(err, &re) && re.Code == codeAuthRequired
}

// authMethodsOf is the methods an agent listed at initialize, else those
// its auth_required error carries in data.authMethods (pi-acp lists them
// there too); ids alone (a string list) are not methods and are skipped.
func authMethodsOf(listed []acp.AuthMethod, err error) []acp.AuthMethod {
	if len(listed) > 0 {
		return listed
	}
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Data == nil {
		return nil
	}
	raw, merr := json.Marshal(re.Data)
	if merr != nil {
		return nil
	}
	var data struct {
		AuthMethods []json.RawMessage `json:"authMethods"`
	}
	if json.Unmarshal(raw, &data) != nil {
		return nil
	}
	var out []acp.AuthMethod
	for _, m := range data.AuthMethods {
		var am acp.AuthMethod
		if json.Unmarshal(m, &am) == nil {
			out = append(out, am)
		}
	}
	return out
}

// cleanOffer is a string from an agent as an offer keeps it: one line, no
// escape, bidi or control character, bounded.
func cleanOffer(s string) string { return sessions.AgentTitle(s) }

// validVar reports whether name is a usable environment variable name.
func validVar(name string) bool {
	if name == "" || len(name) > 128 || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// signInOffers turns an agent's methods into offers, cleaned; base is the
// harness's command and arguments, which a terminal method's follow. A
// method with an unusable id, variable or argument is dropped with a log
// line.
func (c *acpChat) signInOffers(methods []acp.AuthMethod, base []string) []proto.SignIn {
	var out []proto.SignIn
	for _, m := range methods {
		if len(out) == maxSignIns {
			break
		}
		s, why := signInOffer(m, base)
		if why != "" {
			c.m.opt.Logger.Warn("dropped an auth method the agent offered", "chat", c.id, "reason", why)
			continue
		}
		out = append(out, s)
	}
	return out
}

// signInOffer is one method as an offer, or why it cannot be one.
func signInOffer(m acp.AuthMethod, base []string) (proto.SignIn, string) {
	var s proto.SignIn
	var desc *string
	switch {
	case m.EnvVar != nil:
		s = proto.SignIn{ID: m.EnvVar.Id, Name: m.EnvVar.Name, Kind: proto.SignInEnv}
		desc = m.EnvVar.Description
		for _, v := range m.EnvVar.Vars {
			if !validVar(v.Name) {
				return s, fmt.Sprintf("variable name %q", cleanOffer(v.Name))
			}
			s.Vars = append(s.Vars, v.Name)
		}
		if len(s.Vars) == 0 || len(s.Vars) > maxSignInVars {
			return s, fmt.Sprintf("%d variables", len(s.Vars))
		}
	case m.Terminal != nil:
		s = proto.SignIn{ID: m.Terminal.Id, Name: m.Terminal.Name, Kind: proto.SignInTerminal}
		desc = m.Terminal.Description
		if len(m.Terminal.Args) > maxSignInArgs {
			return s, fmt.Sprintf("%d arguments", len(m.Terminal.Args))
		}
		s.Command = append([]string(nil), base...)
		for _, a := range m.Terminal.Args {
			// An argument goes to exec as it is, never through a shell;
			// one a line cannot show is refused, not changed.
			if len(a) > maxSignInArg || cleanOffer(a) != a {
				return s, fmt.Sprintf("argument %q", cleanOffer(a))
			}
			s.Command = append(s.Command, a)
		}
		for k, v := range m.Terminal.Env {
			if _, ok := v.(string); !ok || !validVar(k) {
				return s, fmt.Sprintf("environment entry %q", cleanOffer(k))
			}
		}
	case m.Agent != nil:
		s = proto.SignIn{ID: m.Agent.Id, Name: m.Agent.Name, Kind: proto.SignInAgent}
		desc = m.Agent.Description
	default:
		return s, "a method of no known kind"
	}
	if s.ID == "" || len(s.ID) > 128 || cleanOffer(s.ID) != s.ID || strings.ContainsAny(s.ID, " ") {
		return s, fmt.Sprintf("method id %q", cleanOffer(s.ID))
	}
	s.Name = cleanOffer(s.Name)
	if desc != nil {
		s.Description = cleanOffer(*desc)
	}
	return s, ""
}

// terminalEnvs is the environment of each terminal method, by its id (an
// offer checked that every value is a string).
func terminalEnvs(methods []acp.AuthMethod) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, m := range methods {
		if m.Terminal == nil {
			continue
		}
		env := map[string]string{}
		for k, v := range m.Terminal.Env {
			if s, ok := v.(string); ok && !strings.ContainsRune(s, 0) {
				env[k] = s
			}
		}
		out[m.Terminal.Id] = env
	}
	return out
}

// automaticMethod is the id of a method that signs in by itself with the
// environment env the agent got: an env_var method (or a known key
// method) every required variable of which is set; "" for none.
func automaticMethod(methods []acp.AuthMethod, env []string) string {
	set := func(name string) bool {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok && v != "" {
				return true
			}
		}
		return false
	}
	for _, m := range methods {
		switch {
		case m.EnvVar != nil:
			all, some := true, false
			for _, v := range m.EnvVar.Vars {
				if v.Optional {
					continue
				}
				some = true
				all = all && set(v.Name)
			}
			if all && some {
				return m.EnvVar.Id
			}
		case m.Agent != nil:
			if vars, ok := keyMethods[m.Agent.Id]; ok && !slices.ContainsFunc(vars, func(v string) bool { return !set(v) }) {
				return m.Agent.Id
			}
		}
	}
	return ""
}

// openSignedIn opens the session as openSession does, signing in where
// it can: with the agent method the user chose first; at the agent's
// auth_required, with a method the environment satisfies, and once more.
// An auth_required that stays keeps the agent's offers in the chat's
// state; a session made clears them.
func (c *acpChat) openSignedIn(ctx context.Context, p *acpProcess, caps acp.AgentCapabilities, meta *sessions.Meta, dirs []string, listed []acp.AuthMethod) (acp.SessionId, string, error) {
	c.mu.Lock()
	chosen := c.auth.with
	c.auth.with = ""
	c.mu.Unlock()
	if chosen != "" {
		if err := c.authenticate(ctx, p, chosen, "as asked"); err != nil {
			return "", "authenticate", err
		}
	}
	sid, how, err := c.openSession(ctx, p, caps, meta, dirs)
	if authRequired(err) {
		methods := authMethodsOf(listed, err)
		if id := automaticMethod(methods, p.cmd.Env); id != "" && id != chosen {
			if aerr := c.authenticate(ctx, p, id, "by itself: its variables are set"); aerr == nil {
				sid, how, err = c.openSession(ctx, p, caps, meta, dirs)
			}
		}
		if authRequired(err) {
			offers := c.signInOffers(methods, c.harnessBase(meta))
			c.mu.Lock()
			c.state.SignIn, c.auth.env = offers, terminalEnvs(methods)
			c.mu.Unlock()
			return sid, how, err
		}
	}
	if err == nil {
		c.mu.Lock()
		c.state.SignIn = nil
		c.mu.Unlock()
	}
	return sid, how, err
}

// authenticate calls authenticate with method, noting it in the
// transcript; how says why.
func (c *acpChat) authenticate(ctx context.Context, p *acpProcess, method, how string) error {
	_, err := p.conn.Authenticate(ctx, acp.AuthenticateRequest{MethodId: method})
	if err != nil {
		c.m.opt.Logger.Warn("authenticate", "chat", c.id, "method", method, "err", err)
		return err
	}
	c.note("signed in with " + cleanOffer(method) + " " + how)
	c.m.opt.Logger.Info("authenticated", "chat", c.id, "method", method)
	return nil
}

// harnessBase is the chat's harness command and arguments as its current
// start ran them (before the folder flags), which a terminal method's
// arguments follow.
func (c *acpChat) harnessBase(meta *sessions.Meta) []string {
	spec, _ := c.m.table().Get(meta.Harness)
	c.mu.Lock()
	argv := c.state.Argv
	c.mu.Unlock()
	if n := 1 + len(spec.Args); len(argv) >= n {
		return append([]string(nil), argv[:n]...)
	}
	return append([]string{spec.Command}, spec.Args...)
}

// SignInOffer is the offer of chat id's agent with that method id; ""
// takes its only offer. A chat with none, or no such offer, is refused.
func (m *Mux) SignInOffer(id, method string) (proto.SignIn, error) {
	st := m.State(id)
	if len(st.SignIn) == 0 {
		return proto.SignIn{}, fmt.Errorf("chat %s: its agent has not asked to sign in", id)
	}
	if method == "" {
		if len(st.SignIn) > 1 {
			var ids []string
			for _, s := range st.SignIn {
				ids = append(ids, s.ID)
			}
			return proto.SignIn{}, fmt.Errorf("chat %s: its agent offers %d ways to sign in, name one: %s", id, len(ids), strings.Join(ids, ", "))
		}
		return st.SignIn[0], nil
	}
	for _, s := range st.SignIn {
		if s.ID == method {
			return s, nil
		}
	}
	return proto.SignIn{}, fmt.Errorf("chat %s: its agent offers no sign-in method %q", id, method)
}

// SignInAgent restarts ACP chat id so that it calls authenticate with
// method (an agent method it offered) before it opens its session.
func (m *Mux) SignInAgent(id, method string) error {
	c, err := m.chat(id)
	if err != nil {
		return err
	}
	a, ok := c.(*acpChat)
	if !ok {
		return fmt.Errorf("chat %s does not speak ACP", id)
	}
	a.mu.Lock()
	a.auth.with = method
	a.mu.Unlock()
	return m.Restart(id, 0, 0)
}

// RunSignInTerminal starts terminal chat term (a pty chat made for it)
// running offer's command for ACP chat acpID: its harness's program, in
// its folder, with its environment and the method's, unsandboxed (a login
// writes the harness's own credentials), and the environment the method
// adds. When the command ends, acpID is started again.
func (m *Mux) RunSignInTerminal(term, acpID string, offer proto.SignIn) error {
	var env map[string]string
	if c, err := m.existing(acpID); err == nil {
		if a, ok := c.(*acpChat); ok {
			a.mu.Lock()
			env = a.auth.env[offer.ID]
			a.mu.Unlock()
		}
	}
	meta, err := m.opt.Store.Load(acpID)
	if err != nil {
		return err
	}
	_, l, err := m.launchFor(meta)
	if err != nil {
		return err
	}
	if len(offer.Command) == 0 {
		return fmt.Errorf("chat %s: sign-in method %s has no command", acpID, offer.ID)
	}
	l.Argv = append([]string(nil), offer.Command...)
	l.Bound, l.BoundSummary, l.Wrapper = nil, "", ""
	for k, v := range env {
		l.Env = append(l.Env, k+"="+v)
	}
	m.signIns.mu.Lock()
	if m.signIns.runs == nil {
		m.signIns.runs = map[string]signInRun{}
	}
	m.signIns.runs[term] = signInRun{acp: acpID, launch: l}
	m.signIns.mu.Unlock()
	if err := m.Start(term, 0, 0); err != nil {
		m.signIns.mu.Lock()
		delete(m.signIns.runs, term)
		m.signIns.mu.Unlock()
		return err
	}
	return nil
}

// signInLaunch is the launch of a terminal sign-in chat, ok false for any
// other chat.
func (m *Mux) signInLaunch(meta *sessions.Meta) (harness.Spec, harness.Launch, bool) {
	m.signIns.mu.Lock()
	run, ok := m.signIns.runs[meta.ID]
	m.signIns.mu.Unlock()
	if !ok {
		return harness.Spec{}, harness.Launch{}, false
	}
	spec, _ := m.table().Get(meta.Harness)
	return spec, run.launch, true
}

// signInEnded hears that terminal chat id's process ended and reports
// whether it was a sign-in: then it is not respawned, and the ACP chat it
// signed in starts again (off the caller's lock: it holds the chat's).
func (m *Mux) signInEnded(id, how string) bool {
	m.signIns.mu.Lock()
	run, ok := m.signIns.runs[id]
	delete(m.signIns.runs, id)
	m.signIns.mu.Unlock()
	if !ok {
		return false
	}
	m.opt.Logger.Info("sign-in terminal ended; starting the ACP chat again", "chat", id, "for", run.acp, "how", how)
	go func() {
		if c, err := m.chat(run.acp); err == nil {
			if a, ok := c.(*acpChat); ok {
				a.note("the sign-in terminal chat " + id + " ended (" + how + "): starting again")
			}
		}
		if err := m.Start(run.acp, 0, 0); err != nil {
			m.opt.Logger.Warn("start after sign-in", "chat", run.acp, "err", err)
		}
	}()
	return true
}
