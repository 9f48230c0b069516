package proto

// Usage is an ACP chat's context window and cost as its agent last said
// them (usage_update), checked where it enters (mux): 0 ≤ Used ≤ Size,
// and a cost only with a finite, non-negative amount and an ISO 4217 code.
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
