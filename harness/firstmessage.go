package harness

// This file says how a chat's first message (a handoff's capsule) reaches a
// pty harness on its command line, and which harnesses branch a
// conversation themselves when a chat is forked.

// InitialPromptArgs returns the arguments that give a pty harness text as
// the first message of its conversation, appended after every other
// argument (the folder flags included); nil when the harness takes none on
// its command line (a plain shell, an ACP agent: that one gets it as its
// first session/prompt).
//
//   - Claude Code: a positional prompt, after "--" so that a variadic
//     option before it (--add-dir) does not take it as one more folder.
//   - Codex: a positional prompt, after "--".
//   - Gemini CLI: --prompt-interactive=TEXT, which runs it and stays
//     interactive (-i).
func (s Spec) InitialPromptArgs(text string) []string {
	if text == "" || s.Transport != TransportPty {
		return nil
	}
	switch s.Kind {
	case KindClaude, KindCodex:
		return []string{"--", text}
	case KindGemini:
		return []string{"--prompt-interactive=" + text}
	}
	return nil
}

// TakesInitialPrompt reports whether a chat's first message can reach the
// harness at its start: on a pty harness's command line, or as an ACP
// agent's first prompt.
func (s Spec) TakesInitialPrompt() bool {
	return s.Transport == TransportACP || s.InitialPromptArgs("x") != nil
}

// NativeFork says whether a fork of a chat of this harness carries the
// conversation by the harness's own means: Claude Code (--resume PARENT
// --fork-session), Codex (codex fork PARENT), and an ACP agent when it
// advertises session/fork. That is learnt only at the agent's initialize,
// so for ACP the answer is "maybe": the fork is made with a capsule, which
// the mux drops when session/fork succeeds. Every other harness forks as a
// capsule: a fresh conversation whose first message says what was said.
//
// This is the one place to change when another harness learns to fork.
func (s Spec) NativeFork() (native, maybe bool) {
	switch {
	case s.Transport == TransportACP:
		return false, true
	case s.Kind == KindClaude, s.Kind == KindCodex:
		return true, false
	}
	return false, false
}

// ForkedAsCapsule is what `show` and the TUI say of a fork made as a
// capsule (NativeFork is false): one wording, the one docs/cli.md quotes.
const ForkedAsCapsule = "forked as a capsule: the harness has no native fork"
