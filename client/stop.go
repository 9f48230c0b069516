package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// StopTimeout bounds how long StopChat waits for the server to stop a
// harness (its grace period before SIGKILL, and the wait for its group).
const StopTimeout = 2 * time.Minute

// StopChat asks the agent home's server, if one runs, to stop a chat's
// harness, and returns once it has stopped; the stop is on purpose, so the
// chat is not started again by itself. With no server running there is
// nothing to stop: it returns nil and never starts one. A chat the server
// does not know is nothing to stop either.
func StopChat(home, id string) error {
	c, err := Dial(home)
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
	defer cancel()
	err = c.Call(ctx, proto.MethodStop, proto.ChatParams{ID: id}, nil)
	var rpc *RPCError
	if errors.As(err, &rpc) && rpc.Code == proto.CodeChatNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stop chat %s in the server: %w", id, err)
	}
	return nil
}
