package proto

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Usage is a chat's context window and cost as its agent last said them
// (an ACP usage_update) or its harness's session log has them, checked
// where it enters (Check): 0 ≤ Used ≤ Size ≤ MaxContextTokens, and a cost
// only with a finite amount from 0 to MaxCostAmount and an ISO 4217 code.
type Usage struct {
	// Used is the tokens in the context now; Size the window's size.
	Used int64 `json:"used"`
	Size int64 `json:"size"`
	// Cost is the session's cumulative cost, absent when the agent gave none.
	Cost *Cost `json:"cost,omitempty"`
}

// Cost is an amount of money in a currency (ISO 4217: "USD").
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// The bounds of a usage. MaxContextTokens is some 500 times the largest
// context windows offered today (about two million tokens), far below
// anything that overflows a sum or a bar. MaxCostAmount is in the
// currency's own units, so it must hold a real session priced in a
// currency whose unit is small (a dollar is some 25 000 dong): a billion
// of them is still absurd in any currency.
const (
	MaxContextTokens = 1_000_000_000
	MaxCostAmount    = 1e9
)

// Check says why u is out of bounds: a count below zero, used above
// size, a size over MaxContextTokens, a cost that is not a finite amount
// from 0 to MaxCostAmount in a currency of three capital letters. Every
// usage that enters (an agent's update, a session log, a chat file) goes
// through it, so no view meets an absurd one.
func (u *Usage) Check() error {
	switch {
	case u.Used < 0 || u.Size < 0:
		return fmt.Errorf("negative token count (used %d, size %d)", u.Used, u.Size)
	case u.Size > MaxContextTokens:
		return fmt.Errorf("context size %d over %d tokens", u.Size, MaxContextTokens)
	case u.Used > u.Size:
		return fmt.Errorf("used %d over the context size %d", u.Used, u.Size)
	}
	if c := u.Cost; c != nil {
		if math.IsNaN(c.Amount) || math.IsInf(c.Amount, 0) || c.Amount < 0 || c.Amount > MaxCostAmount {
			return fmt.Errorf("cost amount %g not from 0 to %g", c.Amount, float64(MaxCostAmount))
		}
		if !IsCurrencyCode(c.Currency) {
			cur := c.Currency
			if len(cur) > 16 {
				cur = cur[:16]
			}
			return fmt.Errorf("currency %q is not three capital letters", cur)
		}
	}
	return nil
}

// IsCurrencyCode reports whether s has the shape of an ISO 4217 code:
// three letters A to Z.
func IsCurrencyCode(s string) bool {
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

// String is the cost as it is shown: "0.42 USD", to the cent, with four
// places below one cent so a small cost does not read as none.
func (c Cost) String() string {
	prec := 2
	if c.Amount > 0 && c.Amount < 0.01 {
		prec = 4
	}
	return strconv.FormatFloat(c.Amount, 'f', prec, 64) + " " + c.Currency
}

// Tokens says a number of tokens short: 950, 200k, 1M, 1.5M.
func Tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64), ".0") + "M"
	case n >= 1000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64), ".0") + "k"
	}
	return strconv.FormatInt(n, 10)
}

// Equal reports whether two usages (either may be nil) are the same.
func (u *Usage) Equal(o *Usage) bool {
	if u == nil || o == nil {
		return u == o
	}
	if u.Used != o.Used || u.Size != o.Size || (u.Cost == nil) != (o.Cost == nil) {
		return false
	}
	return u.Cost == nil || *u.Cost == *o.Cost
}

// Percent is the share of the context window in use, 0 to 100 (0 for a
// window of no size).
func (u *Usage) Percent() int {
	if u == nil || u.Size <= 0 {
		return 0
	}
	return int(u.Used * 100 / u.Size)
}
