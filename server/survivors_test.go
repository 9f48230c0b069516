package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests end survivors of a dead server for real: fake harnesses
// started as the mux starts them (a process group of their own, the
// chat's ACPMUX_CHAT_ID), and records that name them as a server would.

// survivor is a fake harness started by the test, not by a server: when a
// server ends it, nothing of this test did.
type survivor struct {
	t      *testing.T
	cmd    *exec.Cmd
	pgid   int
	reaped chan struct{}
}

// spawnSurvivor starts the fake in mode as a harness of chat. Its stdin is
// a pipe the test holds open, so it waits there. Cleanup kills its group.
func spawnSurvivor(t *testing.T, mode, chat string) *survivor {
	t.Helper()
	cmd := exec.Command(fakeHarness)
	cmd.Env = append(os.Environ(), "ACPMUX_FAKE_MODE="+mode, chatEnv+"="+chat)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &survivor{t: t, cmd: cmd, pgid: cmd.Process.Pid, reaped: make(chan struct{})}
	go func() { cmd.Wait(); close(s.reaped) }()
	t.Cleanup(func() {
		syscall.Kill(-s.pgid, syscall.SIGKILL)
		stdin.Close()
		<-s.reaped
	})
	return s
}

// record is what a server would have recorded of the survivor.
func (s *survivor) record(chat string) runRecord {
	s.t.Helper()
	start, err := processStartTicks(s.cmd.Process.Pid)
	if err != nil {
		s.t.Fatal(err)
	}
	return runRecord{
		Version: recordVersion, Chat: chat, Pid: s.cmd.Process.Pid, Pgid: s.pgid,
		StartTicks: start, BootID: readBootID(), ServerPid: 1 << 22, Started: time.Now().UTC(),
	}
}

// waitMembers waits until the survivor's group has n live processes (a
// child the fake starts is in it) and returns them.
func (s *survivor) waitMembers(n int) []procInfo {
	s.t.Helper()
	var m []procInfo
	waitFor(s.t, fmt.Sprintf("%d processes in group %d", n, s.pgid), func() bool {
		m = groupMembers(s.pgid)
		if len(m) != n {
			s.t.Logf("group %d: %+v", s.pgid, m) // the last one shows why, on a timeout
		}
		return len(m) == n
	})
	return m
}

// waitChildRuns waits until the nohup fake's child runs as itself: counted
// between its fork and its exec, it can still go with a leader killed
// then (TestEndSurvivorLeavesOthersAlone lost its orphan so, under load).
func (s *survivor) waitChildRuns() {
	s.t.Helper()
	waitFor(s.t, "the fake's child to run", func() bool {
		for _, p := range groupMembers(s.pgid) {
			if p.pid != s.pgid && hasEnv(p.pid, "ACPMUX_FAKE_MODE=nohup-child") {
				return true
			}
		}
		return false
	})
}

// loseLeader kills the survivor's leader alone, as the parent-death signal
// does when a server dies, leaving the rest of its group running.
func (s *survivor) loseLeader() {
	s.t.Helper()
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.reaped
}

// orphan turns a "nohup" survivor into what a dead server leaves: it
// returns the record of it naming chat, taken while its leader ran, and
// then kills the leader, leaving the child alone in the group. The child
// must run as itself first: counted between its fork and its exec, it
// can go with the leader (each of the tests that use this lost it so on
// a loaded machine before it waited).
func (s *survivor) orphan(chat string) runRecord {
	s.t.Helper()
	s.waitChildRuns()
	s.waitMembers(2)
	rec := s.record(chat)
	s.loseLeader()
	s.waitMembers(1)
	return rec
}

// alive reports whether the group has a live process.
func (s *survivor) alive() bool { return len(groupMembers(s.pgid)) > 0 }

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestEndSurvivorWithItsLeader: a group whose leader still runs with the
// recorded start time is ended whole: politely (a child in the group goes
// with it), or with SIGKILL after the grace period for one that ignores
// SIGTERM and SIGHUP.
func TestEndSurvivorWithItsLeader(t *testing.T) {
	boot := readBootID()
	if boot == "" {
		t.Skip("no boot id on this system: records are never acted on")
	}
	withChild := spawnSurvivor(t, "child", "a1")
	withChild.waitMembers(2)
	stubborn := spawnSurvivor(t, "stubborn", "b2")
	waitFor(t, "the stubborn fake to ignore SIGTERM", func() bool { return ignores(stubborn.cmd.Process.Pid, syscall.SIGTERM) })

	endSurvivors([]runRecord{withChild.record("a1"), stubborn.record("b2")}, boot, 50*time.Millisecond, quietLog())
	if withChild.alive() || stubborn.alive() {
		t.Fatalf("left: %v %v", groupMembers(withChild.pgid), groupMembers(stubborn.pgid))
	}
}

// TestEndSurvivorWithoutItsLeader: once the leader has died with the
// server, what is left of its group is recognised by the chat's id in its
// environment, and ended.
func TestEndSurvivorWithoutItsLeader(t *testing.T) {
	boot := readBootID()
	if boot == "" {
		t.Skip("no boot id on this system: records are never acted on")
	}
	s := spawnSurvivor(t, "nohup", "c3")
	rec := s.orphan("c3")
	if ok, why := ownedGroup(rec, boot); !ok {
		t.Fatalf("the rest of the group (%v) is not recognised: %s", groupMembers(s.pgid), why)
	}
	if !endSurvivor(rec, boot, time.Minute, quietLog()) {
		t.Fatal("nothing ended")
	}
	if s.alive() {
		t.Fatalf("left: %v", groupMembers(s.pgid))
	}
}

// TestEndSurvivorLeavesOthersAlone: a record never leads to a process it
// cannot prove is its harness's: a pid whose start time differs (reused),
// a record from another boot, one with no start time, and a leaderless
// group whose processes are another chat's.
func TestEndSurvivorLeavesOthersAlone(t *testing.T) {
	boot := readBootID()
	if boot == "" {
		t.Skip("no boot id on this system: records are never acted on")
	}
	running := spawnSurvivor(t, "echo", "d4")
	running.waitMembers(1)
	reused := running.record("d4")
	reused.StartTicks++
	otherBoot := running.record("d4")
	otherBoot.BootID = "another-boot"
	noStart := running.record("d4")
	noStart.StartTicks = 0

	orphan := spawnSurvivor(t, "nohup", "e5")
	otherChat := orphan.orphan("f6") // the group carries e5's id, not f6's

	for name, rec := range map[string]runRecord{"reused pid": reused, "other boot": otherBoot, "no start time": noStart, "other chat": otherChat} {
		if ok, why := ownedGroup(rec, boot); ok {
			t.Errorf("%s: taken for the harness's group (%s)", name, why)
		}
		if endSurvivor(rec, boot, time.Minute, quietLog()) {
			t.Errorf("%s: something was ended", name)
		}
	}
	if !running.alive() || !orphan.alive() {
		t.Fatal("a process the records do not prove theirs was ended")
	}
}

// TestServerEndsSurvivorsBeforeListening: a server starting on a home
// where a dead server left a harness (its leader gone, a child in its
// group ignoring SIGHUP) ends that group before it answers, starts the
// chat again, and leaves alone a live process whose pid a record names
// with another start time.
func TestServerEndsSurvivorsBeforeListening(t *testing.T) {
	if readBootID() == "" {
		t.Skip("no boot id on this system: records are never acted on")
	}
	w := newWorld(t, false)
	chat := w.create("shell", nil)
	left := spawnSurvivor(t, "nohup", chat)
	leftRec := left.orphan(chat)

	other := w.create("shell", nil)
	stranger := spawnSurvivor(t, "echo", "someone-else")
	stranger.waitMembers(1)
	reused := stranger.record(other)
	reused.StartTicks--
	w.writeRecords(leftRec, reused)

	r := w.serve()
	if left.alive() {
		t.Fatalf("the survivor still runs once the server answers: %v", groupMembers(left.pgid))
	}
	if !stranger.alive() {
		t.Fatal("a process named by a record with another start time was ended")
	}
	recs := r.waitRecords(2)
	pids := map[string]int{}
	for _, rec := range recs {
		id, _ := rec.Getenv(chatEnv)
		pids[id] = rec.Pid
	}
	if pids[chat] == 0 || pids[chat] == leftRec.Pid || pids[other] == 0 {
		t.Fatalf("chats not started again: %v (the dead one was %d)", pids, leftRec.Pid)
	}
}

// TestParseStat reads the fields the records need, whatever the command
// name holds.
func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		line string
		want procInfo
		bad  bool
	}{
		{line: "4242 (claude) S 1 4242 4242 34816 4242 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 1 2", want: procInfo{pid: 4242, state: 'S', pgrp: 4242, start: 987654}},
		{line: "77 (a) b) (c) Z 1 70 70 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12 0 0", want: procInfo{pid: 77, state: 'Z', pgrp: 70, start: 12}},
		{line: "77 (x y) R 1 70", bad: true},
		{line: "no parens at all", bad: true},
		{line: "9 (x) S 1 zz 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12", bad: true},
	} {
		got, err := parseStat([]byte(c.line))
		if c.bad {
			if err == nil {
				t.Errorf("%q: parsed as %+v", c.line, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.line, got, err, c.want)
		}
	}
	self, err := readProc(os.Getpid())
	if err != nil || self.pid != os.Getpid() || self.start == 0 || !self.live() {
		t.Fatalf("this process: %+v %v", self, err)
	}
}

// ignores reports whether a process ignores sig (SigIgn in its status).
func ignores(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range bytes.Lines(b) {
		if v, ok := strings.CutPrefix(string(line), "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}
