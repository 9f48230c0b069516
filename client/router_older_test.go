package client

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// A host whose server does not know a method (an older acpmux-tui) is
// named with how to update it; any other error, and a local chat's, stays
// as the server said it.
func TestRouterOlderHost(t *testing.T) {
	rt := &Router{byName: map[string]*routedHost{"box": {host: Host{Name: "box"}}}}
	missing := remoteError(&RPCError{Code: proto.CodeMethodNotFound, Message: "Method not found: _acpmux/review"})
	err := rt.older("box"+HostSep+"abc123", "review a chat", missing)
	if err == nil || !strings.Contains(err.Error(), "host box runs an older acpmux-tui, which cannot review a chat") || !strings.Contains(err.Error(), "hosts install box") {
		t.Fatalf("older host: %v", err)
	}
	if got := rt.older("abc123", "review a chat", missing); got != missing {
		t.Errorf("a local chat's error changed: %v", got)
	}
	other := remoteError(&RPCError{Code: proto.CodeFailed, Message: "resolve \"x\": unknown revision"})
	if got := rt.older("box"+HostSep+"abc123", "review a chat", other); !errors.Is(got, other) {
		t.Errorf("another error changed: %v", got)
	}
	if rt.older("box"+HostSep+"abc123", "review a chat", nil) != nil {
		t.Error("no error became one")
	}
}
