package sessions

import (
	"errors"
	"fmt"

	"github.com/acpmux/acpmux-tui/proto"
)

// Usage is the chat's usage as its file keeps it (context_used,
// context_size, cost, cost_currency); nil when none was ever said. A cost
// is there when its currency is.
func (m *Meta) Usage() *proto.Usage {
	if m == nil || (m.ContextSize == 0 && m.ContextUsed == 0 && m.CostCurrency == "") {
		return nil
	}
	u := &proto.Usage{Used: m.ContextUsed, Size: m.ContextSize}
	if m.CostCurrency != "" {
		u.Cost = &proto.Cost{Amount: m.Cost, Currency: m.CostCurrency}
	}
	return u
}

// SetUsage puts u into m's keys (nil clears them); its caller checked it.
func (m *Meta) SetUsage(u *proto.Usage) {
	m.ContextUsed, m.ContextSize, m.Cost, m.CostCurrency = 0, 0, 0, ""
	if u == nil {
		return
	}
	m.ContextUsed, m.ContextSize = u.Used, u.Size
	if u.Cost != nil {
		m.Cost, m.CostCurrency = u.Cost.Amount, u.Cost.Currency
	}
}

// checkUsage holds a chat file's usage to the bounds of any usage that
// enters (proto.Usage.Check); a cost without its currency is refused too.
func (m *Meta) checkUsage() error {
	if m.Cost != 0 && m.CostCurrency == "" {
		return errors.New("cost without cost_currency")
	}
	u := proto.Usage{Used: m.ContextUsed, Size: m.ContextSize}
	if m.CostCurrency != "" {
		u.Cost = &proto.Cost{Amount: m.Cost, Currency: m.CostCurrency}
	}
	if err := u.Check(); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return nil
}

// errSameUsage stops SetUsage's Update when the usage is the stored one.
var errSameUsage = errors.New("the same usage")

// SetUsage stores u (checked by its caller, where it entered) as the
// chat's usage under the store's lock, writing the file only when it
// changes. It reports whether it did.
func (s *Store) SetUsage(id string, u *proto.Usage) (bool, error) {
	if u != nil && u.Used == 0 && u.Size == 0 && u.Cost == nil {
		u = nil // says nothing: the file keeps no keys for it
	}
	_, err := s.Update(id, func(m *Meta) error {
		if m.Usage().Equal(u) {
			return errSameUsage
		}
		m.SetUsage(u)
		return nil
	})
	if errors.Is(err, errSameUsage) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store usage of chat %s: %w", id, err)
	}
	return true, nil
}
