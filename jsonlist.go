package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// printJSONList writes items to w exactly as printJSON writes the slice
// (indented by two spaces, HTML left as it is, DEL and C1 controls
// escaped), one item at a time through buffers it reuses: `ls --json` at
// 1,000 chats is 390 kB, which whole took four copies of fresh memory (the
// encoding, its indenting, the builder's growth, the escaping), a third of
// the command's time on a machine whose page faults are slow.
func printJSONList[T any](w io.Writer, items []T) error {
	out := bufio.NewWriterSize(w, 64<<10)
	if len(items) == 0 {
		out.WriteString("[]\n")
		return out.Flush()
	}
	var compact, indented bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	out.WriteString("[\n")
	for i := range items {
		compact.Reset()
		indented.Reset()
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
		if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "  ", "  "); err != nil {
			return err
		}
		out.WriteString("  ")
		out.WriteString(plaintext.JSON(indented.String()))
		if i < len(items)-1 {
			out.WriteString(",\n")
		} else {
			out.WriteString("\n")
		}
	}
	out.WriteString("]\n")
	return out.Flush()
}
