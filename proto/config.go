package proto

// This file is the part of the wire that carries the config in effect: a
// running server is the one reader of the config file, and its clients
// (the TUI, `acp`, `prompt`) take the harness table and the hosts from it.

// MethodConfig ({} → ConfigResult) reads the config file again and answers
// what is in effect then: the harness table, the defaults and the hosts.
// A file refused keeps the last good config in effect; Refused says why
// (and the caller and every watcher hear NotifyConfigRefused).
const MethodConfig = "_acpmux/config"

// NotifyConfigChanged (ConfigResult) is sent to every watcher each time the
// server puts a config in effect that differs from the one before: the
// file was edited (the server watches it) or read again before a call. A
// client that shows harnesses or hosts takes them from it.
const NotifyConfigChanged = "_acpmux/configChanged"

// ConfigResult is the config in effect, as clients need it: the answer to
// MethodConfig and the params of NotifyConfigChanged.
type ConfigResult struct {
	// Generation counts the configs this server has put in effect; a
	// client keeps the highest it heard (an answer and a notice may cross).
	Generation uint64 `json:"generation"`
	// Harnesses is the harness table, in its order: the built-ins, then
	// those the file adds.
	Harnesses []HarnessInfo `json:"harnesses"`
	// DefaultHarness is what a new chat gets when none is named;
	// DefaultACPHarness what the ACP door's new sessions get ("" when no
	// ACP harness is installed).
	DefaultHarness    string `json:"defaultHarness"`
	DefaultACPHarness string `json:"defaultACPHarness,omitempty"`
	// Worktree is the config's `worktree` default for new chats.
	Worktree bool `json:"worktree,omitempty"`
	// Hosts are the configured [host.NAME] tables, by name.
	Hosts []HostConfig `json:"hosts"`
	// Refused is why the file as it is now was refused ("config PATH: line
	// N: KEY: why; the last good config stays in effect"), "" when what it
	// holds is in effect.
	Refused string `json:"refused,omitempty"`
}

// Harness returns the harness of that name.
func (c ConfigResult) Harness(name string) (HarnessInfo, bool) {
	for _, h := range c.Harnesses {
		if h.Name == name {
			return h, true
		}
	}
	return HarnessInfo{}, false
}

// HarnessInfo is one harness of the table in effect, with what a client
// needs to offer it and to say how a chat's folders and files reach it.
type HarnessInfo struct {
	Name string `json:"name"`
	// Transport is "pty" or "acp"; Kind how folders and session ids reach
	// it ("claude", "codex", "gemini", "plain", "acp").
	Transport string `json:"transport"`
	Kind      string `json:"kind"`
	// Command is the program it runs, as the config names it.
	Command string `json:"command"`
	// FolderFlag is the flag given once per folder, if any;
	// AdvertisesFolders is the table's expectation that an ACP harness
	// takes additionalDirectories.
	FolderFlag        string `json:"folderFlag,omitempty"`
	AdvertisesFolders bool   `json:"advertisesFolders,omitempty"`
	// Installed is set when the server finds the command (on its PATH).
	Installed bool `json:"installed"`
	// Sandbox is whether a new chat on this harness is sandboxed unless
	// asked otherwise (its `sandbox`, else the config's).
	Sandbox bool `json:"sandbox,omitempty"`
}

// HostConfig is one configured [host.NAME]: what a client needs to reach
// that host's server over OpenSSH.
type HostConfig struct {
	Name       string   `json:"name"`
	SSH        string   `json:"ssh"`
	SSHOptions []string `json:"sshOptions,omitempty"`
	Home       string   `json:"home,omitempty"`
	Command    string   `json:"command,omitempty"`
	Budget     int64    `json:"budget,omitempty"`
}
