package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
)

// writeCodexRollout writes a rollout file as Codex does: its day folder
// and name in local time, the session meta record on its first line.
func writeCodexRollout(t *testing.T, codexHome, id, cwd string, at time.Time) {
	t.Helper()
	dir := filepath.Join(codexHome, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"timestamp":%q,"type":"session_meta","payload":{"id":%q,"timestamp":%q,"cwd":%q,"originator":"codex_cli_rs","source":"cli"}}`+"\n",
		at.UTC().Format("2006-01-02T15:04:05.000Z"), id, at.UTC().Format("2006-01-02T15:04:05.000Z"), cwd)
	name := "rollout-" + at.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindCodexSessionsByFolderAndWindow(t *testing.T) {
	home := t.TempDir()
	base := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	sessions := []struct {
		id, cwd string
		at      time.Time
	}{
		{"00000000-0000-4000-8000-000000000001", "/src/app", base.Add(-time.Hour)},
		{"00000000-0000-4000-8000-000000000002", "/src/app", base.Add(time.Minute)},
		{"00000000-0000-4000-8000-000000000003", "/src/other", base.Add(time.Minute)},
		{"00000000-0000-4000-8000-000000000004", "/src/app", base.Add(48 * time.Hour)},
	}
	for _, s := range sessions {
		writeCodexRollout(t, home, s.id, s.cwd, s.at)
	}
	// Not rollouts: another name, and a first line that is no session meta.
	day := filepath.Join(home, "sessions", "2026", "03", "04")
	_ = os.WriteFile(filepath.Join(day, "notes.jsonl"), []byte("{}\n"), 0o644)
	_ = os.WriteFile(filepath.Join(day, "rollout-2026-03-04T10-00-00-00000000-0000-4000-8000-000000000009.jsonl"), []byte(`{"type":"event_msg"}`+"\n"), 0o644)

	env := []string{"HOME=/nowhere", "CODEX_HOME=" + home}
	ids := func(found []CodexSession) []string {
		var out []string
		for _, s := range found {
			out = append(out, s.ID)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name     string
		cwd      string
		from, to time.Time
		want     []string
	}{
		{"the window", "/src/app", base, base.Add(time.Hour), []string{sessions[1].id}},
		{"the folder", "/src/other", base, base.Add(time.Hour), []string{sessions[2].id}},
		{"no lower bound", "/src/app", time.Time{}, base.Add(time.Hour), []string{sessions[0].id, sessions[1].id}},
		{"no bounds", "/src/app", time.Time{}, time.Time{}, []string{sessions[0].id, sessions[1].id, sessions[3].id}},
		{"a start to the millisecond", "/src/app", base.Add(time.Minute + 300*time.Microsecond), base.Add(time.Hour), []string{sessions[1].id}},
		{"nothing", "/src/app", base.Add(2 * time.Hour), base.Add(3 * time.Hour), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(FindCodexSessions(env, tt.cwd, tt.from, tt.to)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	if !CodexHasSession(env, sessions[3].id) || CodexHasSession(env, "00000000-0000-4000-8000-000000000009") || CodexHasSession(env, "../x") {
		t.Fatal("CodexHasSession")
	}
	// HOME without CODEX_HOME: ~/.codex.
	if got := FindCodexSessions([]string{"HOME=" + t.TempDir()}, "/src/app", time.Time{}, time.Time{}); len(got) != 0 {
		t.Fatalf("another home found %v", got)
	}
}

func TestWhichHarnessesResume(t *testing.T) {
	table, err := NewTable(&config.Config{Harness: map[string]config.HarnessConfig{
		"mine":  {Command: "my-agent"},
		"mycdx": {Command: "my-codex", Kind: "codex"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"claude": true, "codex": true, "gemini": true, "shell": false, "opencode": true, "mine": false, "mycdx": true} {
		if s, _ := table.Get(name); s.Resumes() != want {
			t.Errorf("%s resumes = %v, want %v", name, s.Resumes(), want)
		}
	}
}
