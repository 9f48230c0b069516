package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the search of every chat (_acpmux/search) as a client makes
// it: on one server (Search, SearchConn), or on the local server and every
// host at once (Router.Search), the answers merged, each chat named by its
// host.

// SearchConn asks the server at the end of c to search its chats. The chats
// it answers are marked as host's ("" for this machine); a chat whose id
// is not a chat id (only a host's server sends one) is dropped.
func SearchConn(ctx context.Context, c *Conn, host string, p proto.SearchParams) (proto.SearchResult, error) {
	var res proto.SearchResult
	if err := c.Call(ctx, proto.MethodSearch, p, &res); err != nil {
		return proto.SearchResult{}, ServerError(err)
	}
	return ofHost(host, res), nil
}

// Search asks this Remote's server to search its chats, marked as host's.
func (r *Remote) Search(host string, p proto.SearchParams) (proto.SearchResult, error) {
	var res proto.SearchResult
	if err := r.call(proto.MethodSearch, p, &res); err != nil {
		return proto.SearchResult{}, err
	}
	return ofHost(host, res), nil
}

// ofHost marks a server's answer as host's, and keeps only the chats with
// a chat id and hits: the hits counted again from what is kept.
func ofHost(host string, res proto.SearchResult) proto.SearchResult {
	kept := res.Chats[:0]
	res.Hits = 0
	for _, c := range res.Chats {
		if !sessions.ValidID(c.ID) || len(c.Hits) == 0 {
			continue
		}
		c.Host = host
		kept = append(kept, c)
		res.Hits += len(c.Hits)
	}
	res.Chats = kept
	if host != "" {
		for i, n := range res.Notes {
			res.Notes[i] = "host " + host + ": " + n
		}
	}
	return res
}

// MergeSearch adds the answer of one server to all: chats after those
// already there, screens searched only if they were on every server.
func MergeSearch(all *proto.SearchResult, res proto.SearchResult, first bool) {
	all.Chats = append(all.Chats, res.Chats...)
	all.Hits += res.Hits
	all.Cut = all.Cut || res.Cut
	all.Screens = res.Screens && (first || all.Screens)
	all.Notes = append(all.Notes, res.Notes...)
}

// Search searches the chats of the local server and of every host that
// answers now, at once, and merges the answers, local first then the
// hosts in order. A host that is down, or fails, is a note; only the local
// server's failure is an error.
func (rt *Router) Search(p proto.SearchParams) (proto.SearchResult, error) {
	hosts := rt.hostList()
	results := make([]proto.SearchResult, len(hosts)+1)
	errs := make([]error, len(hosts)+1)
	var wg sync.WaitGroup
	run := func(i int, host string, r *Remote) {
		defer wg.Done()
		results[i], errs[i] = r.Search(host, p)
	}
	wg.Add(1)
	go run(0, "", rt.local)
	for i, rh := range hosts {
		r, down := rh.remote()
		if r == nil || down != "" {
			if down == "" {
				down = "not connected"
			}
			errs[i+1] = fmt.Errorf("%s", down)
			continue
		}
		wg.Add(1)
		go run(i+1, rh.host.Name, r)
	}
	wg.Wait()
	if errs[0] != nil {
		return proto.SearchResult{}, errs[0]
	}
	all := proto.SearchResult{Chats: []proto.SearchChat{}}
	MergeSearch(&all, results[0], true)
	for i, rh := range hosts {
		if errs[i+1] != nil {
			all.Notes = append(all.Notes, fmt.Sprintf("host %s was not searched: %s", rh.host.Name, OneLine(errs[i+1].Error())))
			continue
		}
		MergeSearch(&all, results[i+1], false)
	}
	return all, nil
}
