package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/acpmux/acpmux-tui/proto"
)

// doorWebBench measures the web door's added latency: the time from
// session/prompt to the first session/update, n prompts through the
// server's WebSocket (`BIN web` opens it on a free loopback port of a
// server of a fresh agent home HOME whose "fake" harness is the fake ACP
// agent FAKE; the client signs in with the token file's bearer token),
// beside n through `BIN acp` on stdio (the stdio door, on the same server)
// and n sent to FAKE driven directly, a prompt of each in turn so that a
// busy moment of the machine falls on all three alike. The three are the
// same SDK client (door.go's acpPeer) on different pipes. It prints p50,
// p99, mean and max of each, and the ratios of the web door's p50 and p99
// to the agent's and the stdio door's.
func doorWebBench(binary, home, fake string, n int) error {
	env, project, err := doorHome(home, fake)
	if err != nil {
		return err
	}
	// The server stays up while its web listener is open: an interrupted
	// bench must not leave it behind.
	defer onSignal(func() { killServer(binary, env) })()
	defer killServer(binary, env)

	viaWeb, err := startWebACP(binary, env, project)
	if err != nil {
		return fmt.Errorf("the web door: %w", err)
	}
	defer viaWeb.close()
	viaDoor, err := startACP(exec.Command(binary, "acp", "--harness", "fake"), env, project)
	if err != nil {
		return fmt.Errorf("the door: %w", err)
	}
	defer viaDoor.close()
	direct, err := startACP(exec.Command(fake), os.Environ(), project)
	if err != nil {
		return fmt.Errorf("the fake agent: %w", err)
	}
	defer direct.close()

	peers := []struct {
		name  string
		p     *acpPeer
		times []time.Duration
	}{{"through the web door", viaWeb, nil}, {"through the door", viaDoor, nil}, {"to the fake agent", direct, nil}}
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("prompt %d", i)
		for j := range peers {
			d, err := peers[j].p.firstUpdate(text)
			if err != nil {
				return fmt.Errorf("prompt %d %s: %w", i, peers[j].name, err)
			}
			peers[j].times = append(peers[j].times, d)
		}
	}
	web, door, agent := peers[0].times, peers[1].times, peers[2].times
	emit("prompts", n)
	emitTimes("web", web)
	emitTimes("door", door)
	emitTimes("direct", agent)
	ratio := func(a, b []time.Duration, q float64) float64 {
		return float64(percentile(a, q)) / float64(percentile(b, q))
	}
	emit("web_direct_p50_ratio", ratio(web, agent, 0.5))
	emit("web_direct_p99_ratio", ratio(web, agent, 0.99))
	emit("web_door_p50_ratio", ratio(web, door, 0.5))
	emit("web_door_p99_ratio", ratio(web, door, 0.99))
	return nil
}

// onSignal runs fn and ends the process when SIGINT, SIGTERM or SIGHUP
// comes before the returned stop is called.
func onSignal(fn func()) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		if s, ok := <-sigs; ok {
			fmt.Fprintln(os.Stderr, "benchtool:", s)
			fn()
			os.Exit(130)
		}
	}()
	return func() { signal.Stop(sigs); close(sigs) }
}

// startWebACP opens the web listener of the server of env (`BIN web
// --json`, which starts the server if none runs), dials its /acp with the
// token as a bearer header and no Origin, as a non-browser client does,
// and runs the bench's ACP client over it: initialize, then session/new in
// cwd, a folder inside the config's web roots.
func startWebACP(binary string, env []string, cwd string) (*acpPeer, error) {
	cmd := exec.Command(binary, "web", "--json", "--listen", "127.0.0.1:0")
	cmd.Env, cmd.Dir = env, cwd
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s web --json: %w\n%s", binary, err, stderr.Bytes())
	}
	var w struct {
		URL       string `json:"url"`
		TokenFile string `json:"tokenFile"`
	}
	if err := json.Unmarshal(out, &w); err != nil {
		return nil, fmt.Errorf("%s web --json printed %q: %w", binary, out, err)
	}
	token, err := os.ReadFile(w.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("read the web token: %w", err)
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return nil, fmt.Errorf("web --json printed the url %q: %w", w.URL, err)
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path, u.Fragment = "/acp", ""
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The context bounds the handshake only: the connection outlives it.
	c, _, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + strings.TrimSpace(string(token))}},
	})
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	c.SetReadLimit(proto.MaxLine)
	lines := &wsLines{c: c}
	p := &acpPeer{stdin: lines}
	if err := p.connect(lines, cwd); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// wsLines carries the SDK's newline-delimited JSON-RPC over a WebSocket
// that carries a message a text frame: each message read is one line (the
// message and '\n'), and each line written goes as one message (without
// its '\n').
type wsLines struct {
	c    *websocket.Conn
	rest []byte // what the SDK has yet to read of the last message, '\n' included

	mu      sync.Mutex
	pending []byte // a line written in part
}

// wsWriteTimeout bounds sending one message: a server that stops reading
// fails the write instead of holding the bench.
const wsWriteTimeout = time.Minute

func (l *wsLines) Read(b []byte) (int, error) {
	if len(l.rest) == 0 {
		typ, msg, err := l.c.Read(context.Background())
		if err != nil {
			if s := websocket.CloseStatus(err); s == websocket.StatusNormalClosure || s == websocket.StatusGoingAway {
				return 0, io.EOF
			}
			return 0, err
		}
		if typ != websocket.MessageText {
			return 0, errors.New("the web door sent a binary message; ACP messages are text")
		}
		l.rest = append(msg, '\n')
	}
	n := copy(b, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

func (l *wsLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, b...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(b), nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
		err := l.c.Write(ctx, websocket.MessageText, l.pending[:i])
		cancel()
		l.pending = l.pending[i+1:]
		if err != nil {
			return 0, err
		}
	}
}

// Close ends the WebSocket with a normal closure.
func (l *wsLines) Close() error {
	return l.c.Close(websocket.StatusNormalClosure, "")
}
