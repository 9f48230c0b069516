package proto

import (
	"fmt"
	"slices"
	"strings"
)

// This file is an ACP chat's session mode and configuration options as the
// socket carries them: what its agent last said (its session setup's modes
// and configOptions, then its current_mode_update and config_option_update),
// read with MethodOptions and changed with MethodSetOption, which go to the
// agent (session/set_mode, session/set_config_option). Every name in them
// was cleaned by the mux as the agent sent it.

const (
	// MethodOptions ({id} → OptionsResult) answers an ACP chat's mode and
	// configuration options as its agent last said them; nothing is
	// started (a chat whose agent never ran has none). A chat that does not
	// speak ACP is refused with CodeInvalidParams.
	MethodOptions = "_acpmux/options"
	// MethodSetOption (SetOptionParams → OptionsResult) starts the chat's
	// agent unless it runs, then sets one option: the session mode
	// (session/set_mode) or a configuration option
	// (session/set_config_option). An option or value the agent did not
	// offer is refused with CodeInvalidParams naming the choices; the
	// agent's own refusal is CodeFailed with its message, cleaned.
	MethodSetOption = "_acpmux/setOption"
)

// OptionKind is what kind of setting a ChatOption is.
type OptionKind string

// The kinds of ChatOption.
const (
	// OptionMode is the session mode of ACP's session modes
	// (availableModes, currentModeId), set with session/set_mode.
	OptionMode OptionKind = "mode"
	// OptionSelect is a configuration option of type "select": one value
	// of a list.
	OptionSelect OptionKind = "select"
	// OptionBoolean is a configuration option of type "boolean"; its
	// values are "true" and "false".
	OptionBoolean OptionKind = "boolean"
)

// ModeOptionID is the id the session mode goes by among a chat's options
// (its Kind is OptionMode); `set ID mode VALUE` names it.
const ModeOptionID = "mode"

// ChatOption is one setting of an ACP chat: the session mode, or one of
// its agent's configuration options, with its values and the current one.
type ChatOption struct {
	ID   string     `json:"id"`
	Name string     `json:"name"`
	Kind OptionKind `json:"kind"`
	// Category is a configuration option's category as the agent gave it
	// ("mode", "model", "thought_level", or its own); an option of
	// category "mode" stands for the session mode (ACP: configuration
	// options supersede modes), and the modes are then left out.
	Category    string `json:"category,omitempty"`
	Description string `json:"description,omitempty"`
	// Current is the id of the current value.
	Current string        `json:"current"`
	Values  []OptionValue `json:"values"`
}

// OptionValue is one value a ChatOption may take.
type OptionValue struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Group is the name of the group a select option lists it under.
	Group string `json:"group,omitempty"`
}

// OptionsResult is the answer to MethodOptions and MethodSetOption.
type OptionsResult struct {
	// Running is set when the chat's agent runs (its options are live);
	// else they are what it said before it stopped.
	Running bool         `json:"running"`
	Options []ChatOption `json:"options"`
}

// SetOptionParams are the params of MethodSetOption. Option is an
// option's id or name, or "mode" for the session mode; Value is one of its
// values' id or name. Names match without regard to case; an exact id wins.
type SetOptionParams struct {
	ID     string `json:"id"`
	Option string `json:"option"`
	Value  string `json:"value"`
}

// Setting is one of an ACP chat's options as the summary shows it, in
// State.Settings: its name and its current value's name.
type Setting struct {
	Name, Value string
}

// MaxSettings bounds State.Settings: a state travels to every drawing
// client at each change.
const MaxSettings = 16

// SettingsOf is opts as State carries them: each option's name and its
// current value's name (its id when it lists none by that id), at most
// MaxSettings; nil for none.
func SettingsOf(opts []ChatOption) []Setting {
	var out []Setting
	for _, o := range opts {
		if len(out) == MaxSettings {
			break
		}
		out = append(out, Setting{Name: o.Name, Value: o.CurrentName()})
	}
	return out
}

// CurrentName is the name of the option's current value, or its id when
// no value has that id.
func (o ChatOption) CurrentName() string {
	if v, ok := o.Value(o.Current); ok {
		return v.Name
	}
	return o.Current
}

// Value is the value whose id is id.
func (o ChatOption) Value(id string) (OptionValue, bool) {
	i := slices.IndexFunc(o.Values, func(v OptionValue) bool { return v.ID == id })
	if i < 0 {
		return OptionValue{}, false
	}
	return o.Values[i], true
}

// sameSettings is slices.Equal that, as reflect.DeepEqual, tells nil from
// empty.
func sameSettings(a, b []Setting) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// FindOption is the option that name means among opts: its id, exactly,
// else its id or name without regard to case; "mode" is also the session
// mode, or the option of category "mode" that stands for it. Not found,
// the error names every option.
func FindOption(opts []ChatOption, name string) (ChatOption, error) {
	pick := func(match func(ChatOption) bool) (ChatOption, bool) {
		i := slices.IndexFunc(opts, match)
		if i < 0 {
			return ChatOption{}, false
		}
		return opts[i], true
	}
	if o, ok := pick(func(o ChatOption) bool { return o.ID == name }); ok {
		return o, nil
	}
	if o, ok := pick(func(o ChatOption) bool { return strings.EqualFold(o.ID, name) || strings.EqualFold(o.Name, name) }); ok {
		return o, nil
	}
	if strings.EqualFold(name, ModeOptionID) {
		if o, ok := pick(func(o ChatOption) bool { return o.Kind == OptionMode || o.Category == ModeOptionID }); ok {
			return o, nil
		}
	}
	if len(opts) == 0 {
		return ChatOption{}, fmt.Errorf("no option %q: the agent offers no modes or options", name)
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = choiceName(o.ID, o.Name)
	}
	return ChatOption{}, fmt.Errorf("no option %q: the options are %s", name, strings.Join(names, ", "))
}

// FindValue is the value that name means among o's: its id, exactly, else
// its id or name without regard to case (a boolean's also "on" and
// "off"). Not found, the error names every value.
func (o ChatOption) FindValue(name string) (OptionValue, error) {
	if v, ok := o.Value(name); ok {
		return v, nil
	}
	for _, v := range o.Values {
		if strings.EqualFold(v.ID, name) || strings.EqualFold(v.Name, name) {
			return v, nil
		}
	}
	names := make([]string, len(o.Values))
	for i, v := range o.Values {
		names[i] = choiceName(v.ID, v.Name)
	}
	return OptionValue{}, fmt.Errorf("%s has no value %q: its values are %s", o.Name, name, strings.Join(names, ", "))
}

// choiceName is an id with its name beside it when they differ.
func choiceName(id, name string) string {
	if name == "" || strings.EqualFold(id, name) {
		return id
	}
	return id + " (" + name + ")"
}
