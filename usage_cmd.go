package main

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is `acpmux-tui usage`: each chat's context and cost as its
// agent (or its harness's session log) last said them, and the costs
// summed per harness, per host and in all. Costs in different currencies
// are never added: each sum is a list, one amount per currency.

// usageChat is one chat of `usage --json`.
type usageChat struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Harness string      `json:"harness"`
	Host    string      `json:"host"` // "" for this machine
	Usage   proto.Usage `json:"usage"`
}

// usageSum is the cost of some chats: how many have a usage, and their
// costs added, one amount per currency (by code).
type usageSum struct {
	Chats int          `json:"chats"`
	Cost  []proto.Cost `json:"cost"`
}

// usageHost is one host's sum; Error says why the host was not counted.
type usageHost struct {
	Host string `json:"host"` // "" for this machine
	usageSum
	Error string `json:"error,omitempty"`
}

// usageHarness is one harness's sum, over every host.
type usageHarness struct {
	Harness string `json:"harness"`
	usageSum
}

// usageReport is what `usage --json` prints.
type usageReport struct {
	Chats     []usageChat    `json:"chats"`
	Harnesses []usageHarness `json:"harnesses"`
	Hosts     []usageHost    `json:"hosts"`
	Total     usageSum       `json:"total"`
}

// add counts one chat's usage into s.
func (s *usageSum) add(u proto.Usage) {
	s.Chats++
	if u.Cost == nil {
		return
	}
	i := slices.IndexFunc(s.Cost, func(c proto.Cost) bool { return c.Currency == u.Cost.Currency })
	if i < 0 {
		s.Cost = append(s.Cost, proto.Cost{Currency: u.Cost.Currency})
		i = len(s.Cost) - 1
	}
	s.Cost[i].Amount += u.Cost.Amount
	slices.SortFunc(s.Cost, func(a, b proto.Cost) int { return strings.Compare(a.Currency, b.Currency) })
}

// String is the sum's costs as one line: "1.20 EUR + 0.42 USD", or "no
// cost said".
func (s usageSum) String() string {
	if len(s.Cost) == 0 {
		return "no cost said"
	}
	parts := make([]string, len(s.Cost))
	for i, c := range s.Cost {
		parts[i] = c.String()
	}
	return strings.Join(parts, " + ")
}

func cmdUsage(a *app, args []string) error {
	fs := newFlags(a, "usage")
	asJSON := fs.Bool("json", false, "print the chats and the sums as JSON")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui usage [--host NAME] [--json]")
	}
	if err := a.open(); err != nil {
		return err
	}
	var hosts []string
	switch {
	case *host != "":
		if _, ok := a.cfg.Host[*host]; !ok {
			return usagef("--host %q: no [host.%s] in the config (hosts: %s)", *host, *host, strings.Join(a.cfg.HostNames(), ", "))
		}
		hosts = []string{*host}
	default:
		hosts = append([]string{""}, a.cfg.HostNames()...)
	}
	r := a.usageOf(hosts)
	if *asJSON {
		return a.printJSON(r)
	}
	return a.printUsage(r)
}

// usageOf gathers the chats of each host ("" is this machine), the hosts
// asked at once, and sums them.
func (a *app) usageOf(hosts []string) usageReport {
	chats := make([][]proto.ChatJSON, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chats[i], errs[i] = a.chatsOn(h)
		}()
	}
	wg.Wait()
	r := usageReport{Chats: []usageChat{}, Harnesses: []usageHarness{}, Hosts: make([]usageHost, len(hosts))}
	for i, h := range hosts {
		r.Hosts[i] = usageHost{Host: h}
		if errs[i] != nil {
			r.Hosts[i].Error = plaintext.Line(errs[i].Error())
			continue
		}
		for _, c := range chats[i] {
			// Another host's numbers are held to the bounds of any usage
			// that enters; an absurd one counts as none.
			if c.Broken != "" || c.Usage == nil || c.Usage.Check() != nil {
				continue
			}
			name := (&sessions.Meta{ID: c.ID, Name: c.Name, Title: c.Title, Harness: c.Harness, Cwd: c.Cwd}).Label()
			hn := plaintext.Line(c.Harness)
			r.Chats = append(r.Chats, usageChat{ID: c.ID, Name: plaintext.Line(name), Harness: hn, Host: h, Usage: *c.Usage})
			r.Hosts[i].add(*c.Usage)
			r.Total.add(*c.Usage)
			j := slices.IndexFunc(r.Harnesses, func(s usageHarness) bool { return s.Harness == hn })
			if j < 0 {
				r.Harnesses = append(r.Harnesses, usageHarness{Harness: hn})
				j = len(r.Harnesses) - 1
			}
			r.Harnesses[j].add(*c.Usage)
		}
	}
	slices.SortFunc(r.Harnesses, func(x, y usageHarness) int { return strings.Compare(x.Harness, y.Harness) })
	return r
}

// chatsOn is every chat of host ("" is this machine), with its usage: the
// running server's, else the one its file keeps.
func (a *app) chatsOn(host string) ([]proto.ChatJSON, error) {
	if host == "" {
		entries, err := a.listEntries()
		if err != nil {
			return nil, err
		}
		out := make([]proto.ChatJSON, len(entries))
		for i, e := range entries {
			out[i] = a.view(e)
		}
		return out, nil
	}
	h := client.Host{Name: host, HostConfig: a.cfg.Host[host]}
	c, err := client.DialHost(context.Background(), h, probeOptions...)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), client.HostTimeout)
	defer cancel()
	var list proto.ListResult
	if err := c.Call(ctx, proto.MethodList, struct{}{}, &list); err != nil {
		return nil, fmt.Errorf("host %s: %w", host, err)
	}
	for i, chat := range list.Chats {
		list.Chats[i] = client.ServerChat(chat)
	}
	return list.Chats, nil
}

// printUsage prints the report as tables: the chats with a usage, then
// the sums.
func (a *app) printUsage(r usageReport) error {
	out := bufio.NewWriter(a.stdout)
	remote := slices.ContainsFunc(r.Hosts, func(h usageHost) bool { return h.Host != "" })
	if len(r.Chats) == 0 {
		fmt.Fprintln(out, "no chat has a usage yet: an ACP agent says it as it works, and a Claude Code or Codex chat's session log has it after a turn")
	} else {
		t := newCellTable(6, len(r.Chats)+1)
		t.add("ID", "NAME", "HARNESS", "HOST", "CONTEXT", "COST")
		for _, c := range r.Chats {
			ctx := "-"
			if c.Usage.Size > 0 {
				ctx = proto.Tokens(c.Usage.Used) + " / " + proto.Tokens(c.Usage.Size) + " (" + strconv.Itoa(c.Usage.Percent()) + " %)"
			}
			cost := "-"
			if c.Usage.Cost != nil {
				cost = c.Usage.Cost.String()
			}
			host := c.Host
			if host == "" {
				host = "-"
			}
			t.add(c.ID, lsName(c.Name), c.Harness, host, ctx, cost)
		}
		if err := t.writeTo(out); err != nil {
			return err
		}
		fmt.Fprintln(out)
		fmt.Fprintln(out, "by harness:")
		for _, h := range r.Harnesses {
			fmt.Fprintf(out, "  %-14s %s (%s)\n", h.Harness, h.usageSum, chatCount(h.Chats))
		}
	}
	if remote {
		fmt.Fprintln(out, "by host:")
		for _, h := range r.Hosts {
			name := h.Host
			if name == "" {
				name = "this machine"
			}
			if h.Error != "" {
				fmt.Fprintf(out, "  %-14s not counted: %s\n", name, h.Error)
				continue
			}
			fmt.Fprintf(out, "  %-14s %s (%s)\n", name, h.usageSum, chatCount(h.Chats))
		}
	}
	fmt.Fprintf(out, "in all: %s (%s)\n", r.Total, chatCount(r.Total.Chats))
	return out.Flush()
}

// chatCount says n chats: "1 chat", "3 chats".
func chatCount(n int) string {
	if n == 1 {
		return "1 chat"
	}
	return strconv.Itoa(n) + " chats"
}
