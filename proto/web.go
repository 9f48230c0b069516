package proto

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
