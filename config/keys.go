package config

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
)

// Actions are the names under `[keys]` that can be rebound.
var Actions = []string{
	"up", "down", "focus", "leave", "new", "add_folders", "fork", "side",
	"handoff", "restart", "stop", "delete", "filter", "help", "quit",
	"remove_missing", "rename", "start_server", "export", "import", "pick_files",
	"review", "worktree", "sandbox", "cost", "mark", "broadcast", "options", "search",
	"sign_in", "fold", "copy", "copy_code", "find",
}

// KeyMap holds every key binding of the app, built from the defaults
// (docs/keys.md) and the `[keys]` table of the config.
type KeyMap struct {
	Up, Down, Focus, Leave, New, AddFolders key.Binding
	Fork, Side, Handoff, Restart, Stop      key.Binding
	Delete, Filter, Help, Quit              key.Binding
	RemoveMissing, Rename                   key.Binding
	// StartServer starts a server while the TUI has none to talk to.
	StartServer key.Binding
	// PickFiles toggles what a pick in the folder picker adds: folders
	// (the default) or single files.
	PickFiles key.Binding
	// Export writes the selected chat's bundle; Import adds a chat from
	// one, under the roots chosen.
	Export, Import key.Binding
	// Review opens the review pane: what the selected chat changed.
	Review key.Binding
	// Worktree turns a git worktree for the chat on or off in the
	// new-chat and the fork dialogs.
	Worktree key.Binding
	// Sandbox turns the chat's sandbox (Landlock: its harness writes only
	// in its folders and files) on or off in the new-chat and the fork
	// dialogs. Its default is ctrl+l, for Landlock: ctrl+b is tmux's
	// prefix and moves the cursor left in the dialogs' text fields.
	Sandbox key.Binding
	// Cost shows or hides each chat's cost in the sidebar.
	Cost key.Binding
	// Mark marks the selected chat for one prompt to several; Broadcast
	// opens that prompt, for the marked chats (or the selected one).
	Mark, Broadcast key.Binding
	// Options opens the chooser of an ACP chat's mode and configuration
	// options (its model...).
	Options key.Binding
	// Search finds chats on every host by their names, folders,
	// conversations and screens.
	Search key.Binding
	// SignIn opens the sign-in dialog of an ACP chat whose agent wants a
	// sign-in: the ways it offered.
	SignIn key.Binding
	// Fold opens every folded tool card, thought and long message of a
	// focused ACP chat's transcript, or folds them again.
	Fold key.Binding
	// Copy puts the last agent message of a focused ACP chat (its
	// markdown) on the terminal's clipboard; CopyCode its last code block.
	Copy, CopyCode key.Binding
	// Find opens the search line over a focused ACP chat's transcript.
	Find key.Binding
}

type actionDefault struct {
	keys []string
	help string
	bind func(*KeyMap) *key.Binding
}

var defaults = map[string]actionDefault{
	"up":             {[]string{"k", "up"}, "up", func(k *KeyMap) *key.Binding { return &k.Up }},
	"down":           {[]string{"j", "down"}, "down", func(k *KeyMap) *key.Binding { return &k.Down }},
	"focus":          {[]string{"enter"}, "open chat", func(k *KeyMap) *key.Binding { return &k.Focus }},
	"leave":          {[]string{"ctrl+]"}, "back to list", func(k *KeyMap) *key.Binding { return &k.Leave }},
	"new":            {[]string{"n"}, "new chat", func(k *KeyMap) *key.Binding { return &k.New }},
	"add_folders":    {[]string{"a"}, "add folders", func(k *KeyMap) *key.Binding { return &k.AddFolders }},
	"fork":           {[]string{"f"}, "fork", func(k *KeyMap) *key.Binding { return &k.Fork }},
	"side":           {[]string{"s"}, "side chat", func(k *KeyMap) *key.Binding { return &k.Side }},
	"handoff":        {[]string{"h"}, "hand off", func(k *KeyMap) *key.Binding { return &k.Handoff }},
	"restart":        {[]string{"r"}, "restart", func(k *KeyMap) *key.Binding { return &k.Restart }},
	"stop":           {[]string{"x"}, "stop", func(k *KeyMap) *key.Binding { return &k.Stop }},
	"delete":         {[]string{"D"}, "delete", func(k *KeyMap) *key.Binding { return &k.Delete }},
	"filter":         {[]string{"/"}, "filter", func(k *KeyMap) *key.Binding { return &k.Filter }},
	"help":           {[]string{"?"}, "all keys", func(k *KeyMap) *key.Binding { return &k.Help }},
	"quit":           {[]string{"q"}, "quit", func(k *KeyMap) *key.Binding { return &k.Quit }},
	"remove_missing": {[]string{"M"}, "remove missing folders", func(k *KeyMap) *key.Binding { return &k.RemoveMissing }},
	"pick_files":     {[]string{"ctrl+t"}, "picker: files/folders", func(k *KeyMap) *key.Binding { return &k.PickFiles }},
	"rename":         {[]string{"R"}, "rename", func(k *KeyMap) *key.Binding { return &k.Rename }},
	"start_server":   {[]string{"S"}, "start a server", func(k *KeyMap) *key.Binding { return &k.StartServer }},
	"export":         {[]string{"e"}, "export chat", func(k *KeyMap) *key.Binding { return &k.Export }},
	"import":         {[]string{"i"}, "import chat", func(k *KeyMap) *key.Binding { return &k.Import }},
	"review":         {[]string{"d"}, "review changes", func(k *KeyMap) *key.Binding { return &k.Review }},
	"worktree":       {[]string{"ctrl+g"}, "worktree on/off", func(k *KeyMap) *key.Binding { return &k.Worktree }},
	"sandbox":        {[]string{"ctrl+l"}, "sandbox on/off", func(k *KeyMap) *key.Binding { return &k.Sandbox }},
	"cost":           {[]string{"$"}, "cost in the list", func(k *KeyMap) *key.Binding { return &k.Cost }},
	"mark":           {[]string{" "}, "mark for one prompt to several", func(k *KeyMap) *key.Binding { return &k.Mark }},
	"broadcast":      {[]string{"p"}, "prompt the marked chats", func(k *KeyMap) *key.Binding { return &k.Broadcast }},
	"options":        {[]string{"o"}, "mode and model", func(k *KeyMap) *key.Binding { return &k.Options }},
	"search":         {[]string{"F"}, "search all chats", func(k *KeyMap) *key.Binding { return &k.Search }},
	"sign_in":        {[]string{"A"}, "sign in to the agent", func(k *KeyMap) *key.Binding { return &k.SignIn }},
	"fold":           {[]string{"ctrl+o"}, "open/fold cards", func(k *KeyMap) *key.Binding { return &k.Fold }},
	"copy":           {[]string{"ctrl+y"}, "copy message", func(k *KeyMap) *key.Binding { return &k.Copy }},
	"copy_code":      {[]string{"alt+y"}, "copy code", func(k *KeyMap) *key.Binding { return &k.CopyCode }},
	"find":           {[]string{"ctrl+f"}, "search the chat", func(k *KeyMap) *key.Binding { return &k.Find }},
}

// KeyMap builds the key map: the defaults, with every action named under
// `[keys]` replaced by the keys given there. A key given there is taken
// from the default of any other action, so the binding asked for wins (up
// rebound to "i" moves up; import is then left its other keys, or none).
func (c *Config) KeyMap() KeyMap {
	var km KeyMap
	taken := map[string]bool{}
	for _, keys := range c.Keys {
		for _, k := range keys {
			taken[k] = true
		}
	}
	for _, action := range Actions {
		d := defaults[action]
		var keys []string
		if override, ok := c.Keys[action]; ok {
			keys = override
		} else {
			for _, k := range d.keys {
				if !taken[k] {
					keys = append(keys, k)
				}
			}
		}
		b := key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.ReplaceAll(strings.Join(keys, "/"), " ", "space"), d.help))
		if len(keys) == 0 {
			b.SetEnabled(false)
		}
		*d.bind(&km) = b
	}
	return km
}

// namedKeys are the multi-character key names Bubble Tea reports.
var namedKeys = map[string]bool{
	"enter": true, "tab": true, "shift+tab": true, "esc": true, "backspace": true,
	"delete": true, "insert": true, "space": true, " ": true, "up": true, "down": true,
	"left": true, "right": true, "home": true, "end": true, "pgup": true, "pgdown": true,
	"shift+up": true, "shift+down": true, "shift+left": true, "shift+right": true,
	"ctrl+up": true, "ctrl+down": true, "ctrl+left": true, "ctrl+right": true,
	"ctrl+home": true, "ctrl+end": true, "ctrl+pgup": true, "ctrl+pgdown": true,
	"f1": true, "f2": true, "f3": true, "f4": true, "f5": true, "f6": true,
	"f7": true, "f8": true, "f9": true, "f10": true, "f11": true, "f12": true,
}

// checkKeyName accepts the key names Bubble Tea reports: one character, a
// named key, or ctrl+/alt+ with a character or named key.
func checkKeyName(k string) error {
	rest := k
	if strings.HasPrefix(rest, "alt+") {
		rest = rest[4:]
	}
	if c, ok := strings.CutPrefix(rest, "ctrl+"); ok {
		if len(c) == 1 && (c[0] >= 'a' && c[0] <= 'z' || strings.IndexByte(`@[\]^_`, c[0]) >= 0) {
			return nil
		}
		if namedKeys["ctrl+"+c] {
			return nil
		}
		return fmt.Errorf("unknown key %q", k)
	}
	if namedKeys[rest] || (utf8.RuneCountInString(rest) == 1 && rest != "" && rest[0] >= ' ') {
		return nil
	}
	return fmt.Errorf("unknown key %q (use names like \"q\", \"ctrl+n\", \"enter\", \"pgup\")", k)
}
