package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// reviveChats is how many ACP chats run when the server is killed.
const reviveChats = 20

// reviveInit is one initialize the ACP fake answered (its
// ACPMUX_FAKE_INIT_LOG).
type reviveInit struct {
	Chat  string `json:"chat"`
	Pid   int    `json:"pid"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

func readReviveInits(t *testing.T, path string) []reviveInit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []reviveInit
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r reviveInit
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v: %q", path, err, sc.Text())
		}
		runs = append(runs, r)
	}
	return runs
}

// mostAtOnce returns how many of runs overlap at most at one moment.
func mostAtOnce(runs []reviveInit) int {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, r := range runs {
		edges = append(edges, edge{r.Start, 1}, edge{r.End, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta // an end before a start at the same instant
	})
	most, now := 0, 0
	for _, e := range edges {
		now += e.delta
		most = max(most, now)
	}
	return most
}

// busyLoops starts n shell loops that spin until the test ends: a loaded
// machine.
func busyLoops(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
}

// reviveLine is the server's log line for a chat it started again.
var reviveLine = regexp.MustCompile(`msg="chat started again after the server died" chat=(\S+) diedServerPid=(\d+)`)

// TestReviveQueueAfterKill: 20 ACP chats run, each used (prompted) in a
// known order, when the server is killed with SIGKILL. The next server,
// on a loaded machine (two busy loops) and with agents whose initialize
// costs CPU time (a short init timeout, so that all 20 at once would miss
// it), starts every one of them again: none failed, never more than
// max(2, CPUs) initializing at once, the most recently used first.
func TestReviveQueueAfterKill(t *testing.T) {
	c := newCLI(t)
	inits := filepath.Join(c.root, "inits.jsonl")
	config := fmt.Sprintf("[acp]\ninit_timeout = \"1s\"\n[harness.agent]\ncommand = %q\ntransport = \"acp\"\n"+
		"env = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_INIT_BURN = \"100ms\", ACPMUX_FAKE_INIT_LOG = %q }\n",
		buildACPFake(t), c.dir("agent-state"), inits)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range reviveChats {
		ids = append(ids, c.chat("new", "--harness", "agent", "--json").ID)
	}

	first := startForeground(t, c)
	// One at a time, so the first server's starts do not stampede.
	for _, id := range ids {
		srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: id}, nil)
		srvWaitFor(t, "chat "+id+" to be ready", func() bool {
			st := surviveStatuses(t, c.home)[id]
			if st == "failed" || st == "exited" {
				t.Fatalf("chat %s %s on the first server", id, st)
			}
			return st == "waiting"
		})
	}
	// Used in an order of their own: the odd ones, then the even ones.
	var used []string
	for i := 1; i < len(ids); i += 2 {
		used = append(used, ids[i])
	}
	for i := 0; i < len(ids); i += 2 {
		used = append(used, ids[i])
	}
	for _, id := range used {
		if r := c.run("prompt", id, "hi"); r.code != 0 {
			t.Fatalf("prompt %s: exit %d, %q", id, r.code, r.stderr)
		}
	}
	srvWaitFor(t, "every chat's last use recorded", func() bool {
		for _, id := range ids {
			b, err := os.ReadFile(filepath.Join(c.home, proto.RunningDir, id+".json"))
			var rec struct {
				Used time.Time `json:"used"`
			}
			if err != nil || json.Unmarshal(b, &rec) != nil || rec.Used.IsZero() {
				return false
			}
		}
		return true
	})

	killed := time.Now().UnixNano()
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.wait(t)
	busyLoops(t, 2)
	startForeground(t, c)
	srvWaitFor(t, "all 20 chats started again and ready", func() bool {
		st := surviveStatuses(t, c.home)
		ready := 0
		for _, id := range ids {
			switch st[id] {
			case "waiting":
				ready++
			case "failed", "stopped", "exited":
				log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
				t.Fatalf("chat %s is %s after the restart: %v\nthe log:\n%s", id, st[id], st, log)
			}
		}
		return ready == len(ids)
	})

	var revived []reviveInit
	for _, r := range readReviveInits(t, inits) {
		if r.Start > killed {
			revived = append(revived, r)
		}
	}
	started := map[string]bool{}
	for _, r := range revived {
		started[r.Chat] = true
	}
	if len(started) != len(ids) {
		t.Fatalf("%d chats initialized after the restart, want %d: %+v", len(started), len(ids), revived)
	}
	if bound, most := max(2, runtime.NumCPU()), mostAtOnce(revived); most > bound {
		t.Fatalf("%d agents initialized at once after the restart, want at most %d", most, bound)
	}
	if len(revived) > len(ids) {
		t.Logf("%d initialize retries after timeouts", len(revived)-len(ids))
	}

	log, err := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range reviveLine.FindAllStringSubmatch(string(log), -1) {
		if pid, _ := strconv.Atoi(m[2]); pid == first.cmd.Process.Pid && !slices.Contains(order, m[1]) {
			order = append(order, m[1])
		}
	}
	want := slices.Clone(used)
	slices.Reverse(want) // the most recently used first
	if !slices.Equal(order, want) {
		t.Fatalf("started again in the order\n%v\nwant the most recently used first\n%v", order, want)
	}
}
