package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestCLIAgentUsageIsKeptCheckedAndShown: the context window and cost an
// ACP agent says (usage_update) are shown by `show` (a context and a cost
// row) and `show --json` / `ls --json` (usage); an absurd one (a negative
// count, used over size, a cost of 10^30, a currency that is no code) is
// refused with a log line, the one said before stays and the chat goes on.
func TestCLIAgentUsageIsKeptCheckedAndShown(t *testing.T) {
	c := newCLI(t)
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := c.chat("new", "--harness", "fake", "--json")
	if got := c.chat("show", chat.ID, "--json"); got.Usage != nil {
		t.Fatalf("usage before the agent said any: %+v", got.Usage)
	}
	if out := c.ok("show", chat.ID); strings.Contains(out, "context") || strings.Contains(out, "cost") {
		t.Fatalf("show before any usage:\n%s", out)
	}

	if out := c.ok("prompt", chat.ID, "usage 1000 200000 0.42 USD"); out != "usage: sent\n" {
		t.Fatalf("prompt printed %q", out)
	}
	want := proto.Usage{Used: 1000, Size: 200000, Cost: &proto.Cost{Amount: 0.42, Currency: "USD"}}
	check := func(when string) {
		t.Helper()
		if got := c.chat("show", chat.ID, "--json"); !got.Usage.Equal(&want) {
			t.Fatalf("%s: show --json usage %+v, want %+v", when, got.Usage, want)
		}
		var listed *proto.Usage
		for _, v := range c.ls() {
			if v.ID == chat.ID {
				listed = v.Usage
			}
		}
		if !listed.Equal(&want) {
			t.Fatalf("%s: ls --json usage %+v", when, listed)
		}
		out := c.ok("show", chat.ID)
		if !strings.Contains(out, "1000 / 200000 tokens (0 %)") || !strings.Contains(out, "0.42 USD") {
			t.Fatalf("%s: show:\n%s", when, out)
		}
	}
	check("after a usage")

	for _, absurd := range []string{"-1 200000 0.42 USD", "300000 200000", "1000 2000000000000", "1000 200000 1e30 USD", "1000 200000 -0.5 USD", "1000 200000 1 usd", "1000 200000 1 US$"} {
		if out := c.ok("prompt", chat.ID, "usage "+absurd); out != "usage: sent\n" {
			t.Fatalf("prompt %q printed %q", absurd, out)
		}
		check("after " + absurd)
	}
	srvWaitFor(t, "a log line for each of the 7 refused usages", func() bool {
		log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
		return strings.Count(string(log), "usage_update is refused") >= 7
	})

	// The chat goes on; a later usage replaces the first.
	if out := c.ok("prompt", chat.ID, "hello"); !strings.Contains(out, "echo: hello") {
		t.Fatalf("prompt after refused usages printed %q", out)
	}
	c.ok("prompt", chat.ID, "usage 82000 200000")
	if got := c.chat("show", chat.ID, "--json"); !got.Usage.Equal(&proto.Usage{Used: 82000, Size: 200000}) {
		t.Fatalf("a later usage: %+v", got.Usage)
	}
	if out := c.ok("show", chat.ID); !strings.Contains(out, "82000 / 200000 tokens (41 %)") || strings.Contains(out, "cost") {
		t.Fatalf("show after a usage with no cost:\n%s", out)
	}
}
