package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestE2EAttachLendsTheTerminal: `attach` in a real terminal hands the
// terminal to the server, which reads the keys and draws the chat itself
// (the log says so). Killed with -9 under it, with the harness's modes on
// the terminal (the alternate screen, mouse tracking, a title...), the
// server leaves the terminal as the shell had it all the same: the client
// writes the reset the server last told it of, and gives back the termios
// and the blocking mode, so the shell's next `read` takes a typed line.
// No harness is left running, and the chat is kept.
func TestE2EAttachLendsTheTerminal(t *testing.T) {
	c, id, rec := attachWorld(t, true)
	script := fmt.Sprintf("printf '\\033]2;shell title\\007before-attach\\n'; %s attach shared; echo attach-exit=$?; read line; echo \"read=[$line]\"; exec /bin/sleep 600", binary)
	s := startTmux(t, 100, 30, append(c.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})
	s.waitLongText("ready>")
	s.waitModes("the harness's modes", harnessPaneModes)
	s.text("lent words")
	s.keys("Enter")
	s.waitLongText("echo: lent words")
	log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
	if !strings.Contains(string(log), `msg="client attached" chat=`+id+" terminal=true") {
		t.Fatalf("the server was not lent the terminal; its log:\n%s", log)
	}

	var hello proto.HelloResult
	srvCall(t, c.home, proto.MethodHello, nil, &hello)
	if hello.Pid <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", hello.Pid)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitLongText("the server closed the connection", "attach-exit=1")
	s.waitModes("the shell's modes after the server died", restoredPaneModes)
	s.text("typed after")
	s.keys("Enter")
	s.waitLongText("read=[typed after]")

	pid := readRecords(t, rec)[0].Pid
	s.waitLong("the harness to end with its server", func() bool { return syscall.Kill(pid, 0) != nil })
	if chats := c.ls(); len(chats) != 1 || chats[0].ID != id {
		t.Fatalf("after the crash ls shows %+v", chats)
	}
}

// TestE2EAttachLentTerminalFollowsItsSize: the chat's pty takes the lent
// terminal's size when attach starts and again when the terminal is
// resized (attach hears SIGWINCH and tells the server).
func TestE2EAttachLentTerminalFollowsItsSize(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	if err := os.WriteFile(c.config, []byte("[harness.sh]\ncommand = \"/bin/sh\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.chat("new", "--harness", "sh", "--name", "sized", "--json")
	script := fmt.Sprintf("%s attach sized; echo attach-exit=$?; exec /bin/sleep 600", binary)
	s := startTmux(t, 100, 30, append(c.env(), "TERM=xterm-256color", "PS1=$ "), []string{"/bin/sh", "-c", script})
	s.text("echo size=$(/usr/bin/stty size)")
	s.keys("Enter")
	s.waitLongText("size=30 100")
	s.tmux("resize-window", "-t", "e2e", "-x", "90", "-y", "25")
	s.text("echo size=$(/usr/bin/stty size)")
	s.keys("Enter")
	s.waitLongText("size=25 90")
	s.keys("C-]")
	s.waitLongText("detached]", "attach-exit=0")
}

// TestE2EAttachHoldsKeysTypedWhileItStarts: while attach waits for its
// server (stopped here, so the wait lasts), the terminal neither echoes
// typed keys over the screen nor holds them for a newline: they wait for
// the chat, which gets them once the server answers.
func TestE2EAttachHoldsKeysTypedWhileItStarts(t *testing.T) {
	c, id, _ := attachWorld(t, false)
	c.serve()
	var hello proto.HelloResult
	srvCall(t, c.home, proto.MethodHello, nil, &hello)
	if hello.Pid <= 0 {
		t.Fatalf("no server to stop (pid %d)", hello.Pid)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(hello.Pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)

	s := attachPane(t, c, 100, 30)
	tty := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_tty}"))
	var modes string
	s.waitLong("attach to hold the terminal's keys (-icanon -echo) while its server does not answer", func() bool {
		out, err := exec.Command("stty", "-F", tty, "-a").CombinedOutput()
		modes = string(out)
		return err == nil && strings.Contains(modes, "-icanon") && strings.Contains(modes, "-echo ")
	}, func() string { return modes })
	s.text("typed ahead")
	s.keys("Enter")
	resume()
	s.waitLongText("echo: typed ahead")
	s.keys("C-]")
	s.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
}
