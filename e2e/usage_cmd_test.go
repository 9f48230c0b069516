package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// usageOut is `usage --json` as a script reads it.
type usageOut struct {
	Chats []struct {
		ID, Name, Harness, Host string
		Usage                   proto.Usage
	} `json:"chats"`
	Harnesses []struct {
		Harness string       `json:"harness"`
		Chats   int          `json:"chats"`
		Cost    []proto.Cost `json:"cost"`
	} `json:"harnesses"`
	Hosts []struct {
		Host  string       `json:"host"`
		Chats int          `json:"chats"`
		Cost  []proto.Cost `json:"cost"`
		Error string       `json:"error"`
	} `json:"hosts"`
	Total struct {
		Chats int          `json:"chats"`
		Cost  []proto.Cost `json:"cost"`
	} `json:"total"`
}

func (c *cli) usage(args ...string) usageOut {
	c.t.Helper()
	var u usageOut
	out := c.ok(append([]string{"usage", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		c.t.Fatalf("usage --json: %v\n%s", err, out)
	}
	return u
}

// costs says a list of costs as usage's text does.
func costs(cs []proto.Cost) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " + ")
}

// TestCLIUsageSumsAndOutlivesTheServer: `usage` lists each chat whose
// agent said a usage and sums the costs per harness and in all, one sum
// per currency; the usage is kept in the chat files, so after kill-server
// `usage`, `show` and `ls` still give it; a host that does not answer is
// named, not counted.
func TestCLIUsageSumsAndOutlivesTheServer(t *testing.T) {
	c := newCLI(t)
	fake := buildACPFake(t)
	conf := ""
	for _, name := range []string{"fake", "other"} {
		conf += fmt.Sprintf("[harness.%s]\ncommand = %q\ntransport = \"acp\"\n", name, fake)
	}
	if err := os.WriteFile(c.config, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("usage"); !strings.Contains(out, "no chat has a usage yet") || !strings.Contains(out, "in all: no cost said (0 chats)") {
		t.Fatalf("usage with no chats:\n%s", out)
	}
	a := c.chat("new", "--harness", "fake", "--name", "alpha", "--json")
	b := c.chat("new", "--harness", "fake", "--name", "beta", "--json")
	o := c.chat("new", "--harness", "other", "--name", "gamma", "--json")
	c.chat("new", "--harness", "fake", "--name", "quiet", "--json")
	for id, u := range map[string]string{a.ID: "1000 200000 0.42 USD", b.ID: "5000 100000 1 EUR", o.ID: "10 100 0.08 USD"} {
		if out := c.ok("prompt", id, "usage "+u); out != "usage: sent\n" {
			t.Fatalf("prompt printed %q", out)
		}
	}
	check := func(when string) {
		t.Helper()
		u := c.usage()
		if len(u.Chats) != 3 || u.Total.Chats != 3 || costs(u.Total.Cost) != "1.00 EUR + 0.50 USD" {
			t.Fatalf("%s: usage --json: %+v", when, u)
		}
		if len(u.Harnesses) != 2 || u.Harnesses[0].Harness != "fake" || u.Harnesses[0].Chats != 2 || costs(u.Harnesses[0].Cost) != "1.00 EUR + 0.42 USD" ||
			u.Harnesses[1].Harness != "other" || costs(u.Harnesses[1].Cost) != "0.08 USD" {
			t.Fatalf("%s: per harness: %+v", when, u.Harnesses)
		}
		if len(u.Hosts) != 1 || u.Hosts[0].Host != "" || u.Hosts[0].Chats != 3 {
			t.Fatalf("%s: per host: %+v", when, u.Hosts)
		}
		if got := c.chat("show", a.ID, "--json"); !got.Usage.Equal(&proto.Usage{Used: 1000, Size: 200000, Cost: &proto.Cost{Amount: 0.42, Currency: "USD"}}) {
			t.Fatalf("%s: show --json: %+v", when, got.Usage)
		}
		out := c.ok("usage")
		for _, want := range []string{"alpha", "1k / 200k (0 %)", "0.42 USD", "beta", "5k / 100k (5 %)", "1.00 EUR",
			"fake           1.00 EUR + 0.42 USD (2 chats)", "other          0.08 USD (1 chat)", "in all: 1.00 EUR + 0.50 USD (3 chats)"} {
			if !strings.Contains(out, want) {
				t.Fatalf("%s: usage has no %q:\n%s", when, want, out)
			}
		}
		if strings.Contains(out, "quiet") {
			t.Fatalf("%s: a chat with no usage is listed:\n%s", when, out)
		}
	}
	check("with the server")
	c.ok("kill-server")
	check("after kill-server")

	// A host that does not answer is named, and the rest is counted.
	if err := os.WriteFile(c.config, []byte(conf+"[host.down]\nssh = \"down.invalid\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := c.usage()
	if len(u.Hosts) != 2 || u.Hosts[1].Host != "down" || u.Hosts[1].Error == "" || u.Total.Chats != 3 {
		t.Fatalf("with a host down: %+v", u)
	}
	if out := c.ok("usage"); !strings.Contains(out, "down           not counted: ") || !strings.Contains(out, "this machine   1.00 EUR + 0.50 USD (3 chats)") {
		t.Fatalf("usage with a host down:\n%s", out)
	}
	if r := c.run("usage", "--host", "nowhere"); r.code != 2 || !strings.Contains(r.stderr, `no [host.nowhere]`) {
		t.Fatalf("usage --host nowhere: %+v", r)
	}
}

// TestCLIUsageAcrossHosts: over the real sshd, `usage` counts this
// machine's chats and the host's, sums each host apart and all together;
// --host counts that host alone.
func TestCLIUsageAcrossHosts(t *testing.T) {
	r := newHostRig(t)
	fake := buildACPFake(t)
	table := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\n", fake)
	if err := os.WriteFile(r.remoteConfig, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	r.writeConfig(table)
	here := r.chat("new", "--harness", "fake", "--name", "near", "--json")
	r.ok("prompt", here.ID, "usage 100 1000 0.25 USD")
	var far proto.ChatJSON
	if err := json.Unmarshal([]byte(r.ok("new", "--host", "test", "--harness", "fake", "--name", "far", "--json")), &far); err != nil {
		t.Fatal(err)
	}
	r.ok("prompt", far.ID, "usage 300 1000 0.5 USD", "--host", "test")

	u := r.usage()
	if len(u.Hosts) != 2 || u.Hosts[0].Host != "" || costs(u.Hosts[0].Cost) != "0.25 USD" ||
		u.Hosts[1].Host != "test" || u.Hosts[1].Error != "" || costs(u.Hosts[1].Cost) != "0.50 USD" || costs(u.Total.Cost) != "0.75 USD" {
		t.Fatalf("usage across hosts: %+v", u)
	}
	if len(u.Chats) != 2 || u.Chats[1].Host != "test" || u.Chats[1].Name != "far" || u.Chats[1].Usage.Used != 300 {
		t.Fatalf("the chats: %+v", u.Chats)
	}
	if out := r.ok("usage"); !strings.Contains(out, "test           0.50 USD (1 chat)") || !strings.Contains(out, "in all: 0.75 USD (2 chats)") {
		t.Fatalf("usage:\n%s", out)
	}
	if u := r.usage("--host", "test"); len(u.Hosts) != 1 || u.Hosts[0].Host != "test" || costs(u.Total.Cost) != "0.50 USD" {
		t.Fatalf("usage --host test: %+v", u)
	}
}

// TestE2ETUIShowsTitleUsageAndToolPlaces: what an ACP agent says of its
// session reaches the TUI: its title in the summary and the list, its
// context bar and cost, the cost in the list on `$`, and where a tool call
// worked on its line in the chat pane.
func TestE2ETUIShowsTitleUsageAndToolPlaces(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	conf := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\n", buildACPFake(t))
	if err := os.WriteFile(c.config, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := c.chat("new", "--harness", "fake", "--json")
	for _, p := range []string{"title Parser report", "usage 82000 200000 0.42 USD", "tool-at /src/app/main.go 41"} {
		c.ok("prompt", chat.ID, p)
	}
	s := startTmux(t, 160, 40, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("Parser report", "████░░░░░░ 41 % of 200k · 0.42 USD")
	s.keys("$")
	s.waitFor("the cost in the list", func(scr string) bool {
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, "Parser report") && strings.Contains(l, "0.42 USD") && strings.Index(l, "0.42 USD") < 40 {
				return true
			}
		}
		return false
	})
	s.keys("Enter")
	// The tool call's card: its kind's mark, title, status and place.
	s.waitText("✎ Fake tool ✓ · /src/app/main.go:42")
}
