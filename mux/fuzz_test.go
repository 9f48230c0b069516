package mux

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// FuzzWireGuard feeds arbitrary agent output to the wire guard: it never
// panics, passes on only whole JSON lines within the size bound, and gives
// up (calling bad) at the first line that is not.
func FuzzWireGuard(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzWireGuard.
	f.Fuzz(func(t *testing.T, data []byte) {
		var reason string
		g := newWireGuard(bytes.NewReader(data), 256, func(r string) { reason = r })
		out, err := io.ReadAll(g)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
		for _, l := range lines {
			if len(out) == 0 {
				break
			}
			if !json.Valid(l) || len(l) > 256 {
				t.Fatalf("passed on %q", l)
			}
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			l = bytes.TrimSpace(l)
			if len(l) > 0 && !json.Valid(l) && reason == "" {
				t.Fatalf("bad line %q passed without a reason", l)
			}
		}
	})
}

// FuzzSessionUpdate feeds arbitrary session/update params through the SDK's
// decoding into the transcript: never a panic, and rendering stays bounded.
func FuzzSessionUpdate(f *testing.F) {
	// Seeds: testdata/fuzz/FuzzSessionUpdate.
	f.Fuzz(func(t *testing.T, data []byte) {
		var n acp.SessionNotification
		if json.Unmarshal(data, &n) != nil {
			return
		}
		c := newACPChat(New(Options{}), "fuzz")
		client := &acpClient{chat: c, proc: &acpProcess{}}
		for range 3 {
			if err := client.SessionUpdate(context.Background(), n); err != nil {
				t.Fatal(err)
			}
		}
		lines := RenderTranscript(c.entries(), 40)
		if len(c.entries()) > 3*maxTranscriptEntries {
			t.Fatalf("%d entries", len(c.entries()))
		}
		_ = lines
	})
}
