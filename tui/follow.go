package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// This file keeps the TUI in step with what changes under it: the selected
// chat's folders on disk.

// folderTickMsg asks for the selected chat's folders to be looked at again.
type folderTickMsg struct{}

// folderTick waits every, then asks for the selected chat's folders to be
// checked (off the UI goroutine, by checkFolders); never when every <= 0.
func folderTick(every time.Duration) tea.Cmd {
	if every <= 0 {
		return nil
	}
	return tea.Tick(every, func(time.Time) tea.Msg { return folderTickMsg{} })
}
