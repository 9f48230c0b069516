// Command hostilehost is a hostile host for tests: installed as `ssh` on a
// test's PATH, it connects nowhere and answers the socket protocol itself
// on stdin and stdout (JSON-RPC 2.0, one object per line), with escape
// sequences a terminal would obey in every string it sends (Hostile).
// What it does depends on the destination, the argument after -T:
//
//	down   print Hostile on stderr and exit 255, as ssh does when it
//	       cannot log in
//	old    answer hello with another protocol and a hostile version
//	any    serve: hello, list, chat, watch (then one of each notification
//	       a watcher hears), render, transcript, history, remove...; any
//	       other method is refused with a hostile message
//
// Its chats are far1 and far2 (ids a chat may have, every other field
// hostile) and one whose id itself is hostile (evil + Hostile).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// Hostile is what the host puts in every string: a clipboard write (OSC
// 52), a window title (OSC 0), a clear screen (CSI 02J, a form the TUI
// itself never writes), a DCS, a clear screen as a C1 CSI, and a
// right-to-left override. Each carries a marker no honest output holds
// (cHduZWQ=, PWNED, 02J, pwn).
const Hostile = "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[02J\x1bPpwn\x1b\\\u009b02J\u202e"

// hostile is s with Hostile in it.
func hostile(s string) string { return s + Hostile + "-tail" }

func main() {
	i := slices.Index(os.Args, "-T")
	dest := ""
	if i >= 0 && i+1 < len(os.Args) {
		dest = os.Args[i+1]
	}
	fmt.Fprintln(os.Stderr, hostile("banner from the host"))
	switch dest {
	case "down":
		os.Exit(255)
	case "old":
		serve(func(method string) (any, *rpcError) {
			return proto.HelloResult{Version: hostile("0.0.1"), Pid: 1}, nil
		})
		return
	}
	serve(answer)
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

var out = bufio.NewWriter(os.Stdout)

// send writes one line. A notification is written with the C1 and bidi
// controls as JSON escapes (\u009b, \u202e) rather than raw UTF-8, as an
// answer has them: both forms reach the client.
func send(v any, escaped bool) {
	line, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	if escaped {
		line = bytes.ReplaceAll(line, []byte("\u009b"), []byte(`\u009b`))
		line = bytes.ReplaceAll(line, []byte("\u202e"), []byte(`\u202E`))
	}
	out.Write(append(line, '\n'))
	out.Flush()
}

// params is the part of a call the fake reads.
type params struct {
	ID string `json:"id"`
}

var current params

func serve(answer func(method string) (any, *rpcError)) {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     *int64          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		current = params{}
		json.Unmarshal(req.Params, &current)
		res, rerr := answer(req.Method)
		msg := map[string]any{"jsonrpc": "2.0", "id": *req.ID}
		if rerr != nil {
			msg["error"] = rerr
		} else {
			msg["result"] = res
		}
		send(msg, false)
		if req.Method == proto.MethodWatch {
			notify()
		}
	}
}

// chats are the host's chats.
func chats() []proto.ChatJSON {
	chat := func(id string) proto.ChatJSON {
		return proto.ChatJSON{ID: id, Name: hostile("hostile-name-" + id), Harness: hostile("shell"), Cwd: hostile("/far/cwd"),
			AdditionalDirectories: []string{hostile("/far/dir")}, AdditionalFiles: []string{hostile("/far/file")},
			Parent: hostile("parent"), Origin: hostile("fork"), AgentSessionID: hostile("session"), Status: hostile("running"),
			FoldersVia: hostile("env"), FilesVia: hostile("env"), StatusFrom: hostile("screen"), Created: hostile("2026-01-01"),
			Worktree: &proto.WorktreeJSON{Path: hostile("/far/wt"), Branch: hostile("branch"), Base: hostile("base"), BaseRef: hostile("ref"), Repo: hostile("/far/repo")}}
	}
	broken := proto.ChatJSON{ID: "brokenfar", Status: "broken", Broken: hostile("parse chat file"), AdditionalDirectories: []string{}, AdditionalFiles: []string{}}
	return []proto.ChatJSON{chat("far1"), chat("far2"), chat(hostile("evil")), broken}
}

// screen is a chat's screen: a line in red, as the host's emulator renders
// it, and Hostile.
func screen() string {
	return "\x1b[31mRED-ON-THE-HOST\x1b[m\n" + hostile("screen line") + "\nlast line"
}

func state() proto.ChatView {
	full := screen()
	return proto.ChatView{
		State: proto.State{Status: proto.StatusFailed, Reason: hostile("reason"), LastError: hostile("last error"), LastOutput: hostile("last output"),
			Title: hostile("title"), Transport: "pty", Argv: []string{hostile("argv")}, AgentName: hostile("agent"), SessionID: hostile("sid"),
			StatusFrom: proto.StatusSource(hostile("screen")), Started: time.Unix(1, 0)},
		Terminal: proto.Terminal{Cols: 80, Rows: 3, CursorVisible: true},
		Screen:   &proto.ScreenPatch{Full: &full},
	}
}

func answer(method string) (any, *rpcError) {
	switch method {
	case proto.MethodHello:
		return proto.HelloResult{Version: hostile("9.9.9"), Pid: 4242, Protocol: proto.ProtocolVersion}, nil
	case proto.MethodBudget, proto.MethodShow, proto.MethodLook, proto.MethodResize, proto.MethodFill, proto.MethodStop, proto.MethodForget:
		return struct{}{}, nil
	case proto.MethodList:
		return proto.ListResult{Chats: chats()}, nil
	case proto.MethodChat:
		for _, c := range chats() {
			if c.ID == current.ID {
				return c, nil
			}
		}
		return nil, &rpcError{Code: -32602, Message: hostile("no chat " + current.ID)}
	case proto.MethodWatch:
		states := map[string]proto.ChatView{}
		for _, c := range chats() {
			states[c.ID] = state()
		}
		return proto.StatesResult{States: states}, nil
	case proto.MethodRender:
		return proto.RenderResult{Text: screen()}, nil
	case proto.MethodTranscript:
		return proto.TranscriptResult{Entries: []proto.Entry{{Kind: proto.EntryAgent, Text: hostile("agent said"), Title: hostile("tool"), Plan: []string{hostile("plan")}}}}, nil
	case proto.MethodHistory:
		return proto.HistoryResult{Lines: []string{hostile("history")}}, nil
	case proto.MethodRemove:
		if current.ID == "far1" {
			return proto.RemoveReport{ID: current.ID, Home: hostile("/far/home"), Removed: true, Worktree: hostile("/far/wt"), Branch: hostile("branch")}, nil
		}
		return nil, &rpcError{Code: -32602, Message: hostile("cannot remove " + current.ID), Data: map[string]string{"why": hostile("data")}}
	}
	return nil, &rpcError{Code: proto.CodeMethodNotFound, Message: hostile("method not found: " + strings.TrimPrefix(method, "_acpmux/"))}
}

// notify sends a watcher one of each notification it hears.
func notify() {
	full := screen()
	n := func(method string, p any) {
		send(map[string]any{"jsonrpc": "2.0", "method": method, "params": p}, true)
	}
	n(proto.NotifyChanged, proto.StatesResult{States: map[string]proto.ChatView{"far1": state(), hostile("evil"): state()}})
	n(proto.NotifyScreen, proto.ScreenUpdate{ID: "far1", Screen: proto.ScreenPatch{Full: &full, Rows: map[int]string{1: hostile("row")}}})
	n(proto.NotifyNotice, proto.Notice{ID: "far1", Status: hostile("asking"), Title: hostile("notice title"), Body: hostile("notice body")})
	n(proto.NotifyChatsChanged, proto.ChatsChangedParams{IDs: []string{hostile("evil"), "far2"}})
	n(proto.NotifyConfigRefused, proto.ConfigRefusedParams{Message: hostile("config refused")})
}
