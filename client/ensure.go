package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// StartTimeout is how long EnsureServer waits for a server it started to
// answer hello.
const StartTimeout = 30 * time.Second

// EnsureServer connects to the agent home's server, starting one in the
// background when none answers: `binary server`, in a session of its own
// (no controlling terminal, so closing this terminal leaves it running),
// with stdin, stdout and stderr on /dev/null (it logs to the agent home's
// log) and this process's environment, ACPMUX_HOME set to home. It returns
// once the server has answered hello. Should another client start a server
// at the same moment, the one that takes the lock serves both.
func EnsureServer(home, binary string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	c, err := dialHello(ctx, home)
	if err == nil || !errors.Is(err, ErrNoServer) {
		return c, err
	}
	backoff := 10 * time.Millisecond
	for {
		why := startServer(ctx, home, binary)
		c, err := dialHello(ctx, home)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, ErrNoServer) {
			return nil, err
		}
		// The server started refused (another one is ending and still holds
		// the lock), or ended at once: try again until the deadline.
		select {
		case <-ctx.Done():
			if why == "" {
				why = err.Error()
			}
			return nil, fmt.Errorf("start the server for %s: %s", home, why)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// DialRunning connects to the agent home's server if one runs and answers
// hello; it never starts one (ErrNoServer when none runs).
func DialRunning(home string) (*Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	return dialHello(ctx, home)
}

// dialHello dials and checks that the server answers hello.
func dialHello(ctx context.Context, home string) (*Conn, error) {
	c, err := Dial(home)
	if err != nil {
		return nil, err
	}
	if _, err := c.Hello(ctx); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the server at %s does not answer: %w", home, err)
		}
		// It closed the connection: it was on its way out.
		return nil, fmt.Errorf("%w for %s (%v)", ErrNoServer, home, err)
	}
	return c, nil
}

// startServer starts a server in the background and waits until it listens
// or gives up. The server tells which on a pipe (--ready-fd): "ready", or
// "error: why" (another server holds the lock, the agent home cannot be
// opened...). It returns "" once the server listens, else why it does not.
func startServer(ctx context.Context, home, binary string) string {
	r, w, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	defer r.Close()
	cmd := exec.Command(binary, "server", "--ready-fd", "3")
	cmd.Env = withEnv(os.Environ(), "ACPMUX_HOME", home)
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Sprintf("run %s server: %v", binary, err)
	}
	// Reap it whenever it ends, so it never lingers as a zombie of this
	// process.
	go cmd.Wait()
	if d, ok := ctx.Deadline(); ok {
		r.SetReadDeadline(d)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == "ready":
		return ""
	case strings.HasPrefix(line, "error: "):
		return strings.TrimPrefix(line, "error: ")
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		return "the server did not start listening in time"
	}
	return "the server ended before it listened (see its log)"
}

// withEnv returns env with name set to value.
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
