package config

import (
	"fmt"
	"path/filepath"
	"time"
)

// DefaultSetupTimeout bounds a `[worktree] setup` command when the config
// gives no setup_timeout.
const DefaultSetupTimeout = 5 * time.Minute

// WorktreeConfig is the worktree setting: `worktree = true` (every new chat
// made in a git repository gets a worktree of its own unless told
// otherwise), or the `[worktree]` table:
//
//	[worktree]
//	default = true            # the same as worktree = true
//	dir = "/home/me/wt"       # where worktrees are made (default: <agent home>/worktrees)
//	setup = ["make", "deps"]  # run in a fresh worktree before the harness starts
//	setup_timeout = "2m"      # how long setup may take (default 5m)
type WorktreeConfig struct {
	// Default makes --worktree the default of new chats.
	Default bool
	// Dir is the folder worktrees are made in; empty means the agent
	// home's worktrees/.
	Dir string
	// Setup is an argv run in each fresh worktree; empty means none.
	Setup []string
	// SetupTimeout bounds Setup.
	SetupTimeout time.Duration
}

// Timeout is SetupTimeout, or DefaultSetupTimeout when unset.
func (w WorktreeConfig) Timeout() time.Duration {
	if w.SetupTimeout > 0 {
		return w.SetupTimeout
	}
	return DefaultSetupTimeout
}

// UnmarshalTOML reads `worktree = true` or the `[worktree]` table.
func (w *WorktreeConfig) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		w.Default = v
		return nil
	case map[string]any:
		for k, val := range v {
			switch k {
			case "default":
				b, ok := val.(bool)
				if !ok {
					return fmt.Errorf("worktree.default: want true or false, got %T", val)
				}
				w.Default = b
			case "dir":
				s, ok := val.(string)
				if !ok || !filepath.IsAbs(s) {
					return fmt.Errorf("worktree.dir: want an absolute path, got %v", val)
				}
				w.Dir = filepath.Clean(s)
			case "setup":
				list, ok := val.([]any)
				if !ok || len(list) == 0 {
					return fmt.Errorf("worktree.setup: want a command as a list of strings (argv), got %v", val)
				}
				w.Setup = nil
				for _, e := range list {
					s, ok := e.(string)
					if !ok {
						return fmt.Errorf("worktree.setup: want strings, got %T", e)
					}
					w.Setup = append(w.Setup, s)
				}
				if w.Setup[0] == "" {
					return fmt.Errorf("worktree.setup: empty command name")
				}
			case "setup_timeout":
				s, ok := val.(string)
				d, err := time.ParseDuration(s)
				if !ok || err != nil || d <= 0 {
					return fmt.Errorf("worktree.setup_timeout: want a duration such as \"2m\", got %v", val)
				}
				w.SetupTimeout = d
			default:
				return fmt.Errorf("worktree: unknown key %q (keys: default, dir, setup, setup_timeout)", k)
			}
		}
		return nil
	}
	return fmt.Errorf("worktree: want true, false or a table, got %T", v)
}
