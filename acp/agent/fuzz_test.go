package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// FuzzWireGuard feeds arbitrary agent output to the wire guard: it never
// panics, passes on only whole JSON lines within the size bound, and gives
// up (calling bad) at the first line that is not.
func FuzzWireGuard(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzWireGuard.
	f.Fuzz(func(t *testing.T, data []byte) {
		var reason string
		g := newWireGuard(bytes.NewReader(data), 256, func(r string) { reason = r })
		out, err := io.ReadAll(g)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
		for _, l := range lines {
			if len(out) == 0 {
				break
			}
			if !json.Valid(l) || len(l) > 256 {
				t.Fatalf("passed on %q", l)
			}
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			l = bytes.TrimSpace(l)
			if len(l) > 0 && !json.Valid(l) && reason == "" {
				t.Fatalf("bad line %q passed without a reason", l)
			}
		}
	})
}

// FuzzSessionUpdate feeds arbitrary session/update params through the SDK's
// decoding into the transcript: never a panic, and rendering stays bounded.
func FuzzSessionUpdate(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzSessionUpdate.
	f.Fuzz(func(t *testing.T, data []byte) {
		var n acp.SessionNotification
		if json.Unmarshal(data, &n) != nil {
			return
		}
		c := &transcriptChat{}
		client := NewClient(c, Roots{}, context.Background(), func() int64 { return 0 }, slog.New(slog.DiscardHandler))
		for range 3 {
			if err := client.SessionUpdate(context.Background(), n); err != nil {
				t.Fatal(err)
			}
		}
		entries := c.log.Entries()
		_ = proto.RenderTranscript(entries, 40)
		if len(entries) > 3*MaxTranscriptEntries {
			t.Fatalf("%d entries", len(entries))
		}
		// What a tool call produced is cleaned and bounded.
		for _, e := range entries {
			if len(e.Content) > proto.MaxToolContents {
				t.Fatalf("a tool call keeps %d contents", len(e.Content))
			}
			for _, tc := range e.Content {
				checkToolContent(t, tc)
			}
			if e.ToolKind != "" && !slices.Contains(toolKinds, e.ToolKind) {
				t.Fatalf("tool kind %q is none of ACP's", e.ToolKind)
			}
		}
		// So are the commands an agent offers.
		if u := n.Update.AvailableCommandsUpdate; u != nil {
			cmds := Commands(u.AvailableCommands)
			if len(cmds) > proto.MaxCommands {
				t.Fatalf("%d commands kept", len(cmds))
			}
			for _, c := range cmds {
				if c.Name == "" || strings.ContainsFunc(c.Name, isSpace) || !isClean(c.Name) || !isClean(c.Description) || !isClean(c.Hint) ||
					strings.ContainsAny(c.Description+c.Hint, "\n\t") {
					t.Fatalf("command kept as %+v", c)
				}
			}
		}
	})
}

// isClean reports whether s has no control character but newline and
// tab, no bidirectional control, and is valid UTF-8.
func isClean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool {
		return r != '\n' && r != '\t' && (unicode.IsControl(r) || plaintext.IsBidi(r))
	})
}

// checkToolContent fails on a tool content that is not clean or not
// bounded.
func checkToolContent(t *testing.T, tc proto.ToolContent) {
	t.Helper()
	texts := []string{tc.Text, tc.NewText}
	if tc.OldText != nil {
		texts = append(texts, *tc.OldText)
	}
	for _, s := range texts {
		if len(s) > proto.MaxToolContentText || !isClean(s) {
			t.Fatalf("tool content %q... (%d bytes) is not clean and bounded", s[:min(len(s), 80)], len(s))
		}
	}
	for _, s := range []string{tc.Path, tc.TerminalID} {
		if !isClean(s) || strings.ContainsAny(s, "\n\t") {
			t.Fatalf("tool content's one-line field %q", s)
		}
	}
	switch tc.Type {
	case proto.ToolContentText, proto.ToolContentDiff, proto.ToolContentTerminal:
	default:
		t.Fatalf("tool content of type %q", tc.Type)
	}
}

// FuzzSharedFileRequests sends arbitrary fs/* paths (an agent's to choose)
// to the roots of a chat whose cwd is one folder and which shares one file
// from another: a read never returns the shared file's sibling, and a write
// never changes the sibling nor adds a name beside the shared file.
func FuzzSharedFileRequests(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzSharedFileRequests.
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	mustWrite := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	sharedDir, folder := filepath.Join(base, "shared"), filepath.Join(base, "folder")
	shared, sibling := filepath.Join(sharedDir, "shared.md"), filepath.Join(sharedDir, "sibling.txt")
	mustWrite(shared, "SHARED")
	mustWrite(sibling, "SIBLING")
	mustWrite(filepath.Join(sharedDir, "sub", "deeper.txt"), "SIBLING")
	mustWrite(filepath.Join(folder, "in.txt"), "INSIDE")
	for link, target := range map[string]string{
		filepath.Join(folder, "door"):     sharedDir,
		filepath.Join(folder, "link.txt"): sibling,
		filepath.Join(sharedDir, "alias"): shared,
	} {
		if err := os.Symlink(target, link); err != nil {
			f.Fatal(err)
		}
	}
	names := func() []string {
		entries, _ := os.ReadDir(sharedDir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	wantNames := names()
	r := NewRoots(filepath.Join(base, "home"), folder, nil)
	r.SetFiles([]string{shared})
	f.Fuzz(func(t *testing.T, rel string, write bool) {
		p := rel
		if !strings.HasPrefix(rel, "/") {
			p = base + "/" + rel
		}
		if write {
			_ = r.WriteText(p, "WRITTEN", 1<<10)
			if data, _ := os.ReadFile(sibling); string(data) != "SIBLING" {
				t.Fatalf("write %q changed the sibling to %q", p, data)
			}
			if got := names(); !slices.Equal(got, wantNames) {
				t.Fatalf("write %q left %q beside the shared file, want %q", p, got, wantNames)
			}
			mustWrite(shared, "SHARED")
			return
		}
		text, err := r.ReadText(context.Background(), p, nil, nil, 1<<10)
		if err == nil && text == "SIBLING" {
			t.Fatalf("read %q served a file beside the shared one", p)
		}
	})
}
