package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// callNoting sends a request and returns its answer and the notifications
// that came before it.
func (w *wire) callNoting(method string, params any) (reply, []map[string]json.RawMessage) {
	w.t.Helper()
	w.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": w.next, "method": method, "params": params})
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(string(b))
	var notes []map[string]json.RawMessage
	for {
		w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
		line, err := w.r.ReadBytes('\n')
		if err != nil {
			w.t.Fatalf("%s: read the answer: %v", method, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			w.t.Fatalf("not JSON: %s", line)
		}
		if _, ok := m["id"]; !ok {
			notes = append(notes, m)
			continue
		}
		var rep reply
		if err := json.Unmarshal(line, &rep); err != nil {
			w.t.Fatal(err)
		}
		if string(rep.ID) != fmt.Sprint(w.next) {
			w.t.Fatalf("%s: answer has id %s, want %d", method, rep.ID, w.next)
		}
		return rep, notes
	}
}

// configRefusals returns the messages of the configRefused notifications
// among notes.
func configRefusals(t *testing.T, notes []map[string]json.RawMessage) []string {
	var out []string
	for _, n := range notes {
		var method string
		json.Unmarshal(n["method"], &method)
		if method != proto.NotifyConfigRefused {
			continue
		}
		var p proto.ConfigRefusedParams
		if err := json.Unmarshal(n["params"], &p); err != nil {
			t.Fatalf("configRefused params: %v: %s", err, n["params"])
		}
		out = append(out, p.Message)
	}
	return out
}

// TestConfigEditedWhileServerRuns: the config file is read again before
// each start. A harness added and one changed are what the next starts
// use, while the chat that runs keeps its process; a bad edit is refused
// with the file, the line and the key, told to the caller, and the last
// good config stays in effect; fixing it takes effect at the next start.
func TestConfigEditedWhileServerRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	var recFile string
	// Each edit lands whole, as an editor that saves by rename writes it:
	// the server watches the file, and a read in the middle of a write
	// would find a shorter config (without "added") good.
	write := func(text string) {
		t.Helper()
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	harnessTable := func(name, mark string) string {
		return fmt.Sprintf("[harness.%s]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, ACPMUX_FAKE_MODE = \"echo\", CONFIG_MARK = %q }\n", name, fakeHarness, recFile, mark)
	}
	r := newRig(t, rigOpt{opt: func(o *Options) { o.ConfigPath = path }})
	recFile = r.recFile
	write("default_harness = \"shell\"\n" + harnessTable("shell", "v1"))
	w := r.dial()

	var a proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "a"}, &a)
	w.ok(proto.MethodStart, proto.ChatParams{ID: a.ID}, nil)
	recA := r.waitRecords(1)[0]
	if mark, _ := recA.Getenv("CONFIG_MARK"); mark != "v1" {
		t.Fatalf("first start did not use the config file: CONFIG_MARK=%q", mark)
	}
	pidA := r.srv.opt.Mux.State(a.ID).Pid

	// Unknown until the file names it.
	w.fails(proto.CodeInvalidParams, proto.MethodNew, proto.NewParams{Harness: "added"})

	write("default_harness = \"shell\"\n" + harnessTable("shell", "v2") + harnessTable("added", "added-1"))
	var b proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "added", Name: "b"}, &b)
	w.ok(proto.MethodStart, proto.ChatParams{ID: b.ID}, nil)
	recs := r.waitRecords(2)
	if mark, _ := recs[1].Getenv("CONFIG_MARK"); mark != "added-1" {
		t.Fatalf("the added harness's start: CONFIG_MARK=%q, want added-1", mark)
	}
	if st := r.srv.opt.Mux.State(a.ID); st.Pid != pidA || !st.Status.Live() {
		t.Fatalf("the running chat's harness changed with the config: pid %d (was %d), %s", st.Pid, pidA, st.Status)
	}

	// A bad edit: the start goes ahead on the last good config, and the
	// caller is told the file, the line and the key.
	write("default_harness = \"shell\"\n" + harnessTable("shell", "v3") + harnessTable("added", "added-2") + "kind = \"robot\"\n")
	var c proto.ChatJSON
	rep, notes := w.callNoting(proto.MethodNew, proto.NewParams{Harness: "added", Name: "c"})
	if rep.Error != nil {
		t.Fatalf("new after a bad edit: %+v", rep.Error)
	}
	json.Unmarshal(rep.Result, &c)
	refusals := configRefusals(t, notes)
	if len(refusals) != 1 {
		t.Fatalf("new after a bad edit: %d configRefused notices, want 1: %q", len(refusals), refusals)
	}
	for _, want := range []string{"config " + path + ": ", "line 8", "harness.added.kind", `"robot" is not one of`, "the last good config stays in effect"} {
		if !strings.Contains(refusals[0], want) {
			t.Errorf("refusal %q lacks %q", refusals[0], want)
		}
	}
	rep, notes = w.callNoting(proto.MethodStart, proto.ChatParams{ID: c.ID})
	if rep.Error != nil {
		t.Fatalf("start after a bad edit: %+v", rep.Error)
	}
	if len(configRefusals(t, notes)) != 1 {
		t.Fatalf("start after a bad edit: the refusal is not told again: %v", notes)
	}
	recs = r.waitRecords(3)
	if mark, _ := recs[2].Getenv("CONFIG_MARK"); mark != "added-1" {
		t.Fatalf("start after a bad edit: CONFIG_MARK=%q, want the last good config's added-1", mark)
	}
	if st := r.srv.opt.Mux.State(a.ID); st.Pid != pidA || !st.Status.Live() {
		t.Fatalf("a bad edit touched the running chat: pid %d (was %d), %s", st.Pid, pidA, st.Status)
	}

	// Fixed: the next start (a restart of the running chat) uses it, and
	// nothing is refused.
	write("default_harness = \"shell\"\n" + harnessTable("shell", "v4"))
	rep, notes = w.callNoting(proto.MethodRestart, proto.ChatParams{ID: a.ID})
	if rep.Error != nil || len(configRefusals(t, notes)) != 0 {
		t.Fatalf("restart after the fix: %+v %v", rep.Error, notes)
	}
	recs = r.waitRecords(4)
	if mark, _ := recs[3].Getenv("CONFIG_MARK"); mark != "v4" {
		t.Fatalf("restart after the fix: CONFIG_MARK=%q, want v4", mark)
	}
	// A chat whose harness the config no longer names is refused, saying so.
	e := w.fails(proto.CodeFailed, proto.MethodRestart, proto.ChatParams{ID: b.ID})
	if !strings.Contains(e.Message, `unknown harness "added"`) {
		t.Fatalf("restart of a chat whose harness was removed: %q", e.Message)
	}
}
