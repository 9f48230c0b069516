package proto

// This file is the part of the wire that tells clients of changes made
// outside them: chat files written by hand or by another program, and a
// config file the server refused (a config it put in effect is
// NotifyConfigChanged, config.go).

// The notifications.
const (
	// NotifyChatsChanged ({ids}) is sent to every watcher when chat files
	// changed on disk: written in place, copied over, created, renamed into
	// place or removed, by hand, by another acpmux-tui process or by the
	// server itself. ids are the chats whose files changed (a removed one
	// among them); a client reads them again. Changes within a short while
	// are sent as one.
	NotifyChatsChanged = "_acpmux/chatsChanged"
	// NotifyConfigRefused ({message}) is sent to every watcher, and to the
	// client whose call had it read again, when the config file was
	// refused: read again before a call that may name a harness or a host,
	// or as the server saw it change (then once per content). message
	// names the file, the line and the key ("config PATH: line N: KEY:
	// why; the last good config stays in effect"). The server keeps the
	// last good config, and the call goes ahead with it.
	NotifyConfigRefused = "_acpmux/configRefused"
)

// ChatsChangedParams are the params of NotifyChatsChanged.
type ChatsChangedParams struct {
	IDs []string `json:"ids"`
}

// ConfigRefusedParams are the params of NotifyConfigRefused.
type ConfigRefusedParams struct {
	Message string `json:"message"`
}

// News is what a client hears of changes made outside it: chat files that
// changed on disk (Chats), or the config file the server refused
// (ConfigRefused, the refusal).
type News struct {
	Chats         []string
	ConfigRefused string
}
