package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// cookiePrefix begins the session cookie a page gets from POST /session;
// the listener's port ends it. Browsers keep cookies by host, whatever the
// port: two listeners on one machine (two agent homes) would otherwise
// overwrite each other's, and sign each other's pages out.
const cookiePrefix = "acpmux_session_"

// cookieName is this listener's session cookie.
func (l *Listener) cookieName() string { return cookiePrefix + l.port }

// sessionLabel sets the session MAC apart from any other use of the token
// as a key.
const sessionLabel = "acpmux-web-session\x00"

// maxSessionBody bounds POST /session's body: {"token": "…"} is 80 bytes.
const maxSessionBody = 4 << 10

const nonceBytes = 16

// b64 is base64url without padding, strict: a value has one spelling, so
// the checker accepts only the very strings it made.
var b64 = base64.RawURLEncoding.Strict()

// newSession makes a session value for token: a random nonce and its MAC.
// It holds no state, so it survives a server restart while the token
// stays, and a new token ends every session made with the old one.
func newSession(token string) string {
	nonce := make([]byte, nonceBytes)
	rand.Read(nonce)
	return sessionFor(token, nonce)
}

func sessionFor(token string, nonce []byte) string {
	return b64.EncodeToString(nonce) + "." + b64.EncodeToString(sessionMAC(token, nonce))
}

func sessionMAC(token string, nonce []byte) []byte {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(sessionLabel))
	m.Write(nonce)
	return m.Sum(nil)
}

// validSession reports whether value is a session made with token. The MAC
// is compared in constant time.
func validSession(token, value string) bool {
	if len(value) > 128 || strings.IndexFunc(value, notSessionRune) >= 0 {
		return false
	}
	n, mac, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	nonce, err := b64.DecodeString(n)
	if err != nil || len(nonce) != nonceBytes {
		return false
	}
	got, err := b64.DecodeString(mac)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	return hmac.Equal(got, sessionMAC(token, nonce))
}

// notSessionRune reports a character no session value has: outside
// base64url and the dot. The base64 decoder skips '\r' and '\n', so
// without this check a value with line breaks in it would pass for the
// one without (found by FuzzCookie).
func notSessionRune(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// sameToken compares a token a client sent with ours in constant time.
func sameToken(token, sent string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(sent)) == 1
}

// startSession answers POST /session {"token": "…"}: the right token gets
// the session cookie, for the page's WebSocket to carry.
func (l *Listener) startSession(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Token string `json:"token"`
	}
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSessionBody)).Decode(&body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		l.refuse(w, r, http.StatusRequestEntityTooLarge, "the body is over 4 KiB")
		return
	case err != nil:
		l.refuse(w, r, http.StatusBadRequest, `want a JSON body {"token": "..."}`)
		return
	case !sameToken(l.token, body.Token):
		l.refuse(w, r, http.StatusUnauthorized, "wrong token")
		return
	}
	http.SetCookie(w, l.cookie(newSession(l.token), 0))
	w.WriteHeader(http.StatusNoContent)
}

// endSession answers DELETE /session: the browser forgets the cookie.
func (l *Listener) endSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, l.cookie("", -1))
	w.WriteHeader(http.StatusNoContent)
}

// cookie is the session cookie: for this browser session only (no
// Max-Age), out of the page's scripts' reach, never sent by another
// site's request, and only over TLS when the listener speaks it.
func (l *Listener) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: l.cookieName(), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: l.tls,
	}
}
