package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentHomeIsNeverAFolder: the agent home, its chats/ and any chat's
// home folder are refused as folders, however spelled, by every way the
// store takes folders; the folder that holds the agent home is not.
func TestAgentHomeIsNeverAFolder(t *testing.T) {
	s := openStore(t)
	parent := filepath.Dir(s.Home())
	link := filepath.Join(parent, "home-link")
	if err := os.Symlink(s.Home(), link); err != nil {
		t.Fatal(err)
	}
	other, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dir, reason string
	}{
		{"the agent home", s.Home(), "is the agent home"},
		{"its chats folder", filepath.Join(s.Home(), "chats"), "is inside the agent home"},
		{"another chat's home folder", other.Cwd, "is inside the agent home"},
		{"a symlink to the agent home", link, "is the agent home"},
		{"a path through the symlink", filepath.Join(link, "chats"), "is inside the agent home"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := chatFiles(t, s)
			_, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tt.dir}})
			fe, ok := AsFolderError(err)
			if !ok || fe.Code() != -32602 || len(fe.Problems) != 1 || !strings.Contains(fe.Problems[0].Reason, tt.reason) {
				t.Fatalf("create with %s: %v, want -32602 saying %q", tt.dir, err, tt.reason)
			}
			if _, err := s.AddFolders(other.ID, []string{tt.dir}); err == nil {
				t.Fatalf("add-dir %s was taken", tt.dir)
			}
			if after := chatFiles(t, s); len(after) != len(before) {
				t.Fatalf("chat files %v, were %v: a refusal wrote", after, before)
			}
		})
	}
	// The folder above the agent home is the user's: allowed.
	if _, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{parent}}); err != nil {
		t.Fatalf("the agent home's parent as a folder: %v", err)
	}
	// Nor may a chat's project be inside it.
	_, err = s.Create(NewChat{Harness: "shell", Cwd: filepath.Join(s.Home(), "chats")})
	if err == nil || !strings.Contains(err.Error(), "inside the agent home") {
		t.Fatalf("a project inside the agent home: %v", err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Fatal("refused for the wrong reason")
	}
}
