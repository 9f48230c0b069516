package mux

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestACPWriteOverTheLimitsKeepsTheAgent: with the default limits, a
// 9 MiB fs/write_text_file (over the 8 MiB message limit, as well as
// max_file_bytes) is answered with an error that names max_file_bytes and
// the message limit, a 5 MiB one (under the message limit, over
// max_file_bytes) with the cap's refusal, and a 3 MiB one is written; the
// agent keeps running through all three, in the same process, and answers
// the next prompt. The chat's transcript says what was refused.
func TestACPWriteOverTheLimitsKeepsTheAgent(t *testing.T) {
	if config.DefaultMaxFileBytes != 4<<20 || config.MaxAgentMessageBytes != 8<<20 {
		t.Fatalf("limits %d and %d: the sizes below are chosen for 4 MiB and 8 MiB", config.DefaultMaxFileBytes, config.MaxAgentMessageBytes)
	}
	r := newFSRig(t, 0)
	r.ready(r.id)
	pid := r.mux.State(r.id).Pid

	big := filepath.Join(r.root, "nine.txt")
	got := r.ask("write-big " + big + " " + strconv.Itoa(9<<20))
	for _, want := range []string{"write error: Invalid params", "fs/write_text_file: the request is 9.",
		"over the 8 MiB limit of one message from an agent", "writes at most 4.0 MiB (acp.max_file_bytes)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the agent was told %q, which does not say %q", got, want)
		}
	}
	if _, err := os.Stat(big); !os.IsNotExist(err) {
		t.Errorf("the refused write made %s: %v", big, err)
	}
	if !strings.Contains(transcriptNotes(r.acpRig, r.id), "refused the agent's fs/write_text_file: the request is 9.") {
		t.Errorf("the transcript does not say what was refused:\n%s", transcriptNotes(r.acpRig, r.id))
	}

	five := filepath.Join(r.root, "five.txt")
	if got, want := r.ask("write-big "+five+" "+strconv.Itoa(5<<20)),
		`write error: Invalid params {"error":"content is 5.0 MiB, over the 4.0 MiB limit of fs/write_text_file (acp.max_file_bytes)","path":"`+five+`"}`; got != want {
		t.Errorf("a 5 MiB write:\n got %s\nwant %s", got, want)
	}
	three := filepath.Join(r.root, "three.txt")
	if got := r.ask("write-big " + three + " " + strconv.Itoa(3<<20)); got != "wrote" {
		t.Errorf("a 3 MiB write: %s", got)
	}
	if fi, err := os.Stat(three); err != nil || fi.Size() != 3<<20 {
		t.Errorf("the 3 MiB write left %v, %v", fi, err)
	}

	if got := r.ask("hello"); got != "echo: hello" {
		t.Errorf("the next prompt: %q", got)
	}
	if st := r.mux.State(r.id); st.Pid != pid || st.Status != proto.StatusWaiting {
		t.Errorf("the agent did not keep running: pid %d (was %d), status %s, reason %q", st.Pid, pid, st.Status, st.Reason)
	}
}

// TestACPRequestOverTheLimitIsAnsweredWhereverItsID: a request over the
// message limit whose id comes after its params (as an encoder that sorts
// or appends keys writes it) is answered with an error carrying that id,
// and the agent goes on with its turn and the next.
func TestACPRequestOverTheLimitIsAnsweredWhereverItsID(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	r.ready(m.ID)
	if _, err := r.prompt(m.ID, "request-id-last "+strconv.Itoa(9<<20)); err != nil {
		t.Fatalf("the turn failed: %v", err)
	}
	if got := r.lastAgentText(m.ID); !strings.HasPrefix(got, "request-id-last: sent ") {
		t.Fatalf("the agent said %q", got)
	}
	var answer struct {
		ID    string `json:"id"`
		Error struct {
			Code int `json:"code"`
			Data struct {
				Error string `json:"error"`
			} `json:"data"`
		} `json:"error"`
	}
	waitFor(t, `the answer to request "big-1"`, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, msg := range r.sent {
			if strings.Contains(string(msg), `"big-1"`) && json.Unmarshal(msg, &answer) == nil && answer.ID == "big-1" {
				return true
			}
		}
		return false
	})
	if answer.Error.Code != -32602 || !strings.Contains(answer.Error.Data.Error, "over the 8 MiB limit of one message from an agent") {
		t.Errorf("the answer: %+v", answer)
	}
	if _, err := r.prompt(m.ID, "again"); err != nil || r.lastAgentText(m.ID) != "echo: again" {
		t.Errorf("the next prompt: %v, %q", err, r.lastAgentText(m.ID))
	}
}

// transcriptNotes are the note entries of a chat's transcript, a line each.
func transcriptNotes(r *acpRig, id string) string {
	var notes []string
	for _, e := range r.mux.Transcript(id) {
		if e.Kind == proto.EntryNote {
			notes = append(notes, e.Text)
		}
	}
	return strings.Join(notes, "\n")
}
