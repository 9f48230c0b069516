// Command ptyfake is a fake terminal harness for tests. Each start appends one
// JSON line to $ACPMUX_FAKE_RECORD with what it really received (argv, cwd,
// environment, pid, process group, whether stdin is a terminal), then behaves
// as $ACPMUX_FAKE_MODE says:
//
//	echo (default)  print "ready>" and echo each input line as "echo: LINE"
//	exit:N          exit with status N at once
//	cat:FILE        copy FILE to stdout, print "FLOOD-DONE", then wait
//	stubborn        like echo, but ignore SIGTERM and SIGHUP
//	child           like echo, with a child process in the same group
//	nohup           like echo, but it and a child in its group ignore SIGHUP
//	bell            print "ready>" then a BEL, then echo
//	die-first       exit with status 1 at the first start (before any
//	                session is stored), then like echo
//	die-loud:N      print N numbered lines, then "FATAL: cannot reach the
//	                service (ENOTFOUND)" in colour and a blank line, and
//	                exit with status 1 at once, as a harness that explains
//	                its crash does
//
// With $ACPMUX_FAKE_TERMINAL_MODES set it first prints sequences that set
// many terminal modes (alternate screen, mouse, keypad, cursor keys,
// bracketed paste, hidden cursor...; see modes.go), in any mode.
//
// Given --session-id X, it stores the session where Claude Code would (see
// storeClaudeSession), so a later start may --resume it, and where Gemini
// CLI would when $GEMINI_CLI_HOME is set (storeGeminiSession). With
// $ACPMUX_FAKE_CODEX set it keeps its sessions as Codex does: a new one, with
// an id of its own, at a plain start or `fork ID`; `resume ID` continues one
// (storeCodexSession in codex.go).
//
// In the modes that echo, two input lines do what a harness does to report
// its turns (hooks.go): `hook EVENT [ARG]` runs the command hooks that
// Claude Code would run for EVENT, from the settings files and --settings
// (JSON or a file), each with `sh -c`, the event's JSON on stdin and
// CLAUDE_PROJECT_DIR set, then prints "hooked: EVENT"; `notify TYPE` runs the
// program of `-c notify=[...]` with Codex's notification JSON as its last
// argument, then prints "notified: TYPE". Each run (exit status, time,
// output) is appended to $ACPMUX_FAKE_RECORD.hooks.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"golang.org/x/term"
)

func main() {
	mode := os.Getenv("ACPMUX_FAKE_MODE")
	if mode == "" {
		mode = "echo"
	}
	if mode == "sleeper" {
		// The child of "child" mode: sits in the harness's process group.
		waitForever()
	}
	rec := startrecord.Current()
	rec.StdinIsTTY = term.IsTerminal(int(os.Stdin.Fd()))
	rec.Cols, rec.Rows, _ = term.GetSize(int(os.Stdin.Fd()))
	if mode == "child" {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "ACPMUX_FAKE_MODE=sleeper")
		if err := child.Start(); err != nil {
			fail(err)
		}
		rec.ChildPid = child.Process.Pid
	}
	if err := startrecord.Append(rec); err != nil {
		fail(err)
	}
	if n, ok := strings.CutPrefix(mode, "die-loud:"); ok {
		dieLoud(n)
	}
	if !strings.HasPrefix(mode, "exit:") && !storeClaudeSession(mode) {
		os.Exit(1)
	}
	if !strings.HasPrefix(mode, "exit:") {
		storeGeminiSession()
		storeCodexSession()
	}

	switch {
	case strings.HasPrefix(mode, "exit:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(mode, "exit:"))
		os.Exit(n)
	case strings.HasPrefix(mode, "cat:"):
		f, err := os.Open(strings.TrimPrefix(mode, "cat:"))
		if err != nil {
			fail(err)
		}
		if _, err := io.Copy(os.Stdout, f); err != nil {
			fail(err)
		}
		fmt.Print("FLOOD-DONE\r\n")
		waitForever()
	case mode == "stubborn":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	case mode == "nohup":
		nohup()
	}
	fmt.Print("ready>")
	if mode == "bell" {
		fmt.Print("\a")
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if reply, ok := inputCommand(sc.Text()); ok {
			fmt.Printf("\r\n%s\r\nready>", reply)
			continue
		}
		fmt.Printf("\r\necho: %s\r\nready>", sc.Text())
	}
}

// dieLoud prints count numbered lines and its last words, all in one write
// so they are still in the pty when it exits, and exits with status 1.
func dieLoud(count string) {
	n, err := strconv.Atoi(count)
	if err != nil {
		fail(err)
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "loud line %d\r\n", i+1)
	}
	b.WriteString("\x1b[1;31mFATAL:\x1b[0m cannot reach the service \x1b[2m(ENOTFOUND)\x1b[0m\r\n\r\n")
	os.Stdout.WriteString(b.String())
	os.Exit(1)
}

// waitForever blocks until a signal ends the process. (A bare select{}
// would be reported by the runtime as a deadlock.)
func waitForever() {
	for {
		time.Sleep(time.Hour)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ptyfake:", err)
	os.Exit(3)
}
