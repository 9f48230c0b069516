package wsclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// echoServer is coder/websocket's server side: it echoes each text
// message, answers "ping-me" with a ping and then "pong-seen" once the
// pong came back, and "big" with a message of 70,000 bytes; /refused is
// a 403.
func echoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/refused" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := context.Background()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			switch string(b) {
			case "ping-me":
				go func() {
					if c.Ping(ctx) == nil {
						c.Write(ctx, websocket.MessageText, []byte("pong-seen"))
					}
				}()
			case "big":
				c.Write(ctx, websocket.MessageText, []byte(strings.Repeat("x", 70000)))
			case "bye":
				c.Close(websocket.StatusPolicyViolation, "asked to")
				return
			default:
				c.Write(ctx, websocket.MessageText, b)
			}
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestClientAgainstCoderWebsocket(t *testing.T) {
	addr := echoServer(t)
	if _, ref, err := Dial(addr, "/refused", nil, addr); err != nil || ref == nil || ref.Status != http.StatusForbidden || ref.Body != "no\n" {
		t.Fatalf("dial /refused: refused %v, err %v; want a 403 with its body", ref, err)
	}
	c, ref, err := Dial(addr, "/", http.Header{"Origin": {"http://" + addr}}, addr)
	if err != nil || ref != nil {
		t.Fatalf("dial: refused %v, err %v", ref, err)
	}
	defer c.Close()
	deadline := func() time.Time { return time.Now().Add(10 * time.Second) }

	if err := c.Send(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Recv(deadline()); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("waiting for the echo of a JSON message: got %q, %v", got, err)
	}
	// A message in two fragments arrives whole at the server.
	if err := c.SendFrame(OpText, []byte("hel"), false); err != nil {
		t.Fatal(err)
	}
	if err := c.SendFrame(OpContinuation, []byte("lo"), true); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Recv(deadline()); err != nil || string(got) != "hello" {
		t.Fatalf("waiting for the echo of a fragmented message: got %q, %v", got, err)
	}
	c.SendText("big")
	if got, err := c.Recv(deadline()); err != nil || len(got) != 70000 {
		t.Fatalf("waiting for a 70,000-byte message: got %d bytes, %v", len(got), err)
	}
	c.SendText("ping-me")
	if got, err := c.Recv(deadline()); err != nil || string(got) != "pong-seen" {
		t.Fatalf("waiting for the server to see the pong Recv sent: got %q, %v", got, err)
	}
	c.SendText("bye")
	_, err = c.Recv(deadline())
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != int(websocket.StatusPolicyViolation) || ce.Reason != "asked to" {
		t.Fatalf("waiting for the server's close frame: got %v", err)
	}
}

func TestDoWritesTheHostGiven(t *testing.T) {
	var host string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		w.Header().Set("X-Method", r.Method)
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	status, h, body, err := Do(addr, http.MethodPost, "/x", nil, "attacker.test:1", "{}")
	if err != nil || status != http.StatusOK || body != "body" || h.Get("X-Method") != http.MethodPost {
		t.Fatalf("Do: %d %v %q %v", status, h, body, err)
	}
	if host != "attacker.test:1" {
		t.Fatalf("the server saw Host %q, want the one given", host)
	}
}
