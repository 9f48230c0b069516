package sessions

// FilesViaWords says how a chat's single files reach its harness, from
// Meta.FilesVia (ChatJSON.FilesVia), in the words `show` and the TUI's
// summary pane use: "acp" is resource links and the fs/* methods, "flag" a
// note in a system-prompt flag and the environment, "env" the environment
// only. A chat not yet started with its files has none of them.
func FilesViaWords(via string) string {
	switch via {
	case "acp":
		return "resource links + fs"
	case "flag":
		return "system-prompt note + env"
	case "env":
		return "env ACPMUX_ADDITIONAL_FILES"
	case "", "none":
		return "not started with them yet"
	}
	return via
}
