package mux

import (
	"math"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// TestCheckUsage: a usage_update within the bounds is kept as it is (a
// cost of -0 as 0); an absurd one is refused.
func TestCheckUsage(t *testing.T) {
	cost := func(a float64, cur string) *acp.Cost { return &acp.Cost{Amount: a, Currency: cur} }
	for _, c := range []struct {
		name string
		in   acp.SessionUsageUpdate
		want *proto.Usage
	}{
		{"context only", acp.SessionUsageUpdate{Used: 1000, Size: 200000}, &proto.Usage{Used: 1000, Size: 200000}},
		{"with a cost", acp.SessionUsageUpdate{Used: 0, Size: 0, Cost: cost(0.42, "USD")}, &proto.Usage{Cost: &proto.Cost{Amount: 0.42, Currency: "USD"}}},
		{"full", acp.SessionUsageUpdate{Used: proto.MaxContextTokens, Size: proto.MaxContextTokens, Cost: cost(proto.MaxCostAmount, "VND")}, &proto.Usage{Used: proto.MaxContextTokens, Size: proto.MaxContextTokens, Cost: &proto.Cost{Amount: proto.MaxCostAmount, Currency: "VND"}}},
		{"minus zero", acp.SessionUsageUpdate{Used: 1, Size: 2, Cost: cost(math.Copysign(0, -1), "EUR")}, &proto.Usage{Used: 1, Size: 2, Cost: &proto.Cost{Currency: "EUR"}}},
		{"negative used", acp.SessionUsageUpdate{Used: -1, Size: 2}, nil},
		{"negative size", acp.SessionUsageUpdate{Used: 0, Size: -2}, nil},
		{"used over size", acp.SessionUsageUpdate{Used: 3, Size: 2}, nil},
		{"size too big", acp.SessionUsageUpdate{Used: 3, Size: proto.MaxContextTokens + 1}, nil},
		{"NaN", acp.SessionUsageUpdate{Size: 2, Cost: cost(math.NaN(), "USD")}, nil},
		{"infinite", acp.SessionUsageUpdate{Size: 2, Cost: cost(math.Inf(1), "USD")}, nil},
		{"1e30", acp.SessionUsageUpdate{Size: 2, Cost: cost(1e30, "USD")}, nil},
		{"negative cost", acp.SessionUsageUpdate{Size: 2, Cost: cost(-0.01, "USD")}, nil},
		{"lower case", acp.SessionUsageUpdate{Size: 2, Cost: cost(1, "usd")}, nil},
		{"no currency", acp.SessionUsageUpdate{Size: 2, Cost: cost(1, "")}, nil},
		{"escape", acp.SessionUsageUpdate{Size: 2, Cost: cost(1, "\x1b[2J")}, nil},
		{"four letters", acp.SessionUsageUpdate{Size: 2, Cost: cost(1, "USDT")}, nil},
	} {
		got, err := checkUsage(&c.in)
		if (err == nil) != (c.want != nil) || !got.Equal(c.want) {
			t.Errorf("%s: checkUsage = %+v, %v; want %+v", c.name, got, err, c.want)
		}
		if got != nil && got.Cost != nil && math.Signbit(got.Cost.Amount) {
			t.Errorf("%s: a cost of -0 kept its sign", c.name)
		}
	}
}
