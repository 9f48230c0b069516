package e2e

import "github.com/acpmux/acpmux-tui/proto"

// The --json outputs that are not proto's types, as a program reading
// them decodes them (docs/cli.md names each field). Package main prints
// them from types of its own, which this package cannot import: these are
// the reader's copies, so a field renamed there fails here.

// harnessJSON is one row of `harnesses --json`.
type harnessJSON struct {
	Name       string   `json:"name"`
	Transport  string   `json:"transport"`
	Kind       string   `json:"kind"`
	Command    string   `json:"command"`
	Args       []string `json:"args"`
	Installed  string   `json:"installed"`
	FoldersVia string   `json:"foldersVia"`
}

// versionJSON is what `version --json` prints.
type versionJSON struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
}

// hostJSON is one host as `hosts --json` prints it.
type hostJSON struct {
	Name     string `json:"name"`
	SSH      string `json:"ssh"`
	Answers  bool   `json:"answers"`
	Version  string `json:"version,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	Chats    int    `json:"chats"`
	Error    string `json:"error,omitempty"`
}

// diffJSON is what `diff --json` prints.
type diffJSON struct {
	ID       string                `json:"id"`
	Sections []proto.ReviewSection `json:"sections"`
}
