package server

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestQuietCrowdLocksNobodyOut: 520 processes, each of which connects,
// makes one call and keeps its connection open — more than the server's
// 512 places, one each — shut nobody out. Each of them is answered; while
// they hold, a TUI that watched before they came and an attach made
// before they came are still served, and a fresh list, a status report
// and a fresh attach are answered, again and again. At the end every one
// of the processes is gone.
func TestQuietCrowdLocksNobodyOut(t *testing.T) {
	const crowd = 520
	needDescriptors(t, 3*crowd)
	r := newRig(t, rigOpt{server: reportsFromTheTest})
	w := r.dial()
	var chat proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "crowded"}, &chat)
	w.ok(proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil)
	w.nc.Close()

	tui := r.dial()
	if rep, _ := tui.callNoting(proto.MethodWatch, proto.SizeParams{Cols: 80, Rows: 24}); rep.Error != nil {
		t.Fatalf("watch: %s", rep.Error.Message)
	}
	before := newAttachClient(r, chat.ID, 80, 24)
	before.run()
	before.attach()
	before.waitScreen("ready>")

	c := startCrowd(t, buildSockhold(t), proto.SocketPath(r.home), crowd)
	if refused := c.waitReports(t); len(refused) > 0 {
		t.Fatalf("%d of the %d processes were refused, first %q", len(refused), crowd, refused[0])
	}
	if n, max := r.srv.stats().live, r.srv.opt.MaxClients; n > max {
		t.Fatalf("%d clients served at once, past MaxClients %d", n, max)
	}

	for i, status := range []string{"asking", "waiting", "asking"} {
		fresh := newAttachClient(r, chat.ID, 80, 24)
		fresh.run()
		fresh.attach()
		fresh.input(fmt.Sprintf("fresh %d\r", i))
		fresh.waitScreen(fmt.Sprintf("echo: fresh %d", i))
		fresh.w.nc.Close()

		hook := proto.HookParams{ID: chat.ID, Event: "Stop"}
		if status == "asking" {
			hook = proto.HookParams{ID: chat.ID, Event: "Notification", NotificationType: "permission_prompt"}
		}
		reporter := r.dial()
		reporter.ok(proto.MethodHook, hook, nil)
		reporter.nc.Close()

		var list proto.ListResult
		ls := r.dial()
		ls.ok(proto.MethodList, nil, &list)
		ls.nc.Close()
		if len(list.Chats) != 1 || list.Chats[0].ID != chat.ID || list.Chats[0].Status != status {
			t.Fatalf("round %d: list %+v, want the chat %s", i, list.Chats, status)
		}
	}

	// The watching TUI and the attach that came before the crowd are still
	// served.
	if rep, _ := tui.callNoting(proto.MethodList, nil); rep.Error != nil {
		t.Fatalf("the TUI's list: %s", rep.Error.Message)
	}
	before.input("still attached\r")
	before.waitScreen("echo: still attached")

	c.end(t)
	waitFor(t, "the crowd's connections closed (the TUI's and the attach's left)", func() bool {
		return r.srv.stats().clients <= 2
	})
}

// needDescriptors raises this process's limit on open files to at least n
// (the server in it holds a descriptor a connection), or skips.
func needDescriptors(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur >= n {
		return
	}
	was := lim
	lim.Cur = n
	lim.Max = max(lim.Max, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("the test needs %d open files and the limit is %d (hard %d): %v", n, was.Cur, was.Max, err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &was) })
}

var (
	sockholdOnce sync.Once
	sockhold     string
	sockholdErr  error
)

// buildSockhold builds the program that holds connections
// (internal/testharness/sockhold), once for the package's tests.
func buildSockhold(t *testing.T) string {
	t.Helper()
	sockholdOnce.Do(func() {
		sockhold = filepath.Join(filepath.Dir(fakeHarness), "sockhold")
		if out, err := exec.Command("go", "build", "-o", sockhold, "../internal/testharness/sockhold").CombinedOutput(); err != nil {
			sockholdErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if sockholdErr != nil {
		t.Fatalf("build sockhold: %v", sockholdErr)
	}
	return sockhold
}

// crowdOf is a crowd of sockhold processes: one stdin pipe they all read
// (closing it ends them all) and one stdout pipe they all report on.
type crowdOf struct {
	bin     string
	cmds    []*exec.Cmd
	stdin   *os.File // the write end
	reports chan string
	reaped  bool // end has waited for every one
}

// startCrowd starts n sockhold processes on socket. Whatever happens to
// the test, they are killed and reaped at its end.
func startCrowd(t *testing.T, bin, socket string, n int) *crowdOf {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &crowdOf{bin: bin, stdin: inW, reports: make(chan string, n)}
	t.Cleanup(func() {
		inW.Close()
		if !c.reaped {
			c.kill()
			for _, cmd := range c.cmds {
				cmd.Wait()
			}
		}
		outR.Close()
	})
	env := append(os.Environ(), "GOMAXPROCS=1", "GOGC=off")
	for range n {
		cmd := exec.Command(bin, "crowd", socket, hangDeadline.String())
		cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = inR, outW, os.Stderr, env
		if err := cmd.Start(); err != nil {
			t.Fatalf("start process %d of the crowd: %v", len(c.cmds)+1, err)
		}
		c.cmds = append(c.cmds, cmd)
	}
	inR.Close()
	outW.Close()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.reports <- sc.Text()
		}
		close(c.reports)
	}()
	return c
}

// waitReports waits for every process to say whether its call was
// answered, and returns the reports of those refused.
func (c *crowdOf) waitReports(t *testing.T) (refused []string) {
	t.Helper()
	deadline := time.After(hangDeadline)
	for got := 0; got < len(c.cmds); got++ {
		select {
		case l, ok := <-c.reports:
			if !ok {
				t.Fatalf("the crowd's stdout ended after %d of %d reports", got, len(c.cmds))
			}
			if !strings.HasPrefix(l, "held ") {
				refused = append(refused, l)
			}
		case <-deadline:
			t.Fatalf("%d of the %d processes said whether they were answered", got, len(c.cmds))
		}
	}
	return refused
}

// end has every process of the crowd exit (their stdin ends), reaps them,
// and checks that none is left.
func (c *crowdOf) end(t *testing.T) {
	t.Helper()
	c.stdin.Close()
	late := time.AfterFunc(hangDeadline, c.kill)
	for _, cmd := range c.cmds {
		cmd.Wait()
	}
	c.reaped = true
	if !late.Stop() {
		t.Fatalf("the crowd's processes did not exit within %v of their stdin's end", hangDeadline)
	}
	for i, cmd := range c.cmds {
		if !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("process %d of the crowd ended as %v", i+1, cmd.ProcessState)
		}
	}
	if left := processesOf(t, c.bin); len(left) > 0 {
		t.Fatalf("processes of %s left: %v", c.bin, left)
	}
}

func (c *crowdOf) kill() {
	for _, cmd := range c.cmds {
		cmd.Process.Kill()
	}
}

// processesOf lists the processes that run bin.
func processesOf(t *testing.T, bin string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && exe == bin {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestNewcomerTakesAQuietPlace: with the server full, a newcomer takes the
// place of a connection that is quiet, never of one that watches the
// chats (a TUI), is attached (attach), streams a chat (an ACP client's
// session) or waits on a turn (prompt); when none is quiet (and no
// process holds more than the newcomer's would), the newcomer is refused.
func TestNewcomerTakesAQuietPlace(t *testing.T) {
	fake := buildACPFake(t)
	state := t.TempDir()
	p := newRig(t, rigOpt{opt: func(o *Options) {
		cfg := config.Defaults()
		cfg.Harness = map[string]config.HarnessConfig{
			"fake":  {Command: fake, Transport: harness.TransportACP, Env: map[string]string{"ACPMUX_FAKE_STATE": state}},
			"shell": {Command: fakeHarness, Env: map[string]string{"ACPMUX_FAKE_MODE": "echo"}},
		}
		table, err := harness.NewTable(cfg)
		if err != nil {
			t.Fatal(err)
		}
		o.Config, o.Table = cfg, table
		o.Mux = mux.New(mux.Options{Store: o.Store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond})
		o.WriteTimeout = hangDeadline // the prompter reads nothing for a while
		o.MaxClients = 5
	}})
	var acpChat, shell proto.ChatJSON
	setup := p.dial()
	setup.ok(proto.MethodNew, proto.NewParams{Harness: "fake"}, &acpChat)
	setup.ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &shell)
	setup.ok(proto.MethodStart, proto.ChatParams{ID: shell.ID}, nil)
	setup.nc.Close()
	waitFor(t, "the setup connection closed", func() bool { return p.srv.stats().clients == 0 })

	tui := p.dial()
	if rep, _ := tui.callNoting(proto.MethodWatch, proto.SizeParams{Cols: 80, Rows: 24}); rep.Error != nil {
		t.Fatalf("watch: %s", rep.Error.Message)
	}
	att := newAttachClient(p, shell.ID, 80, 24)
	att.run()
	att.attach()
	observer := &stream{t: t, w: p.dial(), chat: acpChat.ID}
	observer.observe()
	prompter := &stream{t: t, w: p.dial(), chat: acpChat.ID}
	turn := prompter.request(proto.MethodPrompt, proto.PromptParams{ID: acpChat.ID, Text: "slow", RefusePermissions: true})
	observer.until("the slow turn's first chunk", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryAgent && e.Text == "working slowly" })
	quiet := p.dial()
	quiet.ok(proto.MethodHello, nil, nil)

	// Each newcomer takes the quiet place, and is quiet in its turn (once
	// its call has ended: the answer may reach it a moment before).
	for i := range 3 {
		waitFor(t, "one connection quiet", func() bool { return quietConns(p.srv) == 1 })
		fresh := p.dial()
		fresh.ok(proto.MethodHello, nil, nil)
		if err := quiet.closedByServer(); err != nil {
			t.Fatalf("newcomer %d: the quiet connection: %v", i, err)
		}
		quiet = fresh
	}
	// None is quiet once the last newcomer watches: the next is refused.
	if rep, _ := quiet.callNoting(proto.MethodWatch, proto.SizeParams{Cols: 80, Rows: 24}); rep.Error != nil {
		t.Fatalf("watch: %s", rep.Error.Message)
	}
	waitFor(t, "no connection quiet", func() bool { return quietConns(p.srv) == 0 })
	if err := p.dial().closedByServer(); err != nil {
		t.Fatalf("a newcomer to a server whose every connection is busy: %v", err)
	}

	// The busy ones are all still served.
	for name, w := range map[string]*wire{"the TUI": tui, "the last to watch": quiet} {
		if rep, _ := w.callNoting(proto.MethodHello, nil); rep.Error != nil {
			t.Fatalf("%s: hello: %s", name, rep.Error.Message)
		}
	}
	att.input("still attached\r")
	att.waitScreen("echo: still attached")
	observer.call(proto.MethodCancel, proto.ChatParams{ID: acpChat.ID}, nil)
	if l := prompter.answer(turn); l.Error != nil || !strings.Contains(string(l.Result), "cancelled") {
		t.Fatalf("the slow turn's prompt was answered %s %+v, want it cancelled", l.Result, l.Error)
	}
}

// quietConns counts the server's quiet connections.
func quietConns(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.quiet() {
			n++
		}
	}
	return n
}
