package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeHarness is the fake pty harness, built once for the package's tests.
var fakeHarness string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.Command {
		os.Exit(sandbox.Main(os.Args[2:])) // a sandboxed chat's wrapper (rigOpt)
	}
	dir, err := os.MkdirTemp("", "acpmux-server-test")
	if err != nil {
		panic(err)
	}
	fakeHarness = filepath.Join(dir, "ptyfake")
	out, err := exec.Command("go", "build", "-o", fakeHarness, "../internal/testharness/ptyfake").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build ptyfake: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// hangDeadline is how long a test waits for something before it calls it a
// hang. It detects hangs; it does not measure speed.
const hangDeadline = 3 * time.Minute

// waitFor waits for cond (see wait.Until).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, cond)
}

// rig is one test's agent home with a server serving it in this process.
// The "shell" harness is the fake in echo mode; "flood" is the fake copying
// a file to its pty; "child" keeps a child in its process group.
type rig struct {
	t       *testing.T
	home    string
	store   *sessions.Store
	recFile string
	srv     *Server
	cancel  context.CancelFunc
	// finished is closed when the server's run has returned, with err.
	finished chan struct{}
	err      error
}

// rigOpt adjusts a rig: its server's options, and its server before it runs.
type rigOpt struct {
	opt    func(*Options)
	server func(*Server)
	flood  string // the file the flood harness copies
	// config adjusts the config; needs has the mux report chats that need
	// their user to the server (Options.Needs).
	config func(*config.Config)
	needs  bool
}

func newRig(t *testing.T, ro rigOpt) *rig {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, home: filepath.Join(root, "agent"), recFile: filepath.Join(root, "starts.jsonl"), finished: make(chan struct{})}
	if r.store, err = sessions.OpenStore(r.home); err != nil {
		t.Fatal(err)
	}
	env := func(mode string) map[string]string {
		return map[string]string{"ACPMUX_FAKE_RECORD": r.recFile, "ACPMUX_FAKE_MODE": mode}
	}
	cfg := config.Defaults()
	cfg.DefaultHarness = "shell"
	cfg.Harness = map[string]config.HarnessConfig{
		"shell": {Command: fakeHarness, Env: env("echo")},
		"child": {Command: fakeHarness, Env: env("child")},
		"flood": {Command: fakeHarness, Env: env("cat:" + ro.flood)},
	}
	if ro.config != nil {
		ro.config(cfg)
	}
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A sandboxed chat's harness starts through this test binary (TestMain).
	mo := mux.Options{Store: r.store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond,
		Wrapper: os.Args[0]}
	var needs *Needs
	if ro.needs {
		needs = NewNeeds()
		mo.NeedsUser = needs.Heard
	}
	m := mux.New(mo)
	ready := make(chan struct{})
	opt := Options{
		Store: r.store, Table: table, Config: cfg, Mux: m, Version: "test-1",
		IdleGrace: time.Hour, Ready: func() { close(ready) }, Needs: needs,
	}
	if ro.opt != nil {
		ro.opt(&opt)
	}
	r.srv = newServer(opt)
	if ro.server != nil {
		ro.server(r.srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.err = r.srv.run(ctx); close(r.finished) }()
	select {
	case <-ready:
	case <-r.finished:
		t.Fatalf("server did not start: %v", r.err)
	case <-time.After(hangDeadline):
		t.Fatal("server did not start listening")
	}
	t.Cleanup(r.stop)
	return r
}

// stop ends the server as SIGTERM would, and waits for it.
func (r *rig) stop() {
	r.cancel()
	r.waitEnd()
}

// waitEnd waits for the server to end by itself.
func (r *rig) waitEnd() {
	r.t.Helper()
	select {
	case <-r.finished:
		if r.err != nil {
			r.t.Errorf("server: %v", r.err)
		}
	case <-time.After(hangDeadline):
		r.t.Fatal("server did not end")
	}
}

func (r *rig) records() []startrecord.Record {
	recs, err := startrecord.Read(r.recFile)
	if err != nil {
		r.t.Fatal(err)
	}
	return recs
}

func (r *rig) waitRecords(n int) []startrecord.Record {
	r.t.Helper()
	var recs []startrecord.Record
	waitFor(r.t, fmt.Sprintf("%d harness starts", n), func() bool {
		// A record being written is a partial last line: read again.
		var err error
		recs, err = startrecord.Read(r.recFile)
		return err == nil && len(recs) >= n
	})
	return recs
}

// folders makes n real folders and returns their canonical paths.
func (r *rig) folders(n int) []string {
	dirs := make([]string, n)
	for i := range dirs {
		d := filepath.Join(r.t.TempDir(), fmt.Sprintf("folder %d ü", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			r.t.Fatal(err)
		}
		dirs[i], _ = filepath.EvalSymlinks(d)
	}
	return dirs
}

// wire is a raw client: it writes lines and reads them back, as any program
// on the socket would.
type wire struct {
	t    testing.TB
	nc   net.Conn
	r    *bufio.Reader
	next int
}

// reply is one line the server wrote.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// folderData is the data of a folder refusal.
type folderData struct {
	Count   int                   `json:"count"`
	Entries []proto.FolderProblem `json:"entries"`
}

func (r *rig) dial() *wire {
	r.t.Helper()
	return dialWire(r.t, r.home)
}

func dialWire(t testing.TB, home string) *wire {
	t.Helper()
	return dialWireAddr(t, proto.SocketPath(home))
}

func dialWireAddr(t testing.TB, addr string) *wire {
	t.Helper()
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &wire{t: t, nc: nc, r: bufio.NewReaderSize(nc, 1<<20)}
}

func (w *wire) send(line string) {
	w.t.Helper()
	w.nc.SetWriteDeadline(time.Now().Add(hangDeadline))
	if _, err := w.nc.Write([]byte(line + "\n")); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// read returns the next line the server wrote.
func (w *wire) read() reply {
	w.t.Helper()
	w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	line, err := w.r.ReadBytes('\n')
	if err != nil {
		w.t.Fatalf("read: %v (after %q)", err, line)
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil {
		w.t.Fatalf("the server wrote a line that is not JSON: %v\n%s", err, line)
	}
	if rep.JSONRPC != "2.0" {
		w.t.Fatalf("answer without jsonrpc 2.0: %s", line)
	}
	return rep
}

// call sends a request and returns its answer.
func (w *wire) call(method string, params any) reply {
	w.t.Helper()
	w.next++
	req := map[string]any{"jsonrpc": "2.0", "id": w.next, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(string(b))
	rep := w.read()
	if string(rep.ID) != fmt.Sprint(w.next) {
		w.t.Fatalf("%s: answer has id %s, want %d", method, rep.ID, w.next)
	}
	return rep
}

// ok calls a method that must succeed and decodes its result.
func (w *wire) ok(method string, params, result any) {
	w.t.Helper()
	rep := w.call(method, params)
	if rep.Error != nil {
		w.t.Fatalf("%s: error %d %s %s", method, rep.Error.Code, rep.Error.Message, rep.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(rep.Result, result); err != nil {
			w.t.Fatalf("%s: %v\n%s", method, err, rep.Result)
		}
	}
}

// fails calls a method that must fail with code, and returns the error.
func (w *wire) fails(code int, method string, params any) *wireError {
	w.t.Helper()
	rep := w.call(method, params)
	if rep.Error == nil {
		w.t.Fatalf("%s: succeeded, want error %d: %s", method, code, rep.Result)
	}
	if rep.Error.Code != code {
		w.t.Fatalf("%s: error %d %q, want %d", method, rep.Error.Code, rep.Error.Message, code)
	}
	return rep.Error
}

// closedByServer reports whether the server has closed the connection:
// reading ends (after whatever it wrote before) in EOF or a reset.
func (w *wire) closedByServer() error {
	w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	buf := make([]byte, 64<<10)
	for {
		_, err := w.nc.Read(buf)
		if err == nil {
			continue
		}
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return fmt.Errorf("the connection is still open after %v", hangDeadline)
		}
		return nil // EOF or ECONNRESET: closed
	}
}

// chatFile returns the bytes of a chat's file.
func (r *rig) chatFile(id string) string {
	r.t.Helper()
	b, err := os.ReadFile(r.store.ChatPath(id))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *rig) chatFiles() []string {
	m, _ := filepath.Glob(filepath.Join(r.home, "chats", "*.toml"))
	return m
}

// fdCount counts this process's open descriptors.
func fdCount(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
