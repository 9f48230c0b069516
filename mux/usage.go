package mux

import (
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// checkUsage turns an agent's usage_update into the chat's Usage, or says
// why it is refused (proto.Usage.Check: the bounds every usage that enters
// is held to).
func checkUsage(u *acp.SessionUsageUpdate) (*proto.Usage, error) {
	out := &proto.Usage{Used: int64(u.Used), Size: int64(u.Size)}
	if c := u.Cost; c != nil {
		out.Cost = &proto.Cost{Amount: c.Amount + 0, Currency: c.Currency} // + 0: -0 reads as 0
	}
	if err := out.Check(); err != nil {
		return nil, err
	}
	return out, nil
}
