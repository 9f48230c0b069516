package sessions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestOffLimits: the one rule, as a table. The agent home is never
// reachable, whatever folder holds it, but for the chat's own folder when
// that lies inside it; /proc and /sys never are.
func TestOffLimits(t *testing.T) {
	const home = "/home/me/.local/share/acpmux"
	for _, tt := range []struct {
		name, own, p, want string
	}{
		{"a file in a chat run in ~", "/home/me", "/home/me/notes.txt", ""},
		{"the folder that holds the home", "/home/me", "/home/me/.local/share", ""},
		{"the agent home, from a chat run in ~", "/home/me", home, "is the agent home"},
		{"a chat file, from a chat run in ~", "/home/me", home + "/chats/other.toml", "inside the agent home"},
		{"a chat file, from a chat run in /", "/", home + "/chats/other.toml", "inside the agent home"},
		{"the lock, with no chat", "", home + "/acpmux.lock", "inside the agent home"},
		{"its own home folder", home + "/homes/abc", home + "/homes/abc/notes.txt", ""},
		{"its own home folder itself", home + "/homes/abc", home + "/homes/abc", ""},
		{"another chat's home folder", home + "/homes/abc", home + "/homes/abd/x", "inside the agent home"},
		{"a sibling spelt as a prefix", home + "/homes/abc", home + "/homes/abcd/x", "inside the agent home"},
		{"its own worktree", home + "/worktrees/abc", home + "/worktrees/abc/main.go", ""},
		{"a name that only starts like the home", "/home/me", home + "-old/chats/x.toml", ""},
		{"/proc/self/environ", "/", "/proc/self/environ", "is under /proc"},
		{"/proc itself", "/", "/proc", "is under /proc"},
		{"a process's fd", "/proc/1", "/proc/1/fd/3", "is under /proc"},
		{"/sys", "/", "/sys/kernel/mm", "is under /sys"},
		{"/procfs is another name", "/", "/procfs/x", ""},
		{"/system is another name", "/", "/system", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := OffLimits(home, tt.own, tt.p)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("OffLimits(%q, %q) = %q, want %q", tt.own, tt.p, got, tt.want)
			}
		})
	}
	if got := OffLimits("", "/", "/home/me/.local/share/acpmux/chats/x.toml"); got != "" {
		t.Fatalf("with no agent home known: %q", got)
	}
}

// TestOffLimitsFile: the rule on an open file goes by where the file
// really is: a symlink into the agent home, a /proc/self/fd link to a file
// in it, and a proc file system opened by any path are refused.
func TestOffLimitsFile(t *testing.T) {
	user := t.TempDir()
	if c, err := filepath.EvalSymlinks(user); err == nil {
		user = c
	}
	home := filepath.Join(user, "agent")
	if err := os.MkdirAll(filepath.Join(home, "chats"), 0o700); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(home, "chats", "x.toml")
	notes := filepath.Join(user, "notes.txt")
	for _, p := range []string{chat, notes} {
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(user, "link.toml")
	if err := os.Symlink(chat, link); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(chat)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, tt := range []struct {
		name, path, want string
	}{
		{"a file beside the home", notes, ""},
		{"a symlink to a chat file", link, "inside the agent home"},
		{"a chat file by /proc/self/fd", "/proc/self/fd/" + strconv.Itoa(int(held.Fd())), "inside the agent home"},
		{"/proc/self/environ", "/proc/self/environ", "is under /proc"},
		{"/proc/self/status", "/proc/self/status", "is under /proc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open(tt.path)
			if err != nil {
				t.Skipf("cannot open %s here: %v", tt.path, err)
			}
			defer f.Close()
			got := OffLimitsFile(home, user, f)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("OffLimitsFile(%s) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestProcAndSysAreNeverGiven: a folder or a single file under /proc or
// /sys is refused by the validator, by every way the store takes them, and
// so is a project folder there; nothing is written.
func TestProcAndSysAreNeverGiven(t *testing.T) {
	s := openStore(t)
	chat, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	before := chatFiles(t, s)
	for _, dir := range []string{"/proc", "/proc/self", "/sys"} {
		if _, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{dir}}); err == nil || !strings.Contains(err.Error(), "is under /") {
			t.Errorf("--dir %s: %v, want refused for being under /proc or /sys", dir, err)
		}
		if _, err := s.AddFolders(chat.ID, []string{dir}); err == nil {
			t.Errorf("add-dir %s was taken", dir)
		}
		if _, err := s.Create(NewChat{Harness: "shell", Cwd: dir}); err == nil || !strings.Contains(err.Error(), "is under /") {
			t.Errorf("--cwd %s: %v, want refused", dir, err)
		}
	}
	for _, file := range []string{"/proc/self/environ", "/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		_, err := s.Create(NewChat{Harness: "shell", AdditionalFiles: []string{file}})
		fe, ok := AsFolderError(err)
		if !ok || fe.Code() != proto.CodeInvalidParams || len(fe.Problems) != 1 || !strings.Contains(fe.Problems[0].Reason, "is under /") {
			t.Errorf("--file %s: %v, want -32602 for being under /proc or /sys", file, err)
		}
		if _, err := s.AddFiles(chat.ID, []string{file}); err == nil {
			t.Errorf("add-file %s was taken", file)
		}
	}
	if after := chatFiles(t, s); len(after) != len(before) {
		t.Fatalf("chat files %v, were %v: a refusal wrote", after, before)
	}
	if m, err := s.Load(chat.ID); err != nil || len(m.AdditionalDirectories)+len(m.AdditionalFiles) != 0 {
		t.Fatalf("the chat changed: %+v %v", m, err)
	}
}
