package sessions

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestStoredUsageIsChecked: a chat file's usage is held to the bounds of
// any usage that enters; one out of them makes the file broken, with the
// reason, as a bad title does.
func TestStoredUsageIsChecked(t *testing.T) {
	head := "version = 1\nid = \"abc\"\nharness = \"shell\"\ncwd = \"/\"\n"
	for _, c := range []struct {
		keys, problem string
		want          *proto.Usage
	}{
		{"context_used = 1200\ncontext_size = 200000\ncost = 0.42\ncost_currency = \"USD\"\n", "",
			&proto.Usage{Used: 1200, Size: 200000, Cost: &proto.Cost{Amount: 0.42, Currency: "USD"}}},
		{"cost_currency = \"EUR\"\n", "", &proto.Usage{Cost: &proto.Cost{Currency: "EUR"}}},
		{"context_used = 5\ncontext_size = 10\n", "", &proto.Usage{Used: 5, Size: 10}},
		{"", "", nil},
		{"context_used = 11\ncontext_size = 10\n", "over the context size", nil},
		{"context_size = 1000000001\n", "over 1000000000 tokens", nil},
		{"cost = 1e30\ncost_currency = \"USD\"\n", "not from 0", nil},
		{"cost = -0.5\ncost_currency = \"USD\"\n", "not from 0", nil},
		{"cost = nan\ncost_currency = \"USD\"\n", "not from 0", nil},
		{"cost = inf\ncost_currency = \"USD\"\n", "not from 0", nil},
		{"cost = 0.5\ncost_currency = \"usd\"\n", "three capital letters", nil},
		{"cost = 0.5\ncost_currency = \"\\u001b[2J\"\n", "three capital letters", nil},
		{"cost = 0.5\n", "cost without cost_currency", nil},
	} {
		m, err := ParseMeta([]byte(head + c.keys))
		switch {
		case c.problem == "" && err != nil:
			t.Errorf("%q: %v", c.keys, err)
		case c.problem == "" && !m.Usage().Equal(c.want):
			t.Errorf("%q read as %+v, want %+v", c.keys, m.Usage(), c.want)
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
			t.Errorf("%q: error %v, want one saying %q", c.keys, err, c.problem)
		}
	}
}

// TestSetUsageWritesOnlyAChange: the usage is kept in the chat file, the
// file written only when it changes; an empty usage clears the keys.
func TestSetUsageWritesOnlyAChange(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	usd := func(a float64) *proto.Cost { return &proto.Cost{Amount: a, Currency: "USD"} }
	for i, c := range []struct {
		in, want *proto.Usage
		changed  bool
	}{
		{&proto.Usage{Used: 10, Size: 100, Cost: usd(0.01)}, &proto.Usage{Used: 10, Size: 100, Cost: usd(0.01)}, true},
		{&proto.Usage{Used: 10, Size: 100, Cost: usd(0.01)}, &proto.Usage{Used: 10, Size: 100, Cost: usd(0.01)}, false},
		{&proto.Usage{Used: 20, Size: 100, Cost: usd(0.0000001)}, &proto.Usage{Used: 20, Size: 100, Cost: usd(0.0000001)}, true},
		{&proto.Usage{Used: 20, Size: 100, Cost: usd(0)}, &proto.Usage{Used: 20, Size: 100, Cost: usd(0)}, true},
		{&proto.Usage{Used: 30, Size: 100}, &proto.Usage{Used: 30, Size: 100}, true},
		{&proto.Usage{}, nil, true},
		{nil, nil, false},
	} {
		changed, err := s.SetUsage(m.ID, c.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if changed != c.changed || !got.Usage().Equal(c.want) {
			t.Errorf("%d: SetUsage(%+v): changed %v usage %+v, want %v %+v", i, c.in, changed, got.Usage(), c.changed, c.want)
		}
	}
}
