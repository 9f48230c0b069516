package tui

import (
	"fmt"
	"reflect"

	tea "github.com/charmbracelet/bubbletea"
)

// focusReport gives back a focus report (CSI I, CSI O) that Bubble Tea v1
// did not recognise: its reader takes one only when a read holds it alone,
// so a focus-out that arrives in one read with the keys typed next (a busy
// machine, a fast typist) comes as an unknown CSI sequence, and the server
// would go on thinking the user sees the chat. Any other message is
// returned as it is.
func focusReport(msg tea.Msg) tea.Msg {
	s, ok := msg.(fmt.Stringer)
	if !ok || reflect.TypeOf(msg).String() != "tea.unknownCSISequenceMsg" {
		// A key (every key is a Stringer) goes by with no formatting.
		return msg
	}
	switch s.String() {
	case "?CSI[79]?": // CSI O: focus out
		return tea.BlurMsg{}
	case "?CSI[73]?": // CSI I: focus in
		return tea.FocusMsg{}
	}
	return msg
}
