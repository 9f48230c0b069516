// Command benchtool measures acpmux-tui for scripts/bench. Its first
// subcommands measure the embedded mux: how fast a pty chat's output
// drains through the terminal emulator, how much memory a chat with a full
// scrollback costs, and how much CPU idle chats burn. They drive package
// mux exactly as acpmux-tui does (a chat store in a temporary agent home, a
// harness table from a config, Start and Wait), with no UI.
//
// The server-* subcommands measure real processes: an `acpmux-tui server`
// (BIN is the acpmux-tui binary) on a fresh agent home HOME, whose config
// file benchtool writes there, with a client.Remote (the TUI's view of the
// server) or the real TUI in a pty benchtool makes. They kill the server
// at the end, also on SIGINT, SIGTERM or SIGHUP. keys-tmux and keys-pty are
// the keystroke round trip's comparisons. hook times `acpmux-tui hook`, run
// by harnesses, against such a server and with none (hook.go).
//
// Usage:
//
//	benchtool flood OUT [MB]      write the standard flood input (default 50 MB)
//	benchtool flood-plain OUT [MB]  write the plain flood: Go-like source, tabs, no escapes (default 50 MB)
//	benchtool pty-floor FILE      `cat FILE` in a bare 160x45 pty, read and thrown away: the kernel's floor
//	benchtool throughput FILE     one 160x45 chat running `cat FILE`
//	benchtool memory FILE N       N 160x45 chats each running `cat FILE`
//	benchtool idle N SECONDS      N idle chats held for SECONDS
//
//	benchtool server-throughput BIN HOME FILE  `cat FILE` in a server, drawn by a Remote
//	benchtool server-keys BIN HOME N GAP_MS    N keys into `cat` in a server, through a Remote
//	benchtool keys-tmux TMUX SOCKET N GAP_MS   N keys into `cat` in a tmux pane (tmux -L SOCKET)
//	benchtool keys-pty N GAP_MS                N keys into `cat` in a bare pty
//	benchtool keys-side BIN HOME TMUX SOCKET N GAP_MS [BIN2 HOME2]
//	                                           the three above, a key of each in turn
//	                                           (and of a second server, to compare builds)
//	benchtool server-idle BIN HOME N SECONDS   server + TUI CPU with N idle chats
//	benchtool server-memory BIN HOME N         server + TUI PSS with N idle chats
//	benchtool server-scale BIN HOME N SECONDS  server + TUI CPU with N chats printing
//	benchtool hook BIN HOME N                  N runs of `BIN hook PreToolUse`, exec to exit
//	benchtool server-held BIN HOME HELD N      N fresh hellos, and N while two processes hold HELD connections each
//	benchtool hold SOCKET N                    hold N connections to SOCKET (server-held's holders)
//	benchtool hook-loop BIN N FILE             hook's timing loop, run as a chat's harness
//	benchtool door BIN HOME FAKE N             N prompts through `BIN acp` and N to the ACP agent FAKE directly,
//	                                           time to the first session/update of each (door.go)
//	benchtool relay CMD [ARG]...              CMD behind one more process that only copies its stdin and stdout
//	                                           (the door's floor, door.go)
//	benchtool door-web BIN HOME FAKE N         the same through the web door's WebSocket, beside `BIN acp` and FAKE directly,
//	                                           a prompt of each in turn (door_web.go)
//	benchtool door-replay BIN HOME FAKE N      session/load through `BIN acp` of a chat with N transcript entries
//	benchtool sandbox BIN HOME N [HOOK_RUNS]   N starts of a sandboxed chat and of a plain one, in turn, and HOOK_RUNS
//	                                           (1000) hooks from inside each kind of chat (sandbox.go)
//	benchtool bundle-50mb BIN WORK [MB]        export and import of a chat with a 50 MB session log: time, peak RSS
//	benchtool ls-1000 BIN HOME TMUX SOCKET N RUNS  ls, ls --json and show at N chats, no server and a server, beside tmux list-windows -a (chats1000.go)
//	benchtool new-1000 BIN HOME TMUX SOCKET N      N `BIN new` beside N `tmux new-window -d`
//	benchtool diff-50k BIN WORK N CHANGED RUNS     `BIN diff ID --stat` and the TUI's review pane (d until its file list shows) beside `git diff --stat` on N files, CHANGED changed (diff50k.go)
//	benchtool scale-100 BIN HOME TMUX SOCKET N SECONDS  server-scale beside tmux with N printing windows and a client (tmux_side.go)
//	benchtool memory-idle BIN HOME TMUX SOCKET N   server-memory beside tmux server + client with N idle windows
//	benchtool first-frame-1000 BIN HOME TMUX SOCKET N RUNS  the TUI's first frame at N chats, cold and warm, beside tmux attach
//	benchtool ssh BIN DIR TMUX FILE KEYS GAP_MS CHATS SECONDS  over a real sshd: attach --host beside tmux over ssh,
//	                                           keys, the flood of FILE, and the link's bytes with CHATS idle chats (ssh_side.go)
//	benchtool page-1000 BIN HOME N RUNS            the web page's first paint of N chats in a headless Chromium, beside the TUI's
//	                                           first frame, and the page's JavaScript heap (page_list.go)
//	benchtool keys-tui BIN HOME TMUX SOCKET N GAP_MS   N keys into `cat` through the real TUI in a pty beside a real
//	                                           tmux client in a pty, a key of each in turn, quiet and with 10 chats
//	                                           printing a line a second (keys_tui.go)
//	benchtool page-keys BIN HOME TMUX SOCKET N GAP_MS  N keys into `cat` in a terminal chat in the page, beside the server's
//	                                           client and tmux, a key of each in turn (page_keys.go)
//	benchtool page-flood BIN HOME TMUX SOCKET FILE RUNS  the flood of FILE in a terminal chat in the page, beside tmux attach (page_flood.go)
//	benchtool pages PID BIN                        the resident pages of BIN's image in process PID, by package and section (pages.go)
//	benchtool tick                                 the time once a second: the scale rows' harness (tick.go)
//	benchtool search WORK CHATS ENTRIES LINES ROUNDS  the search of CHATS chats (a session log of ENTRIES messages and
//	                                           LINES lines of scrollback each) beside grep -r over the same text (search.go)
//
// The flood (package flood) is deterministic: lines of 12 words drawn from
// plain words, SGR colour, CJK and emoji by a fixed-seed generator, so every
// figure is measured on the same bytes.
//
// Each subcommand prints machine-readable `key=value` lines on stdout and
// exits non-zero with a message on stderr if the run is not valid (the
// output did not reach the screen, a chat did not start).
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// usage is printed for a bad command line.
const usage = `usage:
  benchtool flood OUT [MB]
  benchtool flood-plain OUT [MB]
  benchtool pty-floor FILE
  benchtool throughput FILE
  benchtool memory FILE N
  benchtool idle N SECONDS
  benchtool server-throughput BIN HOME FILE
  benchtool server-keys BIN HOME N GAP_MS
  benchtool keys-tmux TMUX SOCKET N GAP_MS
  benchtool keys-pty N GAP_MS
  benchtool keys-side BIN HOME TMUX SOCKET N GAP_MS [BIN2 HOME2]
  benchtool server-idle BIN HOME N SECONDS
  benchtool server-memory BIN HOME N
  benchtool server-scale BIN HOME N SECONDS
  benchtool hook BIN HOME N
  benchtool server-held BIN HOME HELD N
  benchtool hold SOCKET N
  benchtool hook-loop BIN N FILE
  benchtool door BIN HOME FAKE N
  benchtool door-web BIN HOME FAKE N
  benchtool door-replay BIN HOME FAKE N
  benchtool sandbox BIN HOME N [HOOK_RUNS]
  benchtool bundle-50mb BIN WORK [MB]
  benchtool ls-1000 BIN HOME TMUX SOCKET N RUNS
  benchtool new-1000 BIN HOME TMUX SOCKET N
  benchtool diff-50k BIN WORK N CHANGED RUNS
  benchtool scale-100 BIN HOME TMUX SOCKET N SECONDS
  benchtool memory-idle BIN HOME TMUX SOCKET N
  benchtool first-frame-1000 BIN HOME TMUX SOCKET N RUNS
  benchtool ssh BIN DIR TMUX FILE KEYS GAP_MS CHATS SECONDS
  benchtool page-1000 BIN HOME N RUNS
  benchtool keys-tui BIN HOME TMUX SOCKET N GAP_MS
  benchtool page-keys BIN HOME TMUX SOCKET N GAP_MS
  benchtool page-flood BIN HOME TMUX SOCKET FILE RUNS
  benchtool pages PID BIN
  benchtool tick
  benchtool search WORK CHATS ENTRIES LINES ROUNDS`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

// floodMegabytes is the size the flood commands' OUT [MB] asks for: 50
// unless MB is given.
func floodMegabytes(rest []string) (float64, error) {
	if len(rest) < 2 {
		return 50, nil
	}
	return parseMegabytes(rest[1])
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no subcommand\n%s", usage)
	}
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "flood" && (len(rest) == 1 || len(rest) == 2):
		mb, err := floodMegabytes(rest)
		if err != nil {
			return err
		}
		return writeFlood(rest[0], mb)
	case cmd == "flood-plain" && (len(rest) == 1 || len(rest) == 2):
		mb, err := floodMegabytes(rest)
		if err != nil {
			return err
		}
		return writePlainFlood(rest[0], mb)
	case cmd == "pty-floor" && len(rest) == 1:
		return ptyFloor(rest[0])
	case cmd == "throughput" && len(rest) == 1:
		return throughput(rest[0])
	case cmd == "memory" && len(rest) == 2:
		n, err := positive(rest[1])
		if err != nil {
			return err
		}
		return memory(rest[0], n)
	case cmd == "idle" && len(rest) == 2:
		n, err := positive(rest[0])
		if err != nil {
			return err
		}
		secs, err := seconds(rest[1])
		if err != nil {
			return err
		}
		return idle(n, secs)
	default:
		return runServer(cmd, rest)
	}
}

// runServer runs the server-* subcommands and their comparisons.
func runServer(cmd string, rest []string) error {
	switch {
	case cmd == "server-throughput" && len(rest) == 3:
		return serverThroughput(rest[0], rest[1], rest[2])
	case (cmd == "server-keys" || cmd == "keys-tmux") && len(rest) == 4:
		n, err := positive(rest[2])
		if err != nil {
			return err
		}
		gap, err := gapMillis(rest[3])
		if err != nil {
			return err
		}
		if cmd == "keys-tmux" {
			return tmuxKeys(rest[0], rest[1], n, gap)
		}
		return serverKeys(rest[0], rest[1], n, gap)
	case cmd == "keys-side" && (len(rest) == 6 || len(rest) == 8):
		n, gap, err := countAnd(rest[4], rest[5], gapMillis)
		if err != nil {
			return err
		}
		return keysSide(rest[0], rest[1], rest[2], rest[3], n, gap, rest[6:]...)
	case cmd == "keys-tui" && len(rest) == 6:
		n, gap, err := countAnd(rest[4], rest[5], gapMillis)
		if err != nil {
			return err
		}
		return keysTUI(rest[0], rest[1], rest[2], rest[3], n, gap)
	case cmd == "keys-pty" && len(rest) == 2:
		n, err := positive(rest[0])
		if err != nil {
			return err
		}
		gap, err := gapMillis(rest[1])
		if err != nil {
			return err
		}
		return ptyKeys(n, gap)
	case (cmd == "server-idle" || cmd == "server-scale") && len(rest) == 4:
		n, secs, err := countAnd(rest[2], rest[3], seconds)
		if err != nil {
			return err
		}
		if cmd == "server-scale" {
			return serverScale(rest[0], rest[1], n, secs)
		}
		return serverIdle(rest[0], rest[1], n, secs)
	case cmd == "pages" && len(rest) == 2:
		pid, err := positive(rest[0])
		if err != nil {
			return err
		}
		return pages(pid, rest[1], os.Stdout)
	case cmd == "server-memory" && len(rest) == 3:
		n, err := positive(rest[2])
		if err != nil {
			return err
		}
		return serverMemory(rest[0], rest[1], n)
	case cmd == "hook" && len(rest) == 3:
		n, err := positive(rest[2])
		if err != nil {
			return err
		}
		return hookBench(rest[0], rest[1], n)
	case cmd == "server-held" && len(rest) == 4:
		held, err := positive(rest[2])
		if err != nil {
			return err
		}
		n, err := positive(rest[3])
		if err != nil {
			return err
		}
		return heldBench(rest[0], rest[1], held, n)
	case (cmd == "door" || cmd == "door-web") && len(rest) == 4:
		n, err := positive(rest[3])
		if err != nil {
			return err
		}
		if cmd == "door-web" {
			return doorWebBench(rest[0], rest[1], rest[2], n)
		}
		return doorBench(rest[0], rest[1], rest[2], n)
	case cmd == "relay" && len(rest) >= 1:
		return relay(rest[0], rest[1:])
	case cmd == "sandbox" && (len(rest) == 3 || len(rest) == 4):
		n, err := positive(rest[2])
		if err != nil {
			return err
		}
		hookRuns := 1000
		if len(rest) == 4 {
			if hookRuns, err = positive(rest[3]); err != nil {
				return err
			}
		}
		return sandboxBench(rest[0], rest[1], n, hookRuns)
	case cmd == "door-replay" && len(rest) == 4:
		n, err := positive(rest[3])
		if err != nil {
			return err
		}
		return doorReplayBench(rest[0], rest[1], rest[2], n)
	case cmd == "bundle-50mb" && (len(rest) == 2 || len(rest) == 3):
		mb := 50.0
		if len(rest) == 3 {
			var err error
			if mb, err = parseMegabytes(rest[2]); err != nil {
				return err
			}
		}
		return bundleBench(rest[0], rest[1], mb)
	case cmd == "ls-1000" && len(rest) == 6:
		n, runs, err := countAnd(rest[4], rest[5], positive)
		if err != nil {
			return err
		}
		return ls1000(rest[0], rest[1], rest[2], rest[3], n, runs)
	case cmd == "diff-50k" && len(rest) == 5:
		var nums [3]int
		for i := range nums {
			var err error
			if nums[i], err = positive(rest[2+i]); err != nil {
				return err
			}
		}
		return diff50k(rest[0], rest[1], nums[0], nums[1], nums[2])
	case cmd == "new-1000" && len(rest) == 5:
		n, err := positive(rest[4])
		if err != nil {
			return err
		}
		return new1000(rest[0], rest[1], rest[2], rest[3], n)
	case cmd == "tick" && len(rest) == 0:
		return tick()
	case cmd == "scale-100" && len(rest) == 6:
		n, secs, err := countAnd(rest[4], rest[5], seconds)
		if err != nil {
			return err
		}
		return scale100(rest[0], rest[1], rest[2], rest[3], n, secs)
	case cmd == "memory-idle" && len(rest) == 5:
		n, err := positive(rest[4])
		if err != nil {
			return err
		}
		return memoryIdle(rest[0], rest[1], rest[2], rest[3], n)
	case cmd == "first-frame-1000" && len(rest) == 6:
		n, runs, err := countAnd(rest[4], rest[5], positive)
		if err != nil {
			return err
		}
		return firstFrame1000(rest[0], rest[1], rest[2], rest[3], n, runs)
	case cmd == "ssh" && len(rest) == 8:
		var nums [3]int
		for i, at := range []int{4, 6} {
			var err error
			if nums[i], err = positive(rest[at]); err != nil {
				return err
			}
		}
		gap, err := gapMillis(rest[5])
		if err != nil {
			return err
		}
		secs, err := seconds(rest[7])
		if err != nil {
			return err
		}
		return sshBench(rest[0], rest[1], rest[2], rest[3], nums[0], gap, nums[1], secs)
	case strings.HasPrefix(cmd, "page-"):
		return runPage(cmd, rest)
	case cmd == "hook-loop" && len(rest) == 3:
		n, err := positive(rest[1])
		if err != nil {
			return err
		}
		return hookLoop(rest[0], n, rest[2])
	case cmd == "search" && len(rest) == 5:
		var nums [4]int
		for i, a := range rest[1:] {
			n, err := positive(a)
			if err != nil {
				return err
			}
			nums[i] = n
		}
		return searchBench(rest[0], nums[0], nums[1], nums[2], nums[3])
	case cmd == "hold" && len(rest) == 2:
		n, err := positive(rest[1])
		if err != nil {
			return err
		}
		return holdConnections(rest[0], n)
	default:
		return fmt.Errorf("bad command line %q\n%s", append([]string{cmd}, rest...), usage)
	}
}

// countAnd reads the N argument of a row and the one after it (RUNS or
// SECONDS), as the scale, first-frame and ls rows take them.
func countAnd[T any](n, next string, parseNext func(string) (T, error)) (int, T, error) {
	var zero T
	count, err := positive(n)
	if err != nil {
		return 0, zero, err
	}
	v, err := parseNext(next)
	if err != nil {
		return 0, zero, err
	}
	return count, v, nil
}

// seconds reads a SECONDS argument.
func seconds(s string) (float64, error) {
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil || secs <= 0 || math.IsInf(secs, 0) {
		return 0, fmt.Errorf("SECONDS %q: want a positive number", s)
	}
	return secs, nil
}

// gapMillis reads a GAP_MS argument: milliseconds, 0 or more.
func gapMillis(s string) (time.Duration, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 60_000 {
		return 0, fmt.Errorf("GAP_MS %q: want 0 to 60000 milliseconds", s)
	}
	return time.Duration(v * float64(time.Millisecond)), nil
}

func positive(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("N %q: want a positive whole number", s)
	}
	return n, nil
}

// emit prints one key=value result line.
func emit(key string, value any) {
	switch v := value.(type) {
	case float64:
		fmt.Printf("%s=%.6f\n", key, v)
	default:
		fmt.Printf("%s=%v\n", key, v)
	}
}
