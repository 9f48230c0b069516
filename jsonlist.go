package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// printJSONList writes the n items item gives to w exactly as printJSON
// writes them as a slice (indented by two spaces, HTML left as it is, DEL
// and C1 controls escaped), one item at a time through buffers it reuses:
// `ls --json` at 1,000 chats is 390 kB, which whole took four copies of
// fresh memory (the encoding, its indenting, the builder's growth, the
// escaping), a third of the command's time on a machine whose page faults
// are slow. item(i) is asked for each in turn, once, so the items need not
// be held all at once.
func printJSONList[T any](w io.Writer, n int, item func(i int) T) error {
	out := bufio.NewWriterSize(w, 64<<10)
	if n == 0 {
		out.WriteString("[]\n")
		return out.Flush()
	}
	var compact, indented bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	// One item's slot for all: Encode takes a pointer, so an item made
	// in the loop would be a fresh heap object each time.
	v := new(T)
	out.WriteString("[\n")
	for i := range n {
		compact.Reset()
		indented.Reset()
		*v = item(i)
		if err := enc.Encode(v); err != nil {
			return err
		}
		if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "  ", "  "); err != nil {
			return err
		}
		out.WriteString("  ")
		// Bytes, not a string of them: a copy a chat was 390 kB of fresh
		// memory at 1,000 chats.
		out.Write(plaintext.JSONBytes(indented.Bytes()))
		if i < n-1 {
			out.WriteString(",\n")
		} else {
			out.WriteString("\n")
		}
	}
	out.WriteString("]\n")
	return out.Flush()
}
