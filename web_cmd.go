package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// webCallTimeout bounds the server's answer to MethodWeb (binding a port
// and writing the token file).
const webCallTimeout = 30 * time.Second

// cmdWeb is `acpmux-tui web [--listen ADDR] [--new-token] [--json]`: the
// server (started in the background when none runs) opens its web
// listener, and the page's address is printed with the token in its
// fragment, which a browser never sends to a server.
func cmdWeb(a *app, args []string) error {
	fs := newFlags(a, "web")
	listen := fs.String("listen", "", "the address to listen on (default: [web] listen in the config, else 127.0.0.1:0, a free port)")
	newToken := fs.Bool("new-token", false, "make a fresh token: every page signed in with the old one is signed out")
	asJSON := fs.Bool("json", false, "print {url, listen, tokenFile} as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui web [--listen ADDR] [--new-token] [--json]")
	}
	return a.web(proto.WebParams{Listen: *listen, NewToken: *newToken}, *asJSON)
}

// webJSON is what web --json prints.
type webJSON struct {
	URL       string   `json:"url"`
	Listen    string   `json:"listen"`
	TokenFile string   `json:"tokenFile"`
	Roots     []string `json:"roots"`
}

func (a *app) web(p proto.WebParams, asJSON bool) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find acpmux-tui's own binary to start the server: %w", err)
	}
	paths, err := config.ResolvePaths(a.getenv)
	if err != nil {
		return err
	}
	conn, err := client.EnsureServer(paths.Home, exe)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), webCallTimeout)
	defer cancel()
	var r proto.WebResult
	if err := conn.Call(ctx, proto.MethodWeb, p, &r); err != nil {
		return client.ServerError(err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(a.stderr, "acpmux-tui: warning:", w)
	}
	// The token is read here, from the file only this user can read: it
	// never travels on a command line or in the server's answer.
	b, err := os.ReadFile(r.TokenFile)
	if err != nil {
		return fmt.Errorf("read the web token: %w", err)
	}
	url := r.URL + "#token=" + strings.TrimSpace(string(b))
	if asJSON {
		return a.printJSON(webJSON{URL: url, Listen: r.Listen, TokenFile: r.TokenFile, Roots: r.Roots})
	}
	fmt.Fprintln(a.stdout, url)
	if len(r.Roots) == 0 {
		fmt.Fprintln(a.stderr, "acpmux-tui: no [web] roots are set: the page can use the chats that exist but name no folder (set roots in the [web] table of the config)")
	}
	return nil
}
