package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestPickerRefusesTheAgentHome: the picker's check is the server's
// validator (here the fake's, the store's as the server runs it), which
// refuses the agent home and what is inside it, inline, before anything is
// stored.
func TestPickerRefusesTheAgentHome(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store, err := sessions.OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	fake := newFakeMux(store)
	for _, dir := range []string{store.Home(), filepath.Join(store.Home(), "chats")} {
		_, _, err := checkPicked(fake, "", nil, dir, false)
		if err == nil || !strings.Contains(err.Error(), "agent home") {
			t.Errorf("picked %s: %v, want the agent home refused", dir, err)
		}
	}
	if canon, _, err := checkPicked(fake, "", nil, root, false); err != nil || len(canon) != 1 {
		t.Fatalf("the agent home's parent: %v %v", canon, err)
	}
}
