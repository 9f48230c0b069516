package proto

import "strings"

// This file is signing in to an ACP agent: the ways an agent that answered
// "authentication required" offers (its authMethods, cleaned where they
// entered the mux), kept in the failed chat's state, and the call that
// takes one.

// MethodSignIn (SignInParams → SignInResult) takes one of a failed ACP
// chat's sign-in offers: an agent method restarts the chat, which calls
// authenticate with it first; a terminal method starts a terminal chat
// running its command (the ACP chat starts again when it ends); an
// environment-variable method changes nothing and says what to set where.
const MethodSignIn = "_acpmux/signIn"

// SignInKind is the kind of an agent's auth method (ACP's AuthMethod
// "type"), which decides what signing in with it does.
type SignInKind string

// The kinds of auth method.
const (
	// SignInAgent is the default kind: the client calls authenticate with
	// the method's id, and the agent does the rest.
	SignInAgent SignInKind = "agent"
	// SignInEnv names environment variables the agent reads; once they are
	// set in the agent's environment, authenticate with the method succeeds.
	SignInEnv SignInKind = "env_var"
	// SignInTerminal is a command (the agent's own, with more arguments)
	// that the user runs in a terminal to log in.
	SignInTerminal SignInKind = "terminal"
)

// SignIn is one way to sign in that a chat's agent offered. Every string
// came from the agent and was cleaned where it entered (no escapes, bidi
// or control characters; bounded).
type SignIn struct {
	// ID is the method's id, what authenticate and sign-in take.
	ID   string     `json:"id"`
	Name string     `json:"name"`
	Kind SignInKind `json:"kind"`
	// Description is the agent's own word on the method, if any.
	Description string `json:"description,omitempty"`
	// Vars are, for an env_var method, the variables to set (each a
	// plain name: letters, digits and underscores).
	Vars []string `json:"vars,omitempty"`
	// Command is, for a terminal method, the argument vector it runs: the
	// chat's harness command and arguments, then the method's.
	Command []string `json:"command,omitempty"`
}

// SignInParams are the params of MethodSignIn: the chat, and the id of the
// method to take ("" takes the chat's only offer, and is refused when it
// has several).
type SignInParams struct {
	ID     string `json:"id"`
	Method string `json:"method,omitempty"`
}

// SignInResult is the answer to MethodSignIn.
type SignInResult struct {
	// Method is the offer taken.
	Method SignIn `json:"method"`
	// Terminal is, for a terminal method, the id of the terminal chat
	// that runs its command.
	Terminal string `json:"terminal,omitempty"`
	// Message says what happened or what the user is to do, in one line.
	Message string `json:"message"`
}

// Label is the offer in one line: its name, its kind's action and, where
// it has one, the agent's description.
func (s SignIn) Label() string {
	label := s.Name
	if label == "" {
		label = s.ID
	}
	switch s.Kind {
	case SignInEnv:
		label += ": set " + strings.Join(s.Vars, ", ")
	case SignInTerminal:
		label += ": run `" + strings.Join(s.Command, " ") + "` in a terminal chat"
	default:
		label += ": the agent signs in (authenticate)"
	}
	if s.Description != "" {
		label += " (" + s.Description + ")"
	}
	return label
}

// SignInWhere says where to set an env_var method's variables for the
// chat's harness: the harness's env in the config file at configPath ("" if
// unknown), read again by a running server; then restart the chat.
func SignInWhere(s SignIn, harness, configPath string) string {
	file := "the config file"
	if configPath != "" {
		file = configPath
	}
	return "set " + strings.Join(s.Vars, ", ") + " in the env of [harness." + harness + "] in " + file +
		" (or in the environment the server starts with), then restart the chat: it signs in by itself"
}

// sameSignIns reports whether two lists of offers are the same (State.Equal).
func sameSignIns(a, b []SignIn) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Name != y.Name || x.Kind != y.Kind || x.Description != y.Description ||
			!sameList(x.Vars, y.Vars) || !sameList(x.Command, y.Command) {
			return false
		}
	}
	return true
}
