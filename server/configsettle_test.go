package server

import (
	"os"
	"testing"
	"time"
)

// TestSettleFor: a file changed a moment ago is waited for until it has
// been quiet configSettle, never past configSettleMost in all; one quiet
// long enough, not there, or changed at a time ahead of the clock is read
// at once.
func TestSettleFor(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	ms := time.Millisecond
	cases := []struct {
		name    string
		changed time.Time
		waited  time.Duration
		want    time.Duration
	}{
		{"written 30 ms ago", now.Add(-30 * ms), 0, configSettle - 30*ms},
		{"written just now", now, 0, configSettle},
		{"quiet long enough", now.Add(-configSettle), 0, 0},
		{"not there", time.Time{}, 0, 0},
		{"changed ahead of the clock", now.Add(time.Second), 0, 0},
		{"written on and on", now.Add(-ms), configSettleMost - 20*ms, 20 * ms},
		{"waited the most already", now, configSettleMost, 0},
	}
	for _, c := range cases {
		if got := settleFor(c.changed, now, c.waited); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, got, c.want)
		}
	}
}

// TestACallDuringAnInPlaceSaveReadsWhatWasSaved: a call that reads the
// config while an editor saves it in place (the file truncated, then
// written) waits for the file to settle and puts in effect what was
// saved: never the defaults an empty file parses as.
func TestACallDuringAnInPlaceSaveReadsWhatWasSaved(t *testing.T) {
	callDuringSave(t, "read the config without waiting for the file, written a moment ago, to settle",
		func(c *configRig, saved string) func() {
			saving, err := os.OpenFile(c.path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { saving.Close() })
			return func() {
				if _, err := saving.WriteString(saved); err != nil {
					t.Error(err)
				}
			}
		})
}

// TestACallDuringADeleteAndRenameSaveReadsWhatWasSaved: a call that reads
// the config while an editor saves it by deleting the file and then
// renaming the new one into its place looks again a moment later, and
// puts in effect what was saved: never the defaults of a missing file.
func TestACallDuringADeleteAndRenameSaveReadsWhatWasSaved(t *testing.T) {
	callDuringSave(t, "took the missing file at once for a config removed",
		func(c *configRig, saved string) func() {
			if err := os.Remove(c.path); err != nil {
				t.Fatal(err)
			}
			return func() {
				tmp := c.path + ".new"
				if err := os.WriteFile(tmp, []byte(saved), 0o644); err != nil {
					t.Error(err)
				}
				if err := os.Rename(tmp, c.path); err != nil {
					t.Error(err)
				}
			}
		})
}

// callDuringSave puts a config with a harness "before" in effect, begins
// an editor's save of one with a harness "after" (begin, which returns
// the rest of the save), and makes a call's read of the config, whose
// first wait is when the rest of the save lands. The call must have
// waited (else it missed, said so), and put in effect the config saved,
// and no other. The clock stands still at the file's last change, plus
// what the waits slept: the file looks changed a moment ago however slow
// the machine is.
func callDuringSave(t *testing.T, missed string, begin func(c *configRig, saved string) (land func())) {
	t.Helper()
	c := newConfigRig(t, c0(), false)
	c.write(t, c0()+c.acpTable("before"))
	if err := c.srv.reloadConfig(); err != nil {
		t.Fatal(err)
	}
	gen := c.srv.live.Load().gen
	land := begin(c, c0()+c.acpTable("after"))
	var slept time.Duration
	landed := false
	f := &c.srv.cfgFile
	f.now = func() time.Time { return changedAt(c.path).Add(slept) }
	f.sleep = func(d time.Duration) {
		if !landed {
			land()
			landed = true
		}
		slept += d
	}
	if err := c.srv.reloadConfig(); err != nil {
		t.Fatalf("the call's read of the config: %v", err)
	}
	if !landed {
		t.Fatalf("the call %s", missed)
	}
	if _, ok := c.srv.table().Get("after"); !ok {
		t.Fatalf("the config in effect has harnesses %v, want the one saved", c.srv.table().Names())
	}
	if got := c.srv.live.Load().gen; got != gen+1 {
		t.Fatalf("%d configs put in effect by the save, want 1: another was taken halfway", got-gen)
	}
}
