// Package clipboard reads the system clipboard through the first paste
// tool found on PATH. It stands in for github.com/atotto/clipboard, whose
// init searched PATH for five tools at the start of every process that
// linked it (acpmux-tui's `ls` included) whether or not it ever pasted:
// here the search happens at the first paste, once.
package clipboard

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// pasteTools are tried in order: Wayland's only when a Wayland display is
// set, then X11's two, Termux's and, under WSL, Windows' own.
var pasteTools = []struct {
	wayland bool
	argv    []string
}{
	{true, []string{"wl-paste", "--no-newline"}},
	{false, []string{"xclip", "-out", "-selection", "clipboard"}},
	{false, []string{"xsel", "--output", "--clipboard"}},
	{false, []string{"termux-clipboard-get"}},
	{false, []string{"powershell.exe", "-NoProfile", "-Command", "Get-Clipboard"}},
}

// ErrNoTool is returned when no paste tool is on PATH.
var ErrNoTool = errors.New("no clipboard tool found: install wl-clipboard, xclip or xsel")

var (
	findOnce sync.Once
	pasteCmd []string
)

// find picks the first paste tool on PATH, or none.
func find() {
	wayland := os.Getenv("WAYLAND_DISPLAY") != ""
	for _, t := range pasteTools {
		if t.wayland && !wayland {
			continue
		}
		if _, err := exec.LookPath(t.argv[0]); err == nil {
			pasteCmd = t.argv
			return
		}
	}
}

// ReadAll returns the clipboard's text.
func ReadAll() (string, error) {
	findOnce.Do(find)
	if pasteCmd == nil {
		return "", ErrNoTool
	}
	out, err := exec.Command(pasteCmd[0], pasteCmd[1:]...).Output()
	if err != nil {
		return "", err
	}
	text := string(out)
	if pasteCmd[0] == "powershell.exe" {
		// Windows ends each line in CR LF, and the whole with one more.
		text = strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	}
	return text, nil
}
