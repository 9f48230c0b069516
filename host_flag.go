package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is --host NAME: the command runs against that host's server
// over ssh (client.DialHost), never against this machine's store. Every
// folder is the host's: sent as given, absolute, and validated by that
// host's server with the shared validator. The chat commands make the
// TUI's calls over the link (chat_target.go); ls, show, attach, prompt and
// kill-server read and stream what the host sends.

// hostFlag gives a command --host NAME: the command then runs against
// that host's server (onHost) once its flags are parsed, as they are for
// this machine.
func hostFlag(fs *flag.FlagSet) *string {
	var h hostName
	fs.Var(&h, "host", "run it against that host's server over ssh (see acpmux-tui hosts)")
	return (*string)(&h)
}

// hostName is --host's value: a name, never empty (an empty one would
// quietly run the command here).
type hostName string

func (h *hostName) String() string { return string(*h) }
func (h *hostName) Set(v string) error {
	if v == "" {
		return errors.New("empty host name")
	}
	*h = hostName(v)
	return nil
}

// hostLink is one command's connection to a host's server.
type hostLink struct {
	name string
	host client.Host
	conn *client.Conn
}

// onHost dials host name's server and runs one command's work on it.
func (a *app) onHost(name string, do func(on *hostLink) error) error {
	if err := a.open(); err != nil {
		return err
	}
	hc, ok := a.cfg.Host[name]
	if !ok {
		known := strings.Join(a.cfg.HostNames(), ", ")
		if known == "" {
			known = "none configured"
		}
		return usagef("--host %q: no [host.%s] in the config (hosts: %s)", name, name, known)
	}
	h := client.Host{Name: name, HostConfig: hc}
	conn, err := client.DialHost(context.Background(), h)
	if err != nil {
		return err
	}
	defer conn.Close()
	return do(&hostLink{name: name, host: h, conn: conn})
}

// onHostChat runs do on host name's server, for the chat ref names there
// (found as resolve finds it).
func (a *app) onHostChat(name, ref string, do func(l *hostLink, id string) error) error {
	return a.onHost(name, func(l *hostLink) error {
		c, err := l.resolve(ref)
		if err != nil {
			return err
		}
		return do(l, c.ID)
	})
}

// call makes a call on the host, its errors as a Remote gives them (a
// folder refusal exits 2); a link that went down says so.
func (l *hostLink) call(method string, params, result any) error {
	err := l.conn.Call(context.Background(), method, params, result)
	if err == nil {
		return nil
	}
	return l.linkErr(client.ServerError(err))
}

// linkErr is err, or, when the link went down under the call and the
// host did not answer, that the link is down and why.
func (l *hostLink) linkErr(err error) error {
	if err == nil {
		return nil
	}
	select {
	case <-l.conn.Done():
		var rpc *client.RPCError
		if !errors.As(err, &rpc) {
			return client.LinkError(l.conn)
		}
	default:
	}
	return err
}

// chat is one of the host's chats, as its server answers it.
func (l *hostLink) chat(id string) (proto.ChatJSON, error) {
	var c proto.ChatJSON
	if err := l.call(proto.MethodChat, proto.IDParams{ID: id}, &c); err != nil {
		return c, err
	}
	return l.found(c)
}

// resolve finds a chat on the host by id, exact name or unique prefix,
// as an ID argument is found here.
func (l *hostLink) resolve(ref string) (proto.ChatJSON, error) {
	// An id is looked up alone (_acpmux/chat): an exact id wins over
	// names and prefixes anyway, and the host's whole list is read only
	// for those. Whatever the host answers instead (no such chat, a chat
	// file it cannot read) is left to the list, which tells it as before.
	if sessions.ValidID(ref) {
		var c proto.ChatJSON
		err := l.call(proto.MethodChat, proto.IDParams{ID: ref}, &c)
		var rpc *client.RPCError
		switch {
		case err == nil:
			return l.found(c)
		case !errors.As(err, &rpc):
			return proto.ChatJSON{}, err
		}
	}
	var list proto.ListResult
	if err := l.call(proto.MethodList, struct{}{}, &list); err != nil {
		return proto.ChatJSON{}, err
	}
	var byID, byName, byPrefix []proto.ChatJSON
	for _, c := range list.Chats {
		c = client.ServerChat(c)
		switch {
		case c.ID == ref:
			byID = append(byID, c)
		case c.Name == ref:
			byName = append(byName, c)
		case ref != "" && (strings.HasPrefix(c.ID, ref) || strings.HasPrefix(c.Name, ref)):
			byPrefix = append(byPrefix, c)
		}
	}
	for _, set := range [][]proto.ChatJSON{byID, byName, byPrefix} {
		switch len(set) {
		case 0:
		case 1:
			return l.found(set[0])
		default:
			ids := make([]string, len(set))
			for i, c := range set {
				ids[i] = c.ID
			}
			return proto.ChatJSON{}, fmt.Errorf("find chat %q on host %s: it matches %s", ref, l.name, strings.Join(ids, ", "))
		}
	}
	return proto.ChatJSON{}, fmt.Errorf("find chat %q on host %s: %w", ref, l.name, sessions.ErrNotFound)
}

// found is the chat resolve found, refused when the host sent an id that
// is not a chat id (client.ServerChat): nothing is done to it.
func (l *hostLink) found(c proto.ChatJSON) (proto.ChatJSON, error) {
	if !sessions.ValidID(c.ID) {
		return proto.ChatJSON{}, fmt.Errorf("chat on host %s: %s", l.name, client.ServerChat(c).Broken)
	}
	return c, nil
}

// list prints the host's chats, as ls does here.
func (l *hostLink) list(a *app, asJSON bool) error {
	var list proto.ListResult
	if err := l.call(proto.MethodList, struct{}{}, &list); err != nil {
		return err
	}
	if list.Chats == nil {
		list.Chats = []proto.ChatJSON{}
	}
	for i, c := range list.Chats {
		list.Chats[i] = client.ServerChat(c)
	}
	return a.printViews(len(list.Chats), func(i int) proto.ChatJSON { return list.Chats[i] }, asJSON)
}

// show prints one of the host's chats; a broken file is an error, as here.
func (l *hostLink) show(a *app, ref string, asJSON bool) error {
	c, err := l.resolve(ref)
	if err != nil {
		return err
	}
	if err := a.printView(c, l.name, nil, asJSON); err != nil {
		return err
	}
	if c.Broken != "" {
		return fmt.Errorf("chat %s on host %s: %s (the file is left as it is: fix or move it there by hand)", c.ID, l.name, c.Broken)
	}
	return nil
}

// attach runs one of the host's chats in this terminal; a link that drops
// is dialed again: the chat runs on over there.
func (l *hostLink) attach(a *app, ref string) error {
	c, err := l.resolve(ref)
	if err != nil {
		return err
	}
	notice := func(line string) { fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s]\r\n", line) }
	// In a terminal, ssh is handed it and runs attach over there: no
	// process here is on a key's way, as with ssh -t HOST tmux attach.
	// The far attach says how it ended.
	how, err := client.AttachOverSSH(l.conn, l.host, c.ID, os.Stdin, os.Stdout, notice)
	if errors.Is(err, client.ErrNotLent) {
		dial := func(ctx context.Context) (*client.Conn, error) { return client.DialHost(ctx, l.host) }
		how, err = client.AttachFollow(l.conn, dial, c.ID, os.Stdin, os.Stdout, notice)
	}
	var far *client.FarExitError
	if errors.As(err, &far) && far.Code == exitUsage {
		return usagef("%v", err)
	}
	if se, ok := err.(*client.SignalError); ok {
		fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s on %s: %v]\r\n", c.ID, l.name, se.Signal)
		endBySignal(se.Signal)
		return err
	}
	if err != nil {
		return client.ServerError(err)
	}
	if how != "" {
		fmt.Fprintf(a.stderr, "\r\n[acpmux-tui: %s on %s %s]\r\n", c.ID, l.name, how)
	}
	return nil
}

// prompt runs one turn of one of the host's ACP chats.
func (l *hostLink) prompt(a *app, ref, text string, links []proto.Link) error {
	c, err := l.resolve(ref)
	if err != nil {
		return err
	}
	return a.promptOn(l.conn, c.ID, text, links)
}

// kill stops the host's server, which stops its harnesses, then ends, and
// the link with it.
func (l *hostLink) kill() error {
	var k proto.KillResult
	if err := l.call(proto.MethodKill, struct{}{}, &k); err != nil {
		return fmt.Errorf("kill-server on host %s: %w", l.name, err)
	}
	<-l.conn.Done()
	return nil
}
