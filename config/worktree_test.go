package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWorktreeConfig(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       WorktreeConfig
		err        string
	}{
		{name: "absent", text: "", want: WorktreeConfig{}},
		{name: "bool", text: "worktree = true\n", want: WorktreeConfig{Default: true}},
		{name: "table", text: "[worktree]\ndefault = true\ndir = \"/srv/wt\"\nsetup = [\"make\", \"deps\"]\nsetup_timeout = \"2m\"\n",
			want: WorktreeConfig{Default: true, Dir: "/srv/wt", Setup: []string{"make", "deps"}, SetupTimeout: 2 * time.Minute}},
		{name: "relative dir", text: "[worktree]\ndir = \"wt\"\n", err: "worktree.dir"},
		{name: "setup as a string", text: "[worktree]\nsetup = \"make deps\"\n", err: "worktree.setup"},
		{name: "bad timeout", text: "[worktree]\nsetup_timeout = \"soon\"\n", err: "worktree.setup_timeout"},
		{name: "unknown key", text: "[worktree]\ndirs = \"/x\"\n", err: `unknown key "dirs"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Load = %v, want an error with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Worktree, c.want) {
				t.Errorf("Worktree = %+v, want %+v", cfg.Worktree, c.want)
			}
		})
	}
	if got := (WorktreeConfig{}).Timeout(); got != DefaultSetupTimeout {
		t.Errorf("default Timeout = %v", got)
	}
}
