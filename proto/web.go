package proto

import "encoding/json"

// MethodWeb (WebParams → WebResult) opens the server's web listener, the
// web door (ACP over a WebSocket on GET /acp, and the page), or answers the
// one already open. The token is never in the answer: it is in TokenFile
// (mode 0600), which only the user can read.
const MethodWeb = "_acpmux/web"

// WebParams are the params of MethodWeb. Listen is the address to bind
// ("" means the config's [web] listen, else 127.0.0.1:0, a free port); an
// address other than the open listener's is refused while one is open.
// NewToken makes a fresh token, which ends every signed-in page.
type WebParams struct {
	Listen   string `json:"listen,omitempty"`
	NewToken bool   `json:"newToken,omitempty"`
}

// WebResult is the open listener: URL is the page's address without the
// token, Listen the bound host:port, TokenFile where the token is, and
// Warnings what the server dropped from [web] (a root that would give a web
// caller all of the user's files, one that does not exist).
type WebResult struct {
	URL       string   `json:"url"`
	Listen    string   `json:"listen"`
	TokenFile string   `json:"tokenFile"`
	Roots     []string `json:"roots"`
	Warnings  []string `json:"warnings,omitempty"`
}

// WebTokenName is the web listener's token file in the agent home (mode
// 0600): the one secret a browser or a network client needs.
const WebTokenName = "web.token"

// MethodWebCaller ({} → {}) says the connection speaks for a web caller:
// from then on this server holds it to the web's rights (its own [web]
// roots, no lasting grants, the methods a web caller may make). It only
// ever narrows what a connection may do. A server relaying a page's calls
// to another host makes it first on its link there.
const MethodWebCaller = "_acpmux/webCaller"

// MethodHost (HostCallParams → the result of Method on that host) makes a
// web caller's call on another host's server, over a link the server opens
// with OpenSSH as the TUI does ([host.NAME]); the host holds the call to
// its own web roots. Only web callers make it, with the methods they may
// make here.
const MethodHost = "_acpmux/host"

// HostCallParams are the params of MethodHost.
type HostCallParams struct {
	Host   string          `json:"host"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// NotifyHost (HostNotice) is a notification of another host's server on a
// web caller's link there: its method and params as that host sent them,
// every string cleaned as it arrived.
const NotifyHost = "_acpmux/hostNotify"

// HostNotice is the params of NotifyHost.
type HostNotice struct {
	Host   string          `json:"host"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// NotifyHostDown ({host, error}) says a web caller's link to a host ended;
// the next MethodHost call to it opens another.
const NotifyHostDown = "_acpmux/hostDown"

// HostDown is the params of NotifyHostDown.
type HostDown struct {
	Host  string `json:"host"`
	Error string `json:"error"`
}
