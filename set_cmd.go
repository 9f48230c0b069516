package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is set, which shows or changes an ACP chat's session mode and
// configuration options through its agent (session/set_mode,
// session/set_config_option), as the TUI's options chooser does. OPTION
// and VALUE are matched by the server (proto.FindOption, FindValue): an
// id, or a name without regard to case; "mode" is the session mode, or the
// option of category "mode" that stands for it.

// setOptions are set's arguments and flags.
type setOptions struct {
	ref, option, value string // option and value "": list them
	host               string
	asJSON             bool
}

func cmdSet(a *app, args []string) error {
	fs := newFlags(a, "set")
	host := hostFlag(fs)
	asJSON := fs.Bool("json", false, "print the chat's mode and options (after the change) as a JSON object")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	o := setOptions{host: *host, asJSON: *asJSON}
	switch len(pos) {
	case 1:
		o.ref = pos[0]
	case 3:
		o.ref, o.option, o.value = pos[0], pos[1], pos[2]
	default:
		return usagef("usage: acpmux-tui set ID [OPTION VALUE] [--host NAME] [--json] (quote a name with spaces)")
	}
	return setRun(a, o)
}

// setRun starts the chat's agent unless it runs (as prompt does), then
// sets the option, or lists the options when none is given.
func setRun(a *app, o setOptions) error {
	if o.host != "" {
		return a.onHostChat(o.host, o.ref, func(l *hostLink, id string) error { return a.setOn(l.conn, id, o) })
	}
	e, conn, err := a.acpChatConn(o.ref, ": it has no modes or options")
	if err != nil {
		return err
	}
	defer conn.Close()
	return a.setOn(conn, e.ID, o)
}

// setJSON is what set --json prints.
type setJSON struct {
	ID string `json:"id"`
	proto.OptionsResult
}

// setOn runs set on a connection to the chat's server.
func (a *app) setOn(conn *client.Conn, id string, o setOptions) error {
	ctx := context.Background()
	if err := conn.ChatReady(ctx, id); err != nil {
		return cleanError{fmt.Errorf("start chat %s: %w", id, err)}
	}
	var res proto.OptionsResult
	var err error
	if o.option == "" {
		res, err = conn.ChatOptions(ctx, id)
	} else {
		res, err = conn.SetOption(ctx, id, o.option, o.value)
	}
	var refusal *client.Refusal
	if errors.As(err, &refusal) {
		return reasonError{refusal}
	}
	if err != nil {
		return cleanError{err}
	}
	if o.asJSON {
		return a.printJSON(setJSON{ID: id, OptionsResult: res})
	}
	if o.option == "" {
		printOptions(a, id, res.Options)
		return nil
	}
	if opt, err := proto.FindOption(res.Options, o.option); err == nil {
		fmt.Fprintf(a.stdout, "%s: %s\n", opt.Name, opt.CurrentName())
	}
	return nil
}

// printOptions lists the options, each with its values, the current one
// marked "*".
func printOptions(a *app, id string, opts []proto.ChatOption) {
	if len(opts) == 0 {
		fmt.Fprintf(a.stdout, "chat %s: its agent offers no modes or options\n", id)
		return
	}
	for _, opt := range opts {
		fmt.Fprintf(a.stdout, "%s (%s): %s\n", opt.Name, opt.ID, opt.CurrentName())
		w := 0
		for _, v := range opt.Values {
			w = max(w, len(v.ID))
		}
		for _, v := range opt.Values {
			mark := " "
			if v.ID == opt.Current {
				mark = "*"
			}
			line := fmt.Sprintf("  %s %-*s  %s", mark, w, v.ID, v.Name)
			if v.Group != "" {
				line += " [" + v.Group + "]"
			}
			if v.Description != "" {
				line += " · " + v.Description
			}
			fmt.Fprintln(a.stdout, strings.TrimRight(line, " "))
		}
	}
}

// reasonError shows a refusal by its reason alone (an unknown option or
// value, and the choices): errors.As still finds the refusal, which exits
// 2.
type reasonError struct{ r *client.Refusal }

func (e reasonError) Error() string { return e.r.Reason }

func (e reasonError) Unwrap() error { return e.r }
