package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `acpmux-tui sign-in ID [METHOD] [--host NAME] [--json]`:
// one of the ways to sign in that a failed ACP chat's agent offered (show
// lists them), taken as the TUI's sign-in dialog takes it. An agent method
// restarts the chat, which signs in first; a terminal method starts a
// terminal chat running its command and prints that chat's id (the ACP
// chat starts again when it ends); an environment-variable method prints
// what to set, and where. The offers live in the server that ran the
// chat: with no server there are none.

// signInOptions are sign-in's arguments and flags.
type signInOptions struct {
	ref, method string
	host        string
	asJSON      bool
}

func cmdSignIn(a *app, args []string) error {
	fs := newFlags(a, "sign-in")
	host := hostFlag(fs)
	asJSON := fs.Bool("json", false, "print what was done as a JSON object")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("usage: acpmux-tui sign-in ID [METHOD] [--host NAME] [--json]")
	}
	o := signInOptions{ref: pos[0], host: *host, asJSON: *asJSON}
	if len(pos) == 2 {
		o.method = pos[1]
	}
	return signInRun(a, o)
}

// signInRun takes the offer on the chat's server.
func signInRun(a *app, o signInOptions) error {
	if o.host != "" {
		return a.onHostChat(o.host, o.ref, func(l *hostLink, id string) error { return a.signInOn(l.conn, id, o) })
	}
	if err := a.open(); err != nil {
		return err
	}
	e, err := a.store.Resolve(o.ref)
	if err != nil {
		return err
	}
	if e.Broken != nil {
		return e.Broken
	}
	conn, err := client.DialRunning(a.store.Home())
	if errors.Is(err, client.ErrNoServer) {
		return fmt.Errorf("chat %s: no server runs, so its agent has not asked to sign in: start the chat first (show lists the ways it offers)", e.ID)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	return a.signInOn(conn, e.ID, o)
}

// signInOn signs chat id in on conn's server and says what was done.
func (a *app) signInOn(conn *client.Conn, id string, o signInOptions) error {
	res, err := conn.SignIn(context.Background(), id, o.method)
	if err != nil {
		return cleanError{err}
	}
	if o.asJSON {
		return a.printJSON(res)
	}
	// Method and Message carry what the agent said, cleaned by the mux;
	// printed on one line each all the same.
	fmt.Fprintln(a.stdout, oneLine(res.Message))
	if res.Terminal != "" {
		fmt.Fprintln(a.stdout, res.Terminal)
	}
	return nil
}

// oneLine is s with its line breaks as spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// signInRows list, in show, the ways to sign in that the chat's agent
// offered, each with what taking it does.
func (a *app) signInRows(row func(k, v string), v proto.ChatJSON) {
	for i, s := range v.SignIn {
		label := ""
		if i == 0 {
			label = "sign in"
		}
		row(label, s.ID+": "+s.Label())
		if s.Kind == proto.SignInEnv {
			row("", "  "+proto.SignInWhere(s, v.Harness, a.paths.Config))
		}
	}
	if len(v.SignIn) > 0 {
		row("", "(acpmux-tui sign-in "+v.ID+" METHOD, or the TUI's sign-in key)")
	}
}
