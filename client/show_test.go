package client

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// pushedScreen reports whether the Remote holds the chat's screen as the
// server sent it with a change, so Render needs no round trip.
func pushedScreen(r *Remote, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch, ok := r.chats[id]
	return ok && ch.pushed && r.showsLocked(id)
}

// TestRemoteShowPushesTheShownScreen: the chat a Remote shows comes with
// its screen on every change, and Render returns it without asking; when
// another chat is shown, the first one's screen is asked for again and is
// never a stale one.
func TestRemoteShowPushesTheShownScreen(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	var ids []string
	for _, name := range []string{"one", "two"} {
		meta, err := r.CreateAndStart(sessions.NewChat{Harness: "fake", Name: name}, 80, 24)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, meta.ID)
		waitScreen(t, r, meta.ID, "ready>")
	}
	one, two := ids[0], ids[1]

	r.Show(one)
	write := func(id, s string) {
		t.Helper()
		if err := r.Write(id, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write(one, "first\r")
	waitRemote(t, r, "the shown chat's screen sent with its change", func() bool {
		r.State(one)
		return pushedScreen(r, one) && strings.Contains(r.Render(one, 0), "echo: first")
	})

	// Another chat shown: the first one's screen changes unseen, and is
	// asked for, not taken from what was sent before.
	r.Show(two)
	write(two, "second\r")
	waitRemote(t, r, "the second chat's screen sent with its change", func() bool {
		r.State(two)
		return pushedScreen(r, two) && strings.Contains(r.Render(two, 0), "echo: second")
	})
	if pushedScreen(r, one) {
		t.Fatal("the chat no longer shown still has its screen taken as sent")
	}
	write(one, "unseen\r")
	// No notice need come for it (its state may not change): look again
	// on a timer.
	wait.Until(t, "the unshown chat's screen, asked for", func() bool {
		return strings.Contains(r.Render(one, 0), "echo: unseen")
	})
}

// TestScreenPatch: a whole screen replaces the one held, lines that changed
// go in their places, and a patch with nothing to apply to, or out of the
// screen, leaves the screen unknown (Render then asks for it).
func TestScreenPatch(t *testing.T) {
	ch := &remoteChat{}
	if ch.patch(&proto.ScreenPatch{Rows: map[int]string{0: "x"}}) {
		t.Fatal("a patch with no screen to apply to was taken")
	}
	full := "a\nb\nc"
	if !ch.patch(&proto.ScreenPatch{Full: &full}) || ch.screen != full {
		t.Fatalf("whole screen: %q", ch.screen)
	}
	if !ch.patch(&proto.ScreenPatch{Rows: map[int]string{1: "B"}}) || ch.screen != "a\nB\nc" {
		t.Fatalf("patched screen: %q", ch.screen)
	}
	if !ch.patch(&proto.ScreenPatch{}) || ch.screen != "a\nB\nc" {
		t.Fatalf("a patch of no line changed the screen: %q", ch.screen)
	}
	if ch.patch(&proto.ScreenPatch{Rows: map[int]string{3: "d"}}) || ch.rows != nil {
		t.Fatal("a line out of the screen was taken")
	}
}

// TestShownScreenFollowsEveryChange: the screen a Remote holds of the chat
// it shows, patched row by row as the server sends changes, is the
// server's screen after each kind of change a harness can make (printing,
// scrolling, a scroll region, erasing, inserting and deleting lines and
// characters, styles, wide characters, the alternate screen, a resize).
// The harness is cat: each line typed comes back raw after Enter.
func TestShownScreenFollowsEveryChange(t *testing.T) {
	h, _ := remoteHome(t)
	cfg := "default_harness = \"cat\"\n[harness.cat]\ncommand = \"/bin/cat\"\n"
	if err := os.WriteFile(os.Getenv("ACPMUX_CONFIG"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRemote(t, h)
	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "cat"}, 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	id := meta.ID
	r.Show(id)
	asker, err := Dial(h)
	if err != nil {
		t.Fatal(err)
	}
	defer asker.Close()
	serverScreen := func() string {
		var res proto.RenderResult
		if err := asker.Call(context.Background(), proto.MethodRender, proto.RenderParams{ID: id}, &res); err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	steps := []string{
		strings.Repeat("a line to scroll\r\n", 14) + "scrolled",
		"\x1b[2;5r\x1b[5;1H\n\nregion\x1bM\x1bM\x1bM\x1bM\x1bM\x1b[r",
		"\x1b[3;1H\x1b[2L\x1b[1M\x1b[3;3H\x1b[4@\x1b[2P\x1b[K\x1b[1K",
		"\x1b[1;31;44mred\x1b[m 日本語\u0301 \x1b[7mreverse\x1b[m",
		"\x1b[?1049h\x1b[2J\x1b[4;4Halternate",
		"\x1b[?1049lback\x1b[J",
		"\x1b[2J\x1b[Hcleared",
	}
	for i, step := range steps {
		marker := fmt.Sprintf("step%d", i)
		if err := r.Write(id, []byte(step+marker+"\r")); err != nil {
			t.Fatal(err)
		}
		waitRemote(t, r, fmt.Sprintf("step %d shown as the server has it", i), func() bool {
			r.State(id)
			mine := r.Render(id, 0)
			return pushedScreen(r, id) && strings.Count(mine, marker) >= 1 && mine == serverScreen()
		})
		if i == 3 {
			r.ResizeAll(30, 8)
			waitRemote(t, r, "the resized screen shown as the server has it", func() bool {
				r.State(id)
				return pushedScreen(r, id) && r.Render(id, 0) == serverScreen()
			})
		}
	}
}
