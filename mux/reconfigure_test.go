package mux

import (
	"maps"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestReconfigure: a config put in effect while a chat runs leaves its
// process alone; the next start of a chat (a restart here) takes the new
// harness table, and no new chat is handed a prewarmed harness started
// under the old one.
func TestReconfigure(t *testing.T) {
	r := newRig(t, "echo", func(c *config.Config, _ *Options) {
		c.Pool.Size = config.PoolSize{PerHarness: map[string]int{"shell": 1}}
	})
	if err := r.mux.Fill(); err != nil {
		t.Fatal(err)
	}
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	recs := r.waitRecords(2) // the pooled one and the chat's
	pid := r.mux.State(m.ID).Pid

	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{}
	for name, h := range r.cfg.Harness {
		h.Env = maps.Clone(h.Env)
		h.Env["CONFIG_MARK"] = "v2"
		cfg.Harness[name] = h
	}
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.mux.Reconfigure(cfg, table)
	if st := r.mux.State(m.ID); st.Pid != pid || !st.Status.Live() {
		t.Fatalf("the running chat changed with the config: pid %d (was %d), %s", st.Pid, pid, st.Status)
	}
	if n := r.mux.PoolSize("shell"); n != 0 {
		t.Fatalf("%d prewarmed harnesses of the old config are kept", n)
	}
	if got := len(r.records()); got != len(recs) {
		t.Fatalf("reconfiguring started %d harnesses", got-len(recs))
	}
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	recs = r.waitRecords(3)
	if mark, _ := recs[2].Getenv("CONFIG_MARK"); mark != "v2" {
		t.Fatalf("the start after Reconfigure: CONFIG_MARK=%q, want v2", mark)
	}
	// A new chat with no folders spawns under the new config: the pool
	// fills again from it.
	meta, err := r.mux.CreateAndStart(sessions.NewChat{Harness: "shell"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	recs = r.waitRecords(4)
	if mark, _ := recs[3].Getenv("CONFIG_MARK"); mark != "v2" {
		t.Fatalf("a new chat after Reconfigure: CONFIG_MARK=%q, want v2 (not a prewarmed harness of the old config)", mark)
	}
	if r.mux.State(meta.ID).Pid != recs[3].Pid {
		t.Fatalf("the new chat runs pid %d, not the start recorded (%d)", r.mux.State(meta.ID).Pid, recs[3].Pid)
	}
}

// TestReconfigureTransport: a harness the config moves from a pty to ACP
// is started over ACP at the chat's next start once it has stopped; while
// it runs, a config that moves it back leaves its process alone.
func TestReconfigureTransport(t *testing.T) {
	r := newRig(t, "echo", nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	r.mux.Stop(m.ID)

	acpCfg := config.Defaults()
	acpCfg.Harness = map[string]config.HarnessConfig{"shell": {Command: fakeACP, Transport: "acp", Env: map[string]string{"ACPMUX_FAKE_STATE": t.TempDir()}}}
	acpTable, err := harness.NewTable(acpCfg)
	if err != nil {
		t.Fatal(err)
	}
	r.mux.Reconfigure(acpCfg, acpTable)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	runtime := func() chatRunner {
		r.mux.mu.Lock()
		defer r.mux.mu.Unlock()
		return r.mux.chats[m.ID]
	}
	if _, ok := runtime().(*acpChat); !ok {
		t.Fatalf("the chat's runtime is %T after its harness moved to ACP", runtime())
	}
	waitFor(t, "the ACP agent to be ready", func() bool { return r.mux.State(m.ID).Status == proto.StatusWaiting })
	pid := r.mux.State(m.ID).Pid

	r.mux.Reconfigure(r.cfg, r.table)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	if _, ok := runtime().(*acpChat); !ok || r.mux.State(m.ID).Pid != pid {
		t.Fatalf("a running chat lost its process to a config change: %T, pid %d (was %d)", runtime(), r.mux.State(m.ID).Pid, pid)
	}
}
