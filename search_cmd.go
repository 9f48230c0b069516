package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/search"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `acpmux-tui search WORDS [--host NAME] [--json]`: every
// chat, on this machine and each configured host, whose name, title,
// folders, conversation or screen holds every word. Each server searches
// its own chats (_acpmux/search), live screens and transcripts where they
// are; with no server here, this machine's chat files and session logs are
// searched by this process, with the same package, and the screens are
// said to be left out. As grep does, it exits 0 with hits, 1 with none and
// 2 on bad usage.

// errNoHits is a search that found nothing: exit status 1, as grep's.
var errNoHits = errors.New("no chat holds every word")

// searchOptions are search's flags.
type searchOptions struct {
	words  []string
	host   string
	asJSON bool
}

func cmdSearch(a *app, args []string) error {
	fs := newFlags(a, "search")
	asJSON := fs.Bool("json", false, "print the hits as one JSON object")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("usage: acpmux-tui search WORDS [--host NAME] [--json]")
	}
	return searchRun(a, searchOptions{words: pos, host: *host, asJSON: *asJSON})
}

// searchRun searches this machine and every host (or the one host named)
// and prints what was found.
func searchRun(a *app, o searchOptions) error {
	q, err := search.Parse(o.words)
	if err != nil {
		return usagef("search: %v", err)
	}
	if err := a.open(); err != nil {
		return err
	}
	p := proto.SearchParams{Words: o.words}
	var res proto.SearchResult
	if o.host != "" {
		err := a.onHost(o.host, func(on *hostLink) error {
			r, err := client.SearchConn(context.Background(), on.conn, on.name, p)
			res = r
			return on.linkErr(err)
		})
		if err != nil {
			return err
		}
	} else {
		if res, err = a.searchHere(q, p); err != nil {
			return err
		}
		a.searchHosts(&res, p)
	}
	if err := a.printSearch(res, o.asJSON); err != nil {
		return err
	}
	if res.Hits == 0 {
		return errNoHits
	}
	return nil
}

// searchHere searches this machine: through its server when one runs
// (screens and transcripts included), else the chat files and logs here.
func (a *app) searchHere(q search.Query, p proto.SearchParams) (proto.SearchResult, error) {
	c, err := client.Dial(a.store.Home())
	if err == nil {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), client.HostTimeout)
		defer cancel()
		res, err := client.SearchConn(ctx, c, "", p)
		var rpc *client.RPCError
		if err == nil || !errors.As(err, &rpc) || rpc.Code != proto.CodeMethodNotFound {
			return res, err
		}
		// An older server: its chats' files are searched here.
	} else if !errors.Is(err, client.ErrNoServer) {
		fmt.Fprintf(a.stderr, "acpmux-tui: %v; searching the chat files alone\n", err)
	}
	entries, err := a.store.ListOnce()
	if err != nil {
		return proto.SearchResult{}, err
	}
	return search.Run(q, search.ChatsOf(entries, a.table, a.getenv), search.Options{}), nil
}

// searchHosts adds the hits of every configured host, asked at once; a
// host that cannot be searched is a note.
func (a *app) searchHosts(res *proto.SearchResult, p proto.SearchParams) {
	names := a.cfg.HostNames()
	results := make([]proto.SearchResult, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), client.HostTimeout)
			defer cancel()
			conn, err := client.DialHost(ctx, client.Host{Name: name, HostConfig: a.cfg.Host[name]})
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close()
			results[i], errs[i] = client.SearchConn(ctx, conn, name, p)
		}()
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("host %s was not searched: %s", name, client.OneLine(errs[i].Error())))
			continue
		}
		client.MergeSearch(res, results[i], false)
	}
}

// printSearch prints the hits: a JSON object, or each chat on a line of
// its own (its id, host:id for a host's) with its hits indented below,
// each saying where it matched. Notes go to stderr.
func (a *app) printSearch(res proto.SearchResult, asJSON bool) error {
	for _, n := range res.Notes {
		fmt.Fprintf(a.stderr, "acpmux-tui: %s\n", plaintext.Line(n))
	}
	if !res.Screens {
		fmt.Fprintln(a.stderr, "acpmux-tui: no server runs here: terminal screens and live ACP transcripts were not searched, only chat files and session logs")
	}
	if asJSON {
		if res.Chats == nil {
			res.Chats = []proto.SearchChat{}
		}
		return a.printJSON(res)
	}
	out := bufio.NewWriter(a.stdout)
	for _, c := range res.Chats {
		// Every string came from a chat file, an agent or a host, and
		// was cleaned where it entered; shown as transcripts are, again.
		fmt.Fprintf(out, "%s  %s", client.QualifyID(c.Host, c.ID), plaintext.Line(c.Name))
		if c.Title != "" && c.Title != c.Name {
			fmt.Fprintf(out, "  (%s)", plaintext.Line(c.Title))
		}
		fmt.Fprintln(out)
		for _, h := range c.Hits {
			fmt.Fprintf(out, "  %-13s %s\n", plaintext.Line(string(h.Where)), plaintext.Line(h.Excerpt))
		}
		if c.More > 0 {
			fmt.Fprintf(out, "  … %d more in this chat\n", c.More)
		}
	}
	if res.Cut {
		fmt.Fprintf(out, "… the search stopped at %d hits: chats after were not searched (more words narrow it)\n", res.Hits)
	}
	return out.Flush()
}
