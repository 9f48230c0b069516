package mux

import (
	"fmt"
	"math"

	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// The bounds of a usage_update an agent may send. maxContextTokens is
// some 500 times the largest context windows offered today (about two
// million tokens), far below anything that overflows a sum or a bar.
// maxCostAmount is in the currency's own units, so it must hold a real
// session priced in a currency whose unit is small (a dollar is some
// 25 000 dong): a billion of them is still absurd in any currency.
const (
	maxContextTokens = 1_000_000_000
	maxCostAmount    = 1e9
)

// checkUsage turns an agent's usage_update into the chat's Usage, or says
// why it is refused: a count below zero, used above size, a size over
// maxContextTokens, a cost that is not a finite amount from 0 to
// maxCostAmount in a currency of three capital letters (ISO 4217).
func checkUsage(u *acp.SessionUsageUpdate) (*proto.Usage, error) {
	switch {
	case u.Used < 0 || u.Size < 0:
		return nil, fmt.Errorf("negative token count (used %d, size %d)", u.Used, u.Size)
	case u.Size > maxContextTokens:
		return nil, fmt.Errorf("context size %d over %d tokens", u.Size, maxContextTokens)
	case u.Used > u.Size:
		return nil, fmt.Errorf("used %d over the context size %d", u.Used, u.Size)
	}
	out := &proto.Usage{Used: int64(u.Used), Size: int64(u.Size)}
	if c := u.Cost; c != nil {
		if math.IsNaN(c.Amount) || math.IsInf(c.Amount, 0) || c.Amount < 0 || c.Amount > maxCostAmount {
			return nil, fmt.Errorf("cost amount %g not from 0 to %g", c.Amount, float64(maxCostAmount))
		}
		if !isCurrencyCode(c.Currency) {
			cur := c.Currency
			if len(cur) > 16 {
				cur = cur[:16]
			}
			return nil, fmt.Errorf("currency %q is not three capital letters", cur)
		}
		out.Cost = &proto.Cost{Amount: c.Amount + 0, Currency: c.Currency} // + 0: -0 reads as 0
	}
	return out, nil
}

// isCurrencyCode reports whether s has the shape of an ISO 4217 code:
// three letters A to Z.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
