package web

import (
	"bytes"
	"embed"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strings"

	"github.com/coder/websocket"
)

// The routes, behind the guard (guard.go): the page's files, /session and
// /acp.

//go:embed assets
var embedded embed.FS

// ownAssets is the page this package carries.
func ownAssets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the folder is embedded: it is there
	}
	return sub
}

// pageTypes names the Content-Type of the page's kinds of file here rather
// than through mime's tables, which /etc/mime.types may change.
var pageTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".json":        "application/json",
	".webmanifest": "application/manifest+json",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".woff2":       "font/woff2",
	".txt":         "text/plain; charset=utf-8",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := pageTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// servePage serves the page's files: / is index.html, a folder or a name
// the assets lack is 404.
func (l *Listener) servePage(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	if !fs.ValidPath(name) {
		l.refuse(w, r, http.StatusNotFound, "not found")
		return
	}
	f, err := l.assets.Open(name)
	if err != nil {
		l.refuse(w, r, http.StatusNotFound, "not found")
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		l.refuse(w, r, http.StatusNotFound, "not found")
		return
	}
	content, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			l.refuse(w, r, http.StatusInternalServerError, "could not read the file")
			return
		}
		content = bytes.NewReader(b)
	}
	w.Header().Set("Content-Type", contentType(name))
	w.Header().Set("Cache-Control", "no-cache") // a new binary's page shows at the next load
	http.ServeContent(w, r, name, fi.ModTime(), content)
}

func (l *Listener) serveSession(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		l.endSession(w, r)
		return
	}
	l.startSession(w, r)
}

// connKey keys the accepted connection in a request's context
// (http.Server.ConnContext), for /acp to find the connection it hijacks.
type connKey struct{}

// serveACP upgrades /acp to a WebSocket and hands it to Options.Serve as a
// net.Conn, until Serve returns.
func (l *Listener) serveACP(w http.ResponseWriter, r *http.Request) {
	if !isUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		l.refuse(w, r, http.StatusUpgradeRequired, "/acp speaks WebSocket only")
		return
	}
	raw, _ := r.Context().Value(connKey{}).(net.Conn)
	if raw == nil || !l.enter() {
		l.refuse(w, r, http.StatusServiceUnavailable, "the web listener is closing")
		return
	}
	defer l.serving.Done()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// The guard has checked the Origin exactly already (and a bearer
		// client may send none). Accept's own check would match the
		// Origin's host against the Host with glob patterns, and refuse
		// the extra origins the config allows: it is skipped, not needed.
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		l.log.Debug("web: WebSocket handshake failed", "err", err, "remote", r.RemoteAddr)
		return // Accept answered the request
	}
	// The ReadTimeout deadline of the upgrade request is gone: net/http
	// clears a connection's deadlines when it is hijacked.
	ws.SetReadLimit(int64(l.opt.MaxMessage))
	c := newWSConn(ws, raw, l.log, l.opt.MaxMessage)
	defer func() {
		c.Close()
		<-c.done
		l.remove(c)
	}()
	if !l.add(c) {
		return
	}
	l.opt.Serve(c)
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
