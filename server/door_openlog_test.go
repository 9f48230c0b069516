package server

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// logFile is a fresh file for an openLog, and what a reader of it (the
// door, after this process died) reads: its lines.
func logFile(t *testing.T) (*os.File, func() string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "open")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	// The door reads through a descriptor of its own.
	r, err := os.Open(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return f, func() string {
		b, err := io.ReadAll(io.NewSectionReader(r, 0, 1<<30))
		if err != nil {
			t.Fatal(err)
		}
		return string(proto.DoorLog(b))
	}
}

// TestOpenLogShowsItsLinesAtEveryStep: the mapped log reads, through the
// file, as the lines written so far, and as nothing once emptied; a
// shorter line written after it was emptied shows no part of the longer
// lines it is written over.
func TestOpenLogShowsItsLinesAtEveryStep(t *testing.T) {
	f, read := logFile(t)
	l := newOpenLog(f)
	if l.write {
		t.Fatal("the file was not mapped")
	}
	none := func() []string { return nil }
	l.add(proto.DoorTook, []byte(`"a-long-request-id"`), none)
	if got := read(); got != "+\"a-long-request-id\"\n" {
		t.Fatalf("after one request: %q", got)
	}
	l.add(proto.DoorTook, []byte(`12`), none)
	l.add(proto.DoorAnswered, []byte(`"a-long-request-id"`), none)
	if got := read(); got != "+\"a-long-request-id\"\n+12\n-\"a-long-request-id\"\n" {
		t.Fatalf("after three lines: %q", got)
	}
	l.empty()
	if got := read(); got != "" {
		t.Fatalf("emptied: %q", got)
	}
	l.add(proto.DoorTook, []byte(`7`), none)
	if got := read(); got != "+7\n" {
		t.Fatalf("a short line over longer ones: %q", got)
	}
	l.close()
	l.add(proto.DoorTook, []byte(`8`), none) // after close: nothing, no panic
	l.empty()
}

// TestOpenLogGrowsThenStartsAgainFromTheOpen: lines past the mapping grow
// the file and all stay; past the largest mapping the log is written
// again with only the requests open.
func TestOpenLogGrowsThenStartsAgainFromTheOpen(t *testing.T) {
	f, read := logFile(t)
	l := newOpenLogSized(f, 64, 256)
	open := map[string]bool{`"held"`: true}
	ids := func() []string {
		var out []string
		for id := range open {
			out = append(out, id)
		}
		return out
	}
	l.add(proto.DoorTook, []byte(`"held"`), ids)
	var want strings.Builder
	want.WriteString("+\"held\"\n")
	for i := 0; len(l.m) < 256 || want.Len() < 200; i++ {
		id := []byte(fmt.Sprint(i))
		l.add(proto.DoorTook, id, ids)
		l.add(proto.DoorAnswered, id, ids)
		fmt.Fprintf(&want, "+%d\n-%d\n", i, i)
		if want.Len() >= 256 {
			t.Fatalf("the log started again before it reached its largest mapping (%d bytes)", len(l.m))
		}
		if got := read(); got != want.String() {
			t.Fatalf("after request %d, mapped %d bytes: %q, want %q", i, len(l.m), got, want.String())
		}
	}
	for i := 1000; ; i++ {
		if i > 1100 {
			t.Fatalf("the log never started again: %q", read())
		}
		before := len(read())
		id := fmt.Sprint(i)
		open[id] = true
		l.add(proto.DoorTook, []byte(id), ids)
		if len(read()) < before {
			// Started again at this request: the two open are kept.
			if got := read(); got != "+\"held\"\n+"+id+"\n" && got != "+"+id+"\n+\"held\"\n" {
				t.Fatalf("started again with %q, want the two requests open", got)
			}
			return
		}
		delete(open, id)
		l.add(proto.DoorAnswered, []byte(id), ids)
		if len(read()) < before {
			if got := read(); got != "+\"held\"\n" {
				t.Fatalf("started again with %q, want the one request open", got)
			}
			return
		}
	}
}

// TestAdoptedDoorRecordsTheOpenRequests: the door's file lists each
// request taken until its answer, and is emptied once none is open; an
// answer to a request never taken (the server's own) writes nothing.
func TestAdoptedDoorRecordsTheOpenRequests(t *testing.T) {
	f, read := logFile(t)
	d := &adoptedDoor{log: newOpenLog(f), open: map[string]struct{}{}}
	d.record(proto.DoorTook, json.RawMessage(`"a"`))
	d.record(proto.DoorTook, json.RawMessage(`7`))
	d.record(proto.DoorAnswered, json.RawMessage(`"a"`))
	d.record(proto.DoorAnswered, json.RawMessage(`"never-taken"`))
	if got := read(); got != "+\"a\"\n+7\n-\"a\"\n" {
		t.Fatalf("the open requests' file: %q", got)
	}
	d.record(proto.DoorAnswered, json.RawMessage(`7`))
	if got := read(); got != "" {
		t.Fatalf("the file once nothing is open: %q", got)
	}
}
