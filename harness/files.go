package harness

import (
	"strings"

	"github.com/acpmux/acpmux-tui/sessions"
)

// This file says how a chat's single files (additional_files) reach each
// harness. Every pty harness finds them in ACPMUX_ADDITIONAL_FILES; Claude
// Code also gets a note naming them in its system prompt
// (--append-system-prompt), Codex the same note in its developer
// instructions (-c developer_instructions=…). Gemini CLI has no flag that
// adds to its system prompt (GEMINI_SYSTEM_MD replaces it whole), so it and
// a plain harness get the variable only. An ACP agent gets a resource_link
// block per file at the head of its first prompt (the mux does that).

// EnvAdditionalFiles carries a pty harness's single files, colon-separated.
const EnvAdditionalFiles = "ACPMUX_ADDITIONAL_FILES"

// FlagAppendSystemPrompt is Claude Code's flag that adds text to the end of
// its system prompt, in interactive mode as in print mode.
const FlagAppendSystemPrompt = "--append-system-prompt"

// FilesNoteHead is the first line of the note that names a chat's single
// files to a harness that takes one (Claude Code, Codex).
const FilesNoteHead = "[acpmux-tui] The user shared these single files with this chat, besides its folders; it may read and edit them:\n"

// FilesNote is the note that names a chat's single files and says they may
// be read and edited, one "- PATH" line each, with no newline at the end.
func FilesNote(files []string) string {
	var b strings.Builder
	b.WriteString(FilesNoteHead)
	for _, f := range files {
		b.WriteString("- " + f + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FilesVia says how a chat's single files reach this harness: "acp" (a
// resource_link block per file) for an ACP agent, "flag" (a system-prompt
// note, and the environment) for Claude Code and Codex, "env"
// (ACPMUX_ADDITIONAL_FILES only) for any other pty harness, or "none" when
// the chat has no files.
func (s Spec) FilesVia(files int) string {
	switch {
	case files == 0:
		return ViaNone
	case s.Transport == TransportACP:
		return ViaACP
	case s.Kind == KindClaude, s.Kind == KindCodex:
		return ViaFlag
	}
	return ViaEnv
}

// ChatFilesVia says how chat m's single files reach this harness: "none"
// when it has none; else the way they went at its last start, recorded then
// (Meta.FilesVia); else, before its first start, the table's expectation,
// with expected set.
func (s Spec) ChatFilesVia(m *sessions.Meta) (via string, expected bool) {
	n := len(m.AdditionalFiles)
	switch {
	case n == 0:
		return ViaNone, false
	case m.FilesVia != "":
		return m.FilesVia, false
	}
	return s.FilesVia(n), true
}

// withClaudeFilesNote gives Claude Code the files note in its system prompt.
// A --append-system-prompt of the user's own (in the harness's args, before
// any "--") would be overridden by a second one, so the note is added to it,
// after the user's text; else the flag is appended.
func withClaudeFilesNote(argv []string, files []string) []string {
	note := FilesNote(files)
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i = len(argv)
		case a == FlagAppendSystemPrompt && i+1 < len(argv):
			argv[i+1] = joinNotes(argv[i+1], note)
			return argv
		case strings.HasPrefix(a, FlagAppendSystemPrompt+"="):
			argv[i] = FlagAppendSystemPrompt + "=" + joinNotes(a[len(FlagAppendSystemPrompt)+1:], note)
			return argv
		}
	}
	return append(argv, FlagAppendSystemPrompt, note)
}

// joinNotes puts a note of ours after text of the user's, a blank line
// between.
func joinNotes(own, note string) string {
	if own == "" {
		return note
	}
	return own + "\n\n" + note
}
