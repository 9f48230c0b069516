package main

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/unixpair"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestProxyHandsOverOrCopies: the proxy's first message hands its stdin
// and stdout over; a server that takes them answers so (handOver true),
// and one older than the hand-over answers Method not found, which the
// proxy reads and drops, leaving every line after it to the copy.
func TestProxyHandsOverOrCopies(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		handed       bool
	}{
		{"taken", proto.AdoptedLine, true},
		{"an older server", `{"jsonrpc":"2.0","id":"adopt","error":{"code":-32601,"message":"Method not found"}}` + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy, server := unixpair.New(t)
			got := make(chan string, 1)
			go func() {
				buf, oob := make([]byte, 512), make([]byte, 64)
				n, oobn, _, _, err := server.ReadMsgUnix(buf, oob)
				if err != nil || oobn == 0 {
					got <- "no descriptors"
					return
				}
				got <- string(buf[:n])
				server.Write([]byte(tc.answer + "next\n"))
			}()
			proxy.SetDeadline(time.Now().Add(10 * time.Second))
			handed, err := handOver(proxy)
			if err != nil || handed != tc.handed {
				t.Fatalf("handOver = %v, %v; want %v", handed, err, tc.handed)
			}
			if first := <-got; first != proto.AdoptLine {
				t.Fatalf("the server read %q first, want the hand-over with its descriptors", first)
			}
			if line, err := bufio.NewReader(net.Conn(proxy)).ReadString('\n'); err != nil || line != "next\n" {
				t.Fatalf("after the answer the socket gave %q, %v: the copy would lose or repeat lines", line, err)
			}
		})
	}
}
