package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// This file ends what a server that died left running. Its harnesses were
// started with a parent-death signal and lose their pty, but a process of
// a harness's group that ignores SIGHUP (a child the harness started, or an
// ACP agent's helpers) can outlive it, unseen by anyone. The next server
// finds them from the records (records.go) and ends each such group as a
// stop does: SIGHUP, SIGTERM and SIGCONT, a grace period, then SIGKILL.
//
// A pid is only trusted with the start time recorded for it, in the same
// boot: the kernel hands out a pid again once its process (and any process
// group or session it names) has gone, and on a small pid_max soon.
//
// Process group P is known to be the one a record's harness led when
//   - process P runs (or is a zombie) with the recorded start time: the
//     group cannot have been recycled while its leader exists; or
//   - no process P exists, and a live member of group P started no earlier
//     than the harness and carries the chat's ACPMUX_CHAT_ID in its
//     environment, as every harness and what it starts inherit: P cannot
//     have been handed out again while that member kept group P alive.
//
// A process P with another start time means P was handed out again, which
// the kernel does only once group P had emptied: nothing of the harness is
// left. Once a group is known to be the harness's, it is signalled as a
// whole (kill(-P)); between the check and the signal the group would have
// to empty and its id be handed out again through the whole pid space.

// survivorGrace is how long a survivor has between the polite signals and
// SIGKILL, as a stopped harness has.
const survivorGrace = 3 * time.Second

// survivorKillWait bounds the wait for a group to empty after SIGKILL.
const survivorKillWait = 10 * time.Second

// chatEnv is the variable every harness gets with its chat's id (see
// harness.Spec.BuildLaunch).
const chatEnv = "ACPMUX_CHAT_ID"

// maxEnviron bounds what is read of a process's environment.
const maxEnviron = 4 << 20

// procInfo is what /proc/<pid>/stat tells of a process.
type procInfo struct {
	pid   int
	state byte
	pgrp  int
	// start is field 22, the start time in clock ticks since boot.
	start uint64
}

// live reports whether the process runs: a zombie has ended.
func (p procInfo) live() bool { return p.state != 'Z' && p.state != 'X' }

// readProc reads /proc/<pid>/stat; an error wrapping fs.ErrNotExist means
// no process has the pid.
func readProc(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			err = fs.ErrNotExist // it ended while being read
		}
		return procInfo{}, err
	}
	return parseStat(b)
}

// parseStat parses a /proc/<pid>/stat line. The command name (field 2)
// may hold spaces and parentheses, so the fields after it are counted from
// its last ')'.
func parseStat(b []byte) (procInfo, error) {
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open {
		return procInfo{}, fmt.Errorf("stat %q: no command name", s)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return procInfo{}, fmt.Errorf("stat %q: pid: %w", s, err)
	}
	// f[0] is field 3 (state), f[2] field 5 (pgrp), f[19] field 22.
	f := strings.Fields(s[end+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, fmt.Errorf("stat of %d: %d fields", pid, len(f)+2)
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procInfo{}, fmt.Errorf("stat of %d: pgrp: %w", pid, err)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procInfo{}, fmt.Errorf("stat of %d: start time: %w", pid, err)
	}
	return procInfo{pid: pid, state: f[0][0], pgrp: pgrp, start: start}, nil
}

// processStartTicks returns a process's start time (field 22 of its stat).
func processStartTicks(pid int) (uint64, error) {
	p, err := readProc(pid)
	return p.start, err
}

// groupMembers returns the live processes of process group pgid.
func groupMembers(pgid int) []procInfo {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var members []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil && p.pgrp == pgid && p.live() {
			members = append(members, p)
		}
	}
	return members
}

// hasEnv reports whether a process's environment holds the entry kv
// ("NAME=value").
func hasEnv(pid int, kv string) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEnviron))
	if err != nil {
		return false
	}
	for entry := range bytes.SplitSeq(b, []byte{0}) {
		if string(entry) == kv {
			return true
		}
	}
	return false
}

// ownedGroup reports whether process group rec.Pgid is still the one the
// record's harness led (see the rules at the top of this file), and says
// why for the log.
func ownedGroup(rec runRecord, boot string) (bool, string) {
	switch {
	case boot == "" || rec.BootID != boot:
		return false, "recorded in another boot"
	case rec.StartTicks == 0:
		return false, "its start time was not recorded"
	case rec.Pgid != rec.Pid || rec.Pgid <= 1:
		return false, "not a group a harness leads"
	}
	leader, err := readProc(rec.Pid)
	switch {
	case err == nil && leader.start == rec.StartTicks:
		return true, "its leader is still there"
	case err == nil:
		return false, "its pid belongs to another process now"
	case !errors.Is(err, fs.ErrNotExist):
		return false, "its leader cannot be read: " + err.Error()
	}
	for _, m := range groupMembers(rec.Pgid) {
		if m.start >= rec.StartTicks && hasEnv(m.pid, chatEnv+"="+rec.Chat) {
			return true, fmt.Sprintf("its leader has gone; process %d of its group runs", m.pid)
		}
	}
	return false, "nothing of it runs"
}

// endSurvivors ends what is left of each record's harness, all at once, and
// returns when each group is empty (or did not empty after SIGKILL, which
// is logged).
func endSurvivors(recs []runRecord, boot string, grace time.Duration, log *slog.Logger) {
	var wg sync.WaitGroup
	for _, rec := range recs {
		wg.Go(func() { endSurvivor(rec, boot, grace, log) })
	}
	wg.Wait()
}

// endSurvivor ends what is left of one record's harness, and reports
// whether it found anything to end.
func endSurvivor(rec runRecord, boot string, grace time.Duration, log *slog.Logger) bool {
	ours, why := ownedGroup(rec, boot)
	if !ours {
		log.Debug("no harness left to end", "chat", rec.Chat, "pgid", rec.Pgid, "why", why)
		return false
	}
	members := groupMembers(rec.Pgid)
	if len(members) == 0 {
		return false
	}
	pids := make([]int, len(members))
	for i, m := range members {
		pids[i] = m.pid
	}
	log.Warn("ending a harness left running by a server that died", "chat", rec.Chat, "pgid", rec.Pgid, "pids", pids, "why", why)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGCONT} {
		_ = syscall.Kill(-rec.Pgid, sig)
	}
	if waitGroupEmpty(rec.Pgid, grace) {
		return true
	}
	_ = syscall.Kill(-rec.Pgid, syscall.SIGKILL)
	if !waitGroupEmpty(rec.Pgid, survivorKillWait) {
		log.Error("a harness left by a server that died still runs after SIGKILL", "chat", rec.Chat, "pgid", rec.Pgid)
	}
	return true
}

// waitGroupEmpty waits up to d for process group pgid to have no live
// process, and reports whether it has none.
func waitGroupEmpty(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	wait := time.Millisecond
	for len(groupMembers(pgid)) > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
	return true
}
