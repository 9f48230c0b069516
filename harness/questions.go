package harness

import "strings"

// screenQuestions are questions terminal harnesses put on their screens
// and then wait for an answer to, which no hook reports: a chat that falls
// quiet with one of them on its screen is asking, not waiting. Each is as
// the harness prints it (the real programs' screens, see the tests that
// start them), matched case-sensitively on one line.
var screenQuestions = []string{
	"Do you trust the files in this folder?",       // Gemini CLI's and Claude Code's trust dialogs
	"Do you trust the contents of this directory",  // Codex's
	"Do you want to proceed?",                      // Claude Code's permission prompt
	"Would you like to run the following command?", // Codex's approval
	"Would you like to make the following edits?",  // Codex's approval
	"Allow execution of",                           // Gemini CLI's tool confirmation
	"Apply this change?",                           // Gemini CLI's edit confirmation
}

// AsksOnScreen reports whether one of lines (a screen's, as plain text)
// holds a question the harness waits to have answered.
func AsksOnScreen(lines []string) bool {
	for _, l := range lines {
		for _, q := range screenQuestions {
			if strings.Contains(l, q) {
				return true
			}
		}
	}
	return false
}
