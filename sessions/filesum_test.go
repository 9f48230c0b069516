package sessions

import (
	"os"
	"reflect"
	"testing"
)

// TestChatFileSumMeta: the sum and the chat read together are ChatFileSum's
// and Load's, a file that does not load gives its sum and no chat, and a
// missing file gives neither.
func TestChatFileSumMeta(t *testing.T) {
	s := openStore(t)
	m, err := s.Create(NewChat{Harness: "shell", Name: "one", AdditionalDirectories: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	sum, meta, ok := s.ChatFileSumMeta(m.ID)
	want, wantOK := s.ChatFileSum(m.ID)
	loaded, err := s.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !wantOK || sum != want || !reflect.DeepEqual(meta, loaded) {
		t.Fatalf("ChatFileSumMeta = %x, %+v, %v; want %x, %+v", sum, meta, ok, want, loaded)
	}
	if err := os.WriteFile(s.ChatPath(m.ID), []byte("not = [toml"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, meta, ok = s.ChatFileSumMeta(m.ID)
	if want, _ := s.ChatFileSum(m.ID); !ok || meta != nil || sum != want {
		t.Fatalf("a broken file: %x, %+v, %v; want its sum %x and no chat", sum, meta, ok, want)
	}
	if _, meta, ok := s.ChatFileSumMeta("c-0000000000000000"); ok || meta != nil {
		t.Fatal("a missing chat file was read")
	}
}
