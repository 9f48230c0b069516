package transfer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/bundle"
)

// TestImportKeepsTheSandbox: a bundle cannot turn a sandbox off. A chat
// that was sandboxed is sandboxed here; one that was not is sandboxed
// when this host's config sandboxes chats of its harness, and the report
// says what it had and what it has, with a note; otherwise it is not.
func TestImportKeepsTheSandbox(t *testing.T) {
	w := newWorld(t)
	plain := chatTOML("k3x9q2", "p", "shell", w.app, nil, nil)
	for _, tc := range []struct {
		name           string
		chat           string
		hostSandboxes  bool
		was, is        bool
		noteMentioning string
	}{
		{"sandboxed there", plain + "sandbox = true\n", false, true, true, "was sandboxed"},
		{"sandboxed here by the config", plain, true, false, true, "sandboxed here"},
		{"sandboxed nowhere", plain, false, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Sandbox = tc.hostSandboxes
			opt := w.importOptions(w.src)
			opt.Chats = chatsvc.New(chatsvc.Options{Store: w.store, Config: func() *config.Config { return cfg },
				Table: func() *harness.Table { return w.table }, Getenv: w.getenv})
			data := craft(t, bundle.Manifest{ChatID: "k3x9q2", Harness: "shell"}, tc.chat)
			rep, err := Import(bytes.NewReader(data), opt)
			if err != nil {
				t.Fatal(err)
			}
			m, err := w.store.Load(rep.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rep.SandboxWas != tc.was || rep.Sandbox != tc.is || m.Sandbox != tc.is {
				t.Errorf("report sandboxWas %v sandbox %v, chat file %v; want %v %v", rep.SandboxWas, rep.Sandbox, m.Sandbox, tc.was, tc.is)
			}
			noted := strings.Contains(strings.Join(rep.Notes, "\n"), tc.noteMentioning)
			if tc.noteMentioning != "" && !noted {
				t.Errorf("notes %q do not say %q", rep.Notes, tc.noteMentioning)
			}
		})
	}
}
