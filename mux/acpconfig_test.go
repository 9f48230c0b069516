package mux

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/acpmux/acpmux-tui/internal/plaintext"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestCleanConfigAndChatOptions: the agent's modes and options are kept
// with their names cleaned (no escapes, controls or bidirectional
// characters), and a mode, option or value whose id is not one line of
// printable text is left out; as the socket carries them, the session mode
// comes first unless an option of category "mode" stands for it, a grouped
// select lists every value with its group, a boolean has "true" and
// "false".
func TestCleanConfigAndChatOptions(t *testing.T) {
	desc := "Asks\x1b[31m first\u202e"
	grouped := acp.SessionConfigSelectOptionsGrouped{{Group: "g", Name: "Big\x07 ones", Options: []acp.SessionConfigSelectOption{
		{Value: "opus", Name: "Opus"}, {Value: "bad\nid", Name: "Bad"}}}}
	sel := acp.NewSessionConfigOptionSelect("opus", acp.SessionConfigSelectOptions{Grouped: &grouped})
	sel.Select.Id, sel.Select.Name = "model", "Model\x1b]0;pwned\x07"
	badOption := acp.NewSessionConfigOptionSelect("x", acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{}})
	badOption.Select.Id = "bad\u202eid"
	boolean := acp.SessionConfigOption{Boolean: &acp.SessionConfigOptionBoolean{Id: "web", Name: "Web search", CurrentValue: true, Type: "boolean"}}
	cfg := SessionConfig{
		Modes: &acp.SessionModeState{CurrentModeId: "ask", AvailableModes: []acp.SessionMode{
			{Id: "ask", Name: "Ask\x1b[1m", Description: &desc}, {Id: "\x1b[2Jcode", Name: "Code"}}},
		ConfigOptions: []acp.SessionConfigOption{sel, badOption, boolean},
	}
	cleaned, dropped := cleanConfig(cfg)
	if dropped != 3 {
		t.Errorf("dropped %d, want 3 (a mode, an option, a value)", dropped)
	}
	got := chatOptions(cleaned)
	if len(got) != 3 {
		t.Fatalf("options %+v, want the mode, the model and the boolean", got)
	}
	mode, model, web := got[0], got[1], got[2]
	if mode.Kind != proto.OptionMode || mode.ID != "mode" || mode.Current != "ask" || len(mode.Values) != 1 ||
		mode.Values[0] != (proto.OptionValue{ID: "ask", Name: "Ask", Description: "Asks first"}) {
		t.Errorf("the mode: %+v", mode)
	}
	if model.Name != "Model" || model.Current != "opus" || len(model.Values) != 1 || model.Values[0] != (proto.OptionValue{ID: "opus", Name: "Opus", Group: "Big ones"}) {
		t.Errorf("the model: %+v", model)
	}
	if web.Kind != proto.OptionBoolean || web.Current != "true" || len(web.Values) != 2 || web.CurrentName() != "on" {
		t.Errorf("the boolean: %+v", web)
	}
	if s := proto.SettingsOf(got); len(s) != 3 || s[0] != (proto.Setting{Name: "Mode", Value: "Ask"}) || s[1] != (proto.Setting{Name: "Model", Value: "Opus"}) {
		t.Errorf("settings %+v", s)
	}

	// An option of category mode stands for the session mode.
	modeCat := acp.SessionConfigOptionCategoryMode
	agentMode := acp.NewSessionConfigOptionSelect("plan", acp.SessionConfigSelectOptions{Ungrouped: &acp.SessionConfigSelectOptionsUngrouped{{Value: "plan", Name: "Plan"}}})
	agentMode.Select.Id, agentMode.Select.Name, agentMode.Select.Category = "agent_mode", "Agent", &modeCat
	cleaned, _ = cleanConfig(SessionConfig{Modes: cfg.Modes, ConfigOptions: []acp.SessionConfigOption{agentMode}})
	if got := chatOptions(cleaned); len(got) != 1 || got[0].ID != "agent_mode" || got[0].Category != "mode" {
		t.Errorf("with an option of category mode: %+v", got)
	}

	// A current mode whose id is not plain drops the modes.
	cleaned, dropped = cleanConfig(SessionConfig{Modes: &acp.SessionModeState{CurrentModeId: "a\x00", AvailableModes: cfg.Modes.AvailableModes}})
	if cleaned.Modes != nil || dropped != 1 {
		t.Errorf("a bad current mode: %+v, dropped %d", cleaned.Modes, dropped)
	}
}

// FuzzCleanConfig feeds cleanConfig whatever modes and options an agent
// could send: nothing panics, and no name, description, group or id of
// what is kept (as the socket carries it) holds a control, escape or
// bidirectional character.
func FuzzCleanConfig(f *testing.F) {
	for _, seed := range []string{
		`{"Modes":{"availableModes":[{"id":"ask","name":"Ask\u001b[31m"}],"currentModeId":"ask"},"ConfigOptions":[]}`,
		`{"Modes":{"availableModes":[{"id":"a\u202eb","name":"x"}],"currentModeId":"\u0000"}}`,
		`{"ConfigOptions":[{"type":"select","id":"model","name":"M\u0007","currentValue":"a","options":[{"value":"a","name":"A\r\nB","description":"\u001b]0;x\u0007"}]}]}`,
		`{"ConfigOptions":[{"type":"select","id":"m","name":"M","currentValue":"a","options":[{"group":"g","name":"G\u202e","options":[{"value":"a\tb","name":"A"}]}]}]}`,
		`{"ConfigOptions":[{"type":"boolean","id":"web","name":"Web\u009b","currentValue":true,"category":"mode\u001b"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var cfg SessionConfig
		if json.Unmarshal(raw, &cfg) != nil {
			return
		}
		cleaned, _ := cleanConfig(cfg)
		for _, o := range chatOptions(cleaned) {
			texts := []string{o.ID, o.Name, o.Description, o.Category}
			for _, v := range o.Values {
				texts = append(texts, v.ID, v.Name, v.Description, v.Group)
			}
			for _, text := range texts {
				if strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) || plaintext.IsBidi(r) }) {
					t.Fatalf("kept %q from %s", text, raw)
				}
			}
		}
	})
}
