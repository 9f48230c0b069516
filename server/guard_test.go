package server

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestMalformedLinesKeepTheConnection: a parse error, an invalid request
// and an unknown method are answered, and the same connection then serves
// a good call; a notification gets no answer.
func TestMalformedLinesKeepTheConnection(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	for _, tc := range []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, proto.CodeParseError, "null"},
		{`not json at all`, proto.CodeParseError, "null"},
		{"\xff\xfe", proto.CodeParseError, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}]`, proto.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"1.0","id":2,"method":"_acpmux/hello"}`, proto.CodeInvalidRequest, "2"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"_acpmux/hello"}`, proto.CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":"s","method":5}`, proto.CodeInvalidRequest, `"s"`},
		{`{"jsonrpc":"2.0","id":3,"method":"_acpmux/nosuch"}`, proto.CodeMethodNotFound, "3"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{}}`, proto.CodeMethodNotFound, "4"},
	} {
		w.send(tc.line)
		rep := w.read()
		if rep.Error == nil || rep.Error.Code != tc.code || string(rep.ID) != tc.id {
			t.Errorf("%q: answered id %s, %+v; want id %s, code %d", tc.line, rep.ID, rep.Error, tc.id, tc.code)
		}
	}
	// A notification (no id) and a blank line get no answer: the next line
	// read is the answer to the call after them.
	w.send(`{"jsonrpc":"2.0","method":"_acpmux/hello"}`)
	w.send(`{"jsonrpc":"2.0","method":"_acpmux/nosuch"}`)
	w.send("   ")
	var h proto.HelloResult
	w.ok(proto.MethodHello, nil, &h)
	if h.Pid != os.Getpid() {
		t.Fatalf("hello after malformed lines: %+v", h)
	}
}

// TestLineOverTheLimitClosesThatConnectionOnly: a line of MaxLine bytes is
// read and answered; one byte more closes that connection, and another
// connection keeps working.
func TestLineOverTheLimitClosesThatConnectionOnly(t *testing.T) {
	r := newRig(t, rigOpt{})
	other := r.dial()
	other.ok(proto.MethodHello, nil, nil)

	// Exactly MaxLine: a hello padded with spaces.
	w := r.dial()
	call := `{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}`
	w.send(call + strings.Repeat(" ", proto.MaxLine-len(call)))
	if rep := w.read(); rep.Error != nil || string(rep.ID) != "1" {
		t.Fatalf("a line of exactly %d bytes: %+v", proto.MaxLine, rep.Error)
	}

	big := r.dial()
	wrote := make(chan error, 1)
	go func() {
		_, err := big.nc.Write(append(bytes.Repeat([]byte("a"), proto.MaxLine+1), '\n'))
		wrote <- err
	}()
	if err := big.closedByServer(); err != nil {
		t.Fatal(err)
	}
	<-wrote // done, or failed as the server closed it

	other.ok(proto.MethodHello, nil, nil)
	w.ok(proto.MethodHello, nil, nil)
	waitFor(t, "the closed connection to be forgotten", func() bool { return r.srv.stats().clients == 2 })
}

// TestNonReaderIsDroppedOthersKeepUp: a client that sends calls and never
// reads its answers, while a harness floods its pty, is dropped; another
// client calling list all along gets every answer.
func TestNonReaderIsDroppedOthersKeepUp(t *testing.T) {
	flood := filepath.Join(t.TempDir(), "flood.txt")
	var b bytes.Buffer
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d of the flood, ü ✓\x1b[0m\r\n", i%8, i)
	}
	if err := os.WriteFile(flood, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, rigOpt{flood: flood, opt: func(o *Options) { o.QueueLen = 8 }})
	keeper := r.dial()
	// Enough chats that each list answer is a good size.
	for i := range 40 {
		keeper.ok(proto.MethodNew, proto.NewParams{Name: fmt.Sprintf("chat %d %s", i, strings.Repeat("x", 200))}, nil)
	}
	var flooder proto.ChatJSON
	keeper.ok(proto.MethodNew, proto.NewParams{Harness: "flood"}, &flooder)
	keeper.ok(proto.MethodStart, proto.ChatParams{ID: flooder.ID}, nil)

	sleeper := r.dial()
	stopSending := make(chan struct{})
	sent := make(chan int, 1)
	go func() {
		n := 0
		defer func() { sent <- n }()
		for {
			select {
			case <-stopSending:
				return
			default:
			}
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_acpmux/list"}`+"\n", n)
			sleeper.nc.SetWriteDeadline(time.Now().Add(hangDeadline))
			if _, err := sleeper.nc.Write([]byte(line)); err != nil {
				return // dropped
			}
			n++
		}
	}()
	// The keeper is answered all along.
	for range 200 {
		var l proto.ListResult
		keeper.ok(proto.MethodList, nil, &l)
		if len(l.Chats) != 41 {
			t.Fatalf("list: %d chats", len(l.Chats))
		}
	}
	// The sleeper is dropped: its socket ends after what was written.
	if err := sleeper.closedByServer(); err != nil {
		t.Fatal(err)
	}
	close(stopSending)
	n := <-sent
	t.Logf("the non-reader sent %d calls before it was dropped", n)
	keeper.ok(proto.MethodHello, nil, nil)
	var st proto.ChatJSON
	keeper.ok(proto.MethodStop, proto.ChatParams{ID: flooder.ID}, &st)
	if st.Status != "stopped" {
		t.Fatalf("flood chat after stop: %q", st.Status)
	}
}

// TestManyClientsLeaveNothingBehind: 100 clients connect and leave, some
// after a call, some before, some mid-line; the server ends with the
// descriptors and goroutines it had.
func TestManyClientsLeaveNothingBehind(t *testing.T) {
	r := newRig(t, rigOpt{})
	cycle := func(i int) {
		w := dialWire(t, r.home)
		switch i % 3 {
		case 0:
			w.ok(proto.MethodHello, nil, nil)
		case 1:
			w.send(`{"jsonrpc":"2.0","id":1,"method":"_acpmux/list"}`)
		case 2:
			w.nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"meth`))
		}
		w.nc.Close()
	}
	settled := func(fds, goroutines int) func() bool {
		return func() bool {
			return r.srv.stats().clients == 0 && fdCount(t) <= fds && runtime.NumGoroutine() <= goroutines
		}
	}
	for i := range 10 { // warm up whatever is made once
		cycle(i)
	}
	waitFor(t, "no client left", func() bool { return r.srv.stats().clients == 0 })
	fds, goroutines := fdCount(t), runtime.NumGoroutine()
	for i := range 100 {
		cycle(i)
	}
	waitFor(t, fmt.Sprintf("back to %d descriptors and %d goroutines", fds, goroutines), settled(fds, goroutines))
	if got := r.srv.stats().accepted; got != 110 {
		t.Fatalf("%d connections accepted, want 110", got)
	}
	// And all at once.
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() { defer wg.Done(); cycle(i) }()
	}
	wg.Wait()
	waitFor(t, fmt.Sprintf("back to %d descriptors and %d goroutines after 100 at once", fds, goroutines), settled(fds, goroutines))
	t.Logf("steady state: %d descriptors, %d goroutines", fds, goroutines)
}

// TestPeerOfAnotherUserIsClosedUnread: the guard compares the peer's uid
// (SO_PEERCRED) with the server's; here the server expects another uid, so
// this process is the stranger: its connection is closed and no call is
// answered.
func TestPeerOfAnotherUserIsClosedUnread(t *testing.T) {
	r := newRig(t, rigOpt{server: func(s *Server) { s.uid = os.Getuid() + 1 }})
	w := r.dial()
	// The write itself may fail: the server may have closed the socket.
	w.nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}` + "\n"))
	w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	line, err := w.r.ReadBytes('\n')
	if err == nil || len(line) > 0 {
		t.Fatalf("a stranger got %q (%v)", line, err)
	}
	if st := r.srv.stats(); st.accepted != 0 || st.clients != 0 {
		t.Fatalf("the stranger was let in: %+v", st)
	}
}

// TestSocketAndHomeModes: the agent home is tightened to 0700 and the
// socket is 0600.
func TestSocketAndHomeModes(t *testing.T) {
	r := newRig(t, rigOpt{})
	for path, want := range map[string]os.FileMode{r.home: 0o700, proto.SocketPath(r.home): 0o600, filepath.Join(r.home, proto.LockName): 0o600} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// TestSecondServerRefused: while a server runs, another takes no lock and
// names the first one's pid; the running server keeps its socket.
func TestSecondServerRefused(t *testing.T) {
	r := newRig(t, rigOpt{})
	_, err := TakeLock(r.home)
	var running *AlreadyRunningError
	if !errors.As(err, &running) || running.Pid != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	want := fmt.Sprintf("a server is already running for %s (pid %d)", r.home, os.Getpid())
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	r.dial().ok(proto.MethodHello, nil, nil)
}

// TestStaleSocketIsReplaced: a socket left by a killed server is replaced
// by the next one (which holds the lock); anything else at that name stops
// the start.
func TestStaleSocketIsReplaced(t *testing.T) {
	home := t.TempDir()
	lock, err := TakeLock(home)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	ln, err := listen(home, proto.SocketName)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // left in place: SetUnlinkOnClose(false)
	if _, err := os.Lstat(proto.SocketPath(home)); err != nil {
		t.Fatal(err)
	}
	ln, err = listen(home, proto.SocketName)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	ln.Close()
	os.Remove(proto.SocketPath(home))
	if err := os.WriteFile(proto.SocketPath(home), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listen(home, proto.SocketName); err == nil {
		t.Fatal("a regular file at the socket's name was replaced")
	}
	if b, _ := os.ReadFile(proto.SocketPath(home)); string(b) != "mine" {
		t.Fatal("the file was changed")
	}
}

// TestLongHomePath: a home whose socket path passes sun_path's 108 bytes
// still listens and answers.
func TestLongHomePath(t *testing.T) {
	home := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := TakeLock(home)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	ln, err := listen(home, proto.SocketName)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr, release, err := proto.ShortAddr(proto.SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(addr) > proto.MaxSunPath {
		t.Fatalf("address %q too long", addr)
	}
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("hi\n"))
			c.Close()
		}
	}()
	w := dialWireAddr(t, addr)
	w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	if line, err := w.r.ReadString('\n'); err != nil || line != "hi\n" {
		t.Fatalf("read %q %v", line, err)
	}
}
