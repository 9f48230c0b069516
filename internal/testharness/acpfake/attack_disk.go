package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder/acp-go-sdk"
	"golang.org/x/sys/unix"
)

func init() {
	// disk OP PATH [TO]: the agent's own process touches the disk, with
	// system calls, not through the client's fs/* (what a sandbox bounds):
	// write (create or append), read, list, mv PATH TO, mkdir. Replies
	// "disk: ok" or "disk: ERRNO" (EACCES, EROFS, ENOENT…).
	attacks["disk"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		f := strings.Fields(arg)
		if len(f) < 2 {
			return "", fmt.Errorf("disk: want OP PATH [TO], got %q", arg)
		}
		var err error
		switch op, path := f[0], f[1]; {
		case op == "write":
			var fh *os.File
			if fh, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
				_, err = fh.WriteString("written by the agent\n")
				fh.Close()
			}
		case op == "read":
			_, err = os.ReadFile(path)
		case op == "list":
			_, err = os.ReadDir(path)
		case op == "mkdir":
			err = os.Mkdir(path, 0o755)
		case op == "mv" && len(f) == 3:
			err = os.Rename(path, f[2])
		case op == "caps":
			// The capability line PATH names (CapBnd, CapEff…) of
			// /proc/self/status.
			return t.stopReason(), t.say("disk: " + capLine(path))
		case op == "signal":
			// Signal 0 to process PATH: whether it may be signalled.
			var pid int
			if pid, err = strconv.Atoi(path); err == nil {
				err = syscall.Kill(pid, 0)
			}
		case op == "call" && len(f) == 3:
			return t.stopReason(), t.say("disk: " + callSocket(path, f[2]))
		default:
			return "", fmt.Errorf("disk: unknown operation %q", arg)
		}
		return t.stopReason(), t.say("disk: " + errnoText(err))
	}
}

// callSocket connects to the unix socket at path, makes one JSON-RPC call
// of method with empty params, and says how it went: "ok", the error's
// code, or the errno of the connect.
func callSocket(path, method string) string {
	c, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return errnoText(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":1,"method":%q,"params":{}}`+"\n", method); err != nil {
		return errnoText(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return errnoText(err)
	}
	var answer struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &answer); err != nil {
		return err.Error()
	}
	if answer.Error != nil {
		return strconv.Itoa(answer.Error.Code)
	}
	return "ok"
}

// capLine is the hex value of line name of /proc/self/status.
func capLine(name string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return errnoText(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "no " + name
}

// errnoText is "ok", or the errno's name, or the error's text.
func errnoText(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}
