package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// The benchmarks of a server and a TUI holding many chats: the CPU they
// use while the chats are idle, their memory, and their CPU while every
// chat prints a line a second. Each starts a real server, its chats, and
// then the real TUI in a pty; it measures only once the TUI has drawn them,
// sized their ptys to its pane, and the two processes have settled.

// idleHarness prints a prompt once and falls silent, as an agent at its
// prompt does.
var idleHarness = config.HarnessConfig{Command: "/bin/sh", Args: []string{"-c", "printf '" + idlePrompt + " '; exec sleep 3600"}}

// The settling: CPU is sampled every settleEvery; server and TUI have
// settled once the last settleSpan used no more than the limit given.
// Past settleMax the measurement goes ahead and says it did not settle.
const (
	settleEvery = 100 * time.Millisecond
	settleSpan  = time.Second
	settleMax   = 30 * time.Second
)

// tuiBench is a server with its chats and a TUI showing them, the rig's own
// Remote closed.
type tuiBench struct {
	r       *serverRig
	tui     *tuiProcess
	ids     []string
	settled bool
	waited  time.Duration // from the TUI's start to the measurement
}

// startTUIBench starts a server, n chats of h, waits until ready holds for
// each, starts the TUI and waits for its first frame and for it to have
// sized every chat's pty, closes the rig's Remote, and waits until server
// and TUI have used at most settleCPU seconds of CPU over one second.
func startTUIBench(binary, home string, h config.HarnessConfig, n int, ready func(r *serverRig, id string) bool, settleCPU float64) (*tuiBench, error) {
	r, err := newServerRig(binary, home, map[string]config.HarnessConfig{"bench": h})
	if err != nil {
		return nil, err
	}
	b := &tuiBench{r: r}
	if err := b.setUp(n, ready, settleCPU); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// setUp starts the chats and the TUI and waits as startTUIBench says.
func (b *tuiBench) setUp(n int, ready func(r *serverRig, id string) bool, settleCPU float64) error {
	r := b.r
	if err := r.watch(); err != nil {
		return err
	}
	var err error
	if b.ids, err = r.startChats("bench", n); err != nil {
		return err
	}
	if err := r.waitAll(b.ids, "ready", func(id string) bool { return ready(r, id) }); err != nil {
		return err
	}
	begin := time.Now()
	if b.tui, err = startTUI(r.binary, "chats "+strconv.Itoa(n)); err != nil {
		return err
	}
	if err := b.tui.waitReady(); err != nil {
		return err
	}
	if err := r.waitAll(b.ids, "sized by the TUI", r.resizedByTUI); err != nil {
		return err
	}
	r.unwatch()
	if b.settled, err = settle(settleCPU, r.pid, b.tui.pid()); err != nil {
		return err
	}
	b.waited = time.Since(begin)
	return nil
}

// close ends the TUI and the server.
func (b *tuiBench) close() {
	if b.tui != nil {
		if err := b.tui.close(); err != nil {
			fmt.Fprintln(os.Stderr, "benchtool:", err)
		}
	}
	b.r.close()
}

// settle waits until the processes have used at most limit seconds of CPU
// over the last settleSpan, sampling every settleEvery, for at most
// settleMax; it reports whether they settled.
func settle(limit float64, pids ...int) (bool, error) {
	var samples []uint64
	deadline := time.Now().Add(settleMax)
	window := int(settleSpan / settleEvery)
	for {
		t, err := ticksOf(pids...)
		if err != nil {
			return false, err
		}
		samples = append(samples, t)
		if n := len(samples); n > window && float64(samples[n-1]-samples[n-1-window])/userHZ <= limit {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(settleEvery)
	}
}

// measureCPU returns the CPU seconds (user and system) each process uses
// over secs seconds, in the order of pids.
func measureCPU(secs float64, pids ...int) ([]float64, error) {
	before := make([]uint64, len(pids))
	for i, pid := range pids {
		var err error
		if before[i], err = procTicks(pid); err != nil {
			return nil, err
		}
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	used := make([]float64, len(pids))
	for i, pid := range pids {
		after, err := procTicks(pid)
		if err != nil {
			return nil, err
		}
		used[i] = float64(after-before[i]) / userHZ
	}
	return used, nil
}

// idleShown reports whether a chat shows its prompt and waits for input.
func idleShown(r *serverRig, id string) bool {
	if r.remote.State(id).Status != proto.StatusWaiting {
		return false
	}
	return strings.HasPrefix(lastRow(r.remote.Render(id, 0)), idlePrompt)
}

// printing reports whether a chat runs and has printed a line.
func printing(r *serverRig, id string) bool {
	return r.remote.State(id).Status.Live() && lastRow(r.remote.Render(id, 0)) != ""
}

// emitSetup prints how the measured state was reached.
func emitSetup(b *tuiBench) {
	emit("chats", len(b.ids))
	emit("server_pid", b.r.pid)
	emit("tui_pid", b.tui.pid())
	emit("settled", b.settled)
	emit("settle_seconds", b.waited.Seconds())
}

// serverIdle holds n idle chats in a server with the TUI showing them, and
// measures the CPU seconds server and TUI use over secs seconds.
func serverIdle(binary, home string, n int, secs float64) error {
	b, err := startTUIBench(binary, home, idleHarness, n, idleShown, 0.02)
	if err != nil {
		return err
	}
	defer b.close()
	_, err = b.holdAndEmit("server-idle", secs, false)
	return err
}

// holdAndEmit measures the CPU server and TUI use over secs seconds,
// checks that every chat still runs (and, with mustDraw, that the TUI drew
// something meanwhile), and prints what it measured as benchmark name; it
// returns the seconds of CPU used.
func (b *tuiBench) holdAndEmit(name string, secs float64, mustDraw bool) (float64, error) {
	out0 := b.tui.bytesRead()
	used, err := measureCPU(secs, b.r.pid, b.tui.pid())
	if err != nil {
		return 0, err
	}
	out := b.tui.bytesRead() - out0
	if err := b.r.checkLive(b.ids); err != nil {
		return 0, err
	}
	if out == 0 && mustDraw {
		return 0, fmt.Errorf("the TUI drew nothing in %g s while its selected chat printed a line a second", secs)
	}
	emit("bench", name)
	emitSetup(b)
	emit("held_seconds", secs)
	emit("server_cpu_seconds", used[0])
	emit("tui_cpu_seconds", used[1])
	emit("tui_output_bytes", out)
	emit("cpu_seconds", used[0]+used[1])
	return used[0] + used[1], nil
}

// serverMemory holds n idle chats in a server with the TUI showing them,
// and reads the proportional set size (PSS: shared pages split between
// the processes that map them) of server and TUI.
func serverMemory(binary, home string, n int) error {
	b, err := startTUIBench(binary, home, idleHarness, n, idleShown, 0.02)
	if err != nil {
		return err
	}
	defer b.close()
	_, err = b.emitMemory("server-memory")
	return err
}

// emitMemory reads the PSS and RSS of server and TUI, checks every chat
// still runs, prints them as benchmark name and returns the PSS of both.
// It reads them once their sum has held still (steadyMemory): an idle
// process gives back what its start-up used a moment after it goes quiet
// (package memtrim), and a TUI left open is measured as it stays. With
// BENCH_MEMORY_HOLD=SECONDS set it reads them that long after the
// processes settled instead.
func (b *tuiBench) emitMemory(name string) (int64, error) {
	if v := os.Getenv("BENCH_MEMORY_HOLD"); v != "" {
		secs, err := seconds(v)
		if err != nil {
			return 0, fmt.Errorf("BENCH_MEMORY_HOLD: %w", err)
		}
		time.Sleep(time.Duration(secs * float64(time.Second)))
		emit("held_seconds", secs)
	} else {
		waited, steady, err := steadyMemory(b.r.pid, b.tui.pid())
		if err != nil {
			return 0, err
		}
		emit("memory_steady", steady)
		emit("memory_wait_seconds", waited.Seconds())
	}
	srvPss, srvRss, err := memoryOf(b.r.pid)
	if err != nil {
		return 0, err
	}
	tuiPss, tuiRss, err := memoryOf(b.tui.pid())
	if err != nil {
		return 0, err
	}
	// The split is read with the totals, before checkLive's call makes
	// the server run.
	type split struct{ anon, file int64 }
	var parts [2]split
	for i, pid := range []int{b.r.pid, b.tui.pid()} {
		if parts[i].anon, parts[i].file, err = pssParts(pid); err != nil {
			return 0, err
		}
	}
	if err := b.r.checkLive(b.ids); err != nil {
		return 0, err
	}
	if err := writePages(name, b.r.pid, b.tui.pid()); err != nil {
		return 0, err
	}
	emit("bench", name)
	emitSetup(b)
	emit("server_pss_bytes", srvPss)
	emit("server_rss_bytes", srvRss)
	emit("tui_pss_bytes", tuiPss)
	emit("tui_rss_bytes", tuiRss)
	emit("pss_bytes", srvPss+tuiPss)
	for i, name := range []string{"server", "tui"} {
		emit(name+"_pss_anon_bytes", parts[i].anon)
		emit(name+"_pss_file_bytes", parts[i].file)
	}
	return srvPss + tuiPss, nil
}

// writePages, with BENCH_MEMORY_PAGES=DIR set, writes `benchtool pages`'
// tables of the server's and the TUI's resident binary pages to
// DIR/NAME-server.txt and DIR/NAME-tui.txt.
func writePages(name string, server, tui int) error {
	dir := os.Getenv("BENCH_MEMORY_PAGES")
	if dir == "" {
		return nil
	}
	for _, p := range []struct {
		who string
		pid int
	}{{"server", server}, {"tui", tui}} {
		bin, err := os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/exe")
		if err != nil {
			return fmt.Errorf("BENCH_MEMORY_PAGES: find the %s's binary: %w", p.who, err)
		}
		var buf bytes.Buffer
		if err := pages(p.pid, bin, &buf); err != nil {
			return fmt.Errorf("BENCH_MEMORY_PAGES: %s: %w", p.who, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+p.who+".txt"), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("BENCH_MEMORY_PAGES: %w", err)
		}
	}
	return nil
}

// serverScale runs n chats that each print a line a second in a server,
// with the TUI showing them, and measures the CPU server and TUI use over
// secs seconds, as a percentage of one core.
func serverScale(binary, home string, n int, secs float64) error {
	harness, err := scaleHarness()
	if err != nil {
		return err
	}
	// Settled: no more than the goal's 5% of a core over a second.
	b, err := startTUIBench(binary, home, harness, n, printing, 0.05)
	if err != nil {
		return err
	}
	defer b.close()
	used, err := b.holdAndEmit("server-scale", secs, true)
	if err != nil {
		return err
	}
	emit("cpu_percent", used/secs*100)
	return nil
}

// Memory counts as steady when the summed PSS of the processes moved by
// less than steadyBy (of the latest figure) over steadyFor, read every
// steadyEvery; steadyMemory gives up after steadyWithin.
const (
	steadyEvery  = 250 * time.Millisecond
	steadyFor    = 3 * time.Second
	steadyBy     = 0.01
	steadyWithin = 30 * time.Second
)

// steadyMemory waits until the summed PSS of pids holds still, and says
// how long it waited and whether it did hold still before steadyWithin.
func steadyMemory(pids ...int) (time.Duration, bool, error) {
	start := time.Now()
	var window []int64 // the readings of the last steadyFor
	keep := int(steadyFor/steadyEvery) + 1
	for {
		var sum int64
		for _, pid := range pids {
			pss, _, err := memoryOf(pid)
			if err != nil {
				return time.Since(start), false, err
			}
			sum += pss
		}
		window = append(window, sum)
		if len(window) > keep {
			window = window[1:]
		}
		if len(window) == keep && float64(slices.Max(window)-slices.Min(window)) <= steadyBy*float64(sum) {
			return time.Since(start), true, nil
		}
		if time.Since(start) >= steadyWithin {
			return time.Since(start), false, nil
		}
		time.Sleep(steadyEvery)
	}
}
