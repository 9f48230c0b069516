package proto

import (
	"strings"
	"testing"
)

// TestFindOptionAndValue: an option is found by its exact id first, then
// by id or name without regard to case; "mode" is the session mode or the
// option of category "mode"; a value likewise; what is not found is
// refused naming every choice.
func TestFindOptionAndValue(t *testing.T) {
	opts := []ChatOption{
		{ID: "thought", Name: "Thought level", Kind: OptionSelect, Current: "low", Values: []OptionValue{{ID: "low", Name: "Low"}, {ID: "high", Name: "High"}}},
		{ID: "agent_mode", Name: "Agent", Kind: OptionSelect, Category: "mode", Current: "plan", Values: []OptionValue{{ID: "plan", Name: "Plan"}, {ID: "build", Name: "Build"}}},
		{ID: "Model", Name: "thought", Kind: OptionSelect, Current: "a", Values: []OptionValue{{ID: "a", Name: "Alpha"}}},
	}
	tests := []struct{ name, want string }{
		{"thought", "thought"},       // an exact id wins over another's name
		{"THOUGHT LEVEL", "thought"}, // a name, any case
		{"model", "Model"},           // an id, any case
		{"Mode", "agent_mode"},       // the option of category mode
		{"agent", "agent_mode"},      // its name
		{"AGENT_MODE", "agent_mode"}, // its id, any case
	}
	for _, tt := range tests {
		o, err := FindOption(opts, tt.name)
		if err != nil || o.ID != tt.want {
			t.Errorf("FindOption(%q) = %q, %v; want %q", tt.name, o.ID, err, tt.want)
		}
	}
	_, err := FindOption(opts, "colour")
	if err == nil || err.Error() != `no option "colour": the options are thought (Thought level), agent_mode (Agent), Model (thought)` {
		t.Errorf("an unknown option: %v", err)
	}
	if _, err := FindOption(nil, "mode"); err == nil || !strings.Contains(err.Error(), "offers no modes or options") {
		t.Errorf("no options: %v", err)
	}
	withMode := append([]ChatOption{{ID: ModeOptionID, Name: "Mode", Kind: OptionMode, Current: "ask", Values: []OptionValue{{ID: "ask", Name: "Ask"}}}}, opts[0])
	if o, err := FindOption(withMode, "MODE"); err != nil || o.Kind != OptionMode {
		t.Errorf("the session mode: %+v, %v", o, err)
	}

	for _, tt := range []struct{ name, want string }{{"high", "high"}, {"HIGH", "high"}, {"Low", "low"}} {
		if v, err := opts[0].FindValue(tt.name); err != nil || v.ID != tt.want {
			t.Errorf("FindValue(%q) = %q, %v", tt.name, v.ID, err)
		}
	}
	if _, err := opts[0].FindValue("max"); err == nil || err.Error() != `Thought level has no value "max": its values are low, high` {
		t.Errorf("an unknown value: %v", err)
	}
	if got := SettingsOf(opts); len(got) != 3 || got[0] != (Setting{"Thought level", "Low"}) || got[2] != (Setting{"thought", "Alpha"}) {
		t.Errorf("SettingsOf: %+v", got)
	}
	if got := (ChatOption{Current: "gone"}).CurrentName(); got != "gone" {
		t.Errorf("a current value not listed is named by its id, got %q", got)
	}
}
