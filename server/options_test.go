package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestChatOptionsThroughTheAgent: _acpmux/options answers an ACP chat's
// mode and options as the agent last said them (none before it ran; the
// names cleaned of the escapes the fake puts in one), without starting
// it; _acpmux/setOption starts it, matches ids and names without regard to
// case, sets through the agent and answers the options then, which the
// chat's state carries too (State.Settings); an unknown option or value
// is refused with -32602 naming the choices; the agent's refusal is -32000
// with its message cleaned; a terminal chat has no options (-32602).
func TestChatOptionsThroughTheAgent(t *testing.T) {
	r := newDoorRig(t, map[string]string{"ACPMUX_FAKE_MODES": "1", "ACPMUX_FAKE_REFUSE": "1"})
	w := r.dial()
	var chat proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "fake"}, &chat)

	var res proto.OptionsResult
	w.ok(proto.MethodOptions, proto.IDParams{ID: chat.ID}, &res)
	if res.Running || res.Options == nil || len(res.Options) != 0 {
		t.Fatalf("options before a start: %+v", res)
	}
	if st := r.srv.opt.Mux.State(chat.ID); st.Status.Live() {
		t.Fatalf("_acpmux/options started the chat: %v", st.Status)
	}

	w.ok(proto.MethodSetOption, proto.SetOptionParams{ID: chat.ID, Option: "MODEL", Value: "smart"}, &res)
	if !res.Running || len(res.Options) != 2 || res.Options[0].ID != "mode" || res.Options[0].Current != "ask" || res.Options[1].Current != "smart" {
		t.Fatalf("after model=smart: %+v", res)
	}
	slow, ok := res.Options[1].Value("slow")
	if !ok || slow.Name != "Slow" {
		t.Fatalf("the refused model's name %q: want it cleaned to Slow", slow.Name)
	}
	w.ok(proto.MethodSetOption, proto.SetOptionParams{ID: chat.ID, Option: "mode", Value: "Code"}, &res)
	if res.Options[0].Current != "code" {
		t.Fatalf("after mode=Code: %+v", res.Options[0])
	}
	if st := r.srv.opt.Mux.State(chat.ID); len(st.Settings) != 2 || st.Settings[0] != (proto.Setting{Name: "Mode", Value: "Code"}) || st.Settings[1] != (proto.Setting{Name: "Model", Value: "Smart"}) {
		t.Fatalf("the chat's state carries %+v", st.Settings)
	}

	e := w.fails(proto.CodeInvalidParams, proto.MethodSetOption, proto.SetOptionParams{ID: chat.ID, Option: "model", Value: "huge"})
	if !strings.Contains(e.Message, `no value "huge": its values are fast, smart, slow`) {
		t.Fatalf("an unknown value: %q", e.Message)
	}
	e = w.fails(proto.CodeInvalidParams, proto.MethodSetOption, proto.SetOptionParams{ID: chat.ID, Option: "colour", Value: "red"})
	if !strings.Contains(e.Message, `no option "colour": the options are mode, model`) {
		t.Fatalf("an unknown option: %q", e.Message)
	}

	for _, refused := range []struct{ option, value, says string }{
		{"model", "slow", "the agent refused Model Slow: slow is not on your plan"},
		{"mode", "yolo", "the agent refused Mode Yolo: yolo mode is off by policy"},
	} {
		e = w.fails(proto.CodeFailed, proto.MethodSetOption, proto.SetOptionParams{ID: chat.ID, Option: refused.option, Value: refused.value})
		if e.Message != refused.says {
			t.Fatalf("%s=%s refused with %q, want %q", refused.option, refused.value, e.Message, refused.says)
		}
	}
	w.ok(proto.MethodOptions, proto.IDParams{ID: chat.ID}, &res)
	if b, _ := json.Marshal(res); res.Options[0].Current != "code" || res.Options[1].Current != "smart" || strings.ContainsAny(string(b), "\x1b\x07") || strings.Contains(string(b), `\u001b`) {
		t.Fatalf("after the refusals: %s", b)
	}

	var shell proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &shell)
	e = w.fails(proto.CodeInvalidParams, proto.MethodOptions, proto.IDParams{ID: shell.ID})
	if !strings.Contains(e.Message, "does not speak ACP") {
		t.Fatalf("a terminal chat's options: %q", e.Message)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodSetOption, proto.SetOptionParams{ID: shell.ID, Option: "mode", Value: "code"})
	w.fails(proto.CodeChatNotFound, proto.MethodOptions, proto.IDParams{ID: "nochat"})
}
