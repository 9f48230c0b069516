package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/coder/acp-go-sdk"
)

// This file is the fake agent's sign-in (ACPMUX_FAKE_AUTH): one auth
// method of the kind asked for, and session setup refused with
// auth_required until it has signed the process in.

// The kinds of auth method the fake offers, and their ids.
const (
	authAgent    = "agent"
	authEnv      = "env"
	authTerminal = "terminal"

	authMethodID   = "fake-login"
	authEnvID      = "fake-key"
	authTerminalID = "fake-terminal"
	// authEnvVar is the env method's variable.
	authEnvVar = "ACPMUX_FAKE_KEY"
	// loginFlag makes acpfake the terminal method's command: it writes
	// ACPMUX_FAKE_AUTH_MARKER and exits 0.
	loginFlag = "--fake-login"
)

// authKind reads ACPMUX_FAKE_AUTH: "1" is the agent kind, as it was
// before the others.
func authKind(v string) string {
	if v == "1" {
		return authAgent
	}
	return v
}

// authMethods are what initialize lists: the one method asked for; a
// terminal method only to a client that can run one, as ACP requires.
func (a *fakeAgent) authMethods(caps acp.ClientCapabilities) []acp.AuthMethod {
	name, desc := "Log in", "Run `fake login` in a terminal"
	if v, ok := os.LookupEnv("ACPMUX_FAKE_AUTH_NAME"); ok {
		if s, err := strconv.Unquote(`"` + v + `"`); err == nil {
			v = s
		}
		name, desc = v, v+" description"
	}
	switch a.cfg.auth {
	case authAgent:
		return []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{Id: authMethodID, Name: name, Description: acp.Ptr(desc)}}}
	case authEnv:
		return []acp.AuthMethod{{EnvVar: &acp.AuthMethodEnvVarInline{Id: authEnvID, Name: name, Description: acp.Ptr(desc),
			Type: "env_var", Vars: []acp.AuthEnvVar{{Name: authEnvVar}}}}}
	case authTerminal:
		if !caps.Auth.Terminal {
			return []acp.AuthMethod{}
		}
		return []acp.AuthMethod{{Terminal: &acp.AuthMethodTerminalInline{Id: authTerminalID, Name: name, Description: acp.Ptr(desc),
			Type: "terminal", Args: []string{loginFlag}, Env: map[string]any{"ACPMUX_FAKE_LOGIN_BY": "terminal"}}}}
	}
	return []acp.AuthMethod{}
}

// Authenticate accepts the advertised agent or env method (the env one
// once its variable is set) and lifts auth_required for the rest of this
// process. A terminal method is never passed to authenticate.
func (a *fakeAgent) Authenticate(_ context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	logf("acpfake: authenticate %s", p.MethodId)
	switch {
	case a.cfg.auth == authAgent && p.MethodId == authMethodID:
	case a.cfg.auth == authEnv && p.MethodId == authEnvID:
		if os.Getenv(authEnvVar) == "" {
			return acp.AuthenticateResponse{}, acp.NewAuthRequired(map[string]any{"reason": authEnvVar + " is not set"})
		}
	default:
		return acp.AuthenticateResponse{}, &acp.RequestError{Code: codeInvalidParams,
			Message: fmt.Sprintf("unknown auth method %q", p.MethodId)}
	}
	a.authenticated.Store(true)
	return acp.AuthenticateResponse{}, nil
}

// checkAuth refuses session setup until signed in: by authenticate, or,
// for the terminal kind, by the marker file its command writes.
func (a *fakeAgent) checkAuth() error {
	switch a.cfg.auth {
	case "":
		return nil
	case authTerminal:
		if marker := os.Getenv("ACPMUX_FAKE_AUTH_MARKER"); marker != "" {
			if _, err := os.Stat(marker); err == nil {
				return nil
			}
		}
	}
	if a.authenticated.Load() {
		return nil
	}
	id := map[string]string{authAgent: authMethodID, authEnv: authEnvID, authTerminal: authTerminalID}[a.cfg.auth]
	return acp.NewAuthRequired(map[string]any{"authMethods": []string{id}})
}

// fakeLogin is `acpfake --fake-login`, the terminal method's command: it
// writes ACPMUX_FAKE_AUTH_MARKER (what ACPMUX_FAKE_LOGIN_BY says, which
// the method's env sets) and says so. It reports whether it ran.
func fakeLogin(args []string) bool {
	if len(args) == 0 || args[len(args)-1] != loginFlag {
		return false
	}
	marker := os.Getenv("ACPMUX_FAKE_AUTH_MARKER")
	if marker == "" {
		fmt.Fprintln(os.Stderr, "acpfake: ACPMUX_FAKE_AUTH_MARKER is not set")
		os.Exit(1)
	}
	if err := os.WriteFile(marker, []byte(os.Getenv("ACPMUX_FAKE_LOGIN_BY")), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "acpfake:", err)
		os.Exit(1)
	}
	fmt.Println("fake login: done")
	return true
}
