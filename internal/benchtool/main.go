// Command benchtool measures the embedded mux for scripts/bench: how fast a
// pty chat's output drains through the terminal emulator, how much memory a
// chat with a full scrollback costs, and how much CPU idle chats burn. It
// drives package mux exactly as acpmux-tui does (a chat store in a temporary
// agent home, a harness table from a config, Start and Wait), with no UI.
//
// Usage:
//
//	benchtool flood OUT [MB]      write the standard flood input (default 50 MB)
//	benchtool throughput FILE     one 160x45 chat running `cat FILE`
//	benchtool memory FILE N       N 160x45 chats each running `cat FILE`
//	benchtool idle N SECONDS      N idle chats held for SECONDS
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
	"os"
	"strconv"
)

// usage is printed for a bad command line.
const usage = `usage:
  benchtool flood OUT [MB]
  benchtool throughput FILE
  benchtool memory FILE N
  benchtool idle N SECONDS`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no subcommand\n%s", usage)
	}
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "flood" && (len(rest) == 1 || len(rest) == 2):
		mb := 50.0
		if len(rest) == 2 {
			var err error
			if mb, err = parseMegabytes(rest[1]); err != nil {
				return err
			}
		}
		return writeFlood(rest[0], mb)
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
		secs, err := strconv.ParseFloat(rest[1], 64)
		if err != nil || secs <= 0 {
			return fmt.Errorf("SECONDS %q: want a positive number", rest[1])
		}
		return idle(n, secs)
	default:
		return fmt.Errorf("bad command line %q\n%s", args, usage)
	}
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
