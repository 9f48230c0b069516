package main

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/screen"
)

// This file is the emulated terminal a tuiProcess can draw on: what a
// benchmark waits for after a key is looked for on the screen the TUI's
// output makes, not in the byte stream (a redraw that moves the cursor
// between parts of a row still makes the row).

// startOnScreen is startInPty with every byte of cmd's output also drawn
// on an emulated 160x45 screen, for awaitScreen.
func startOnScreen(cmd *exec.Cmd, want string) (*tuiProcess, error) {
	return startPty(cmd, want, true)
}

// drawOnScreen draws p on the emulated screen, if there is one, and tries
// the awaited test; at is when p was read, the time sent if it passes.
func (t *tuiProcess) drawOnScreen(p []byte, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.scr == nil {
		return
	}
	t.scr.Write(p)
	if t.scrTest != nil && t.scrTest(t.scr) {
		t.scrAt <- at
		t.scrTest, t.scrAt = nil, nil
	}
}

// awaitScreen arms a test of the emulated screen, tried after each read of
// output from now on; the channel gets the time of the read after which it
// first held.
func (t *tuiProcess) awaitScreen(test func(*screen.Screen) bool) <-chan time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scrTest, t.scrAt = test, make(chan time.Time, 1)
	return t.scrAt
}

// keyUntilScreen types key into the TUI and returns the time from the write
// to the read of output after which the emulated screen passes test; what
// names what test looks for, for the error at serverWait.
func (t *tuiProcess) keyUntilScreen(key, what string, test func(*screen.Screen) bool) (time.Duration, error) {
	at := t.awaitScreen(test)
	begin := time.Now()
	if _, err := t.master.Write([]byte(key)); err != nil {
		return 0, fmt.Errorf("type %q into the TUI: %w", key, err)
	}
	select {
	case end := <-at:
		return end.Sub(begin), nil
	case <-t.done:
		return 0, fmt.Errorf("the TUI ended after %q, before its screen showed %s", key, what)
	case <-time.After(serverWait):
		return 0, fmt.Errorf("the TUI's screen showed no %s within %s of %q:\n%s", what, serverWait, key, t.screenText())
	}
}

// screenText is the emulated screen's rows, for an error message.
func (t *tuiProcess) screenText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b []byte
	for i := range benchRows {
		b = append(b, t.scr.PlainLine(i)...)
		b = append(b, '\n')
	}
	return string(b)
}

// screenHasAll reports whether every one of texts is in some row of s.
func screenHasAll(s *screen.Screen, texts ...string) bool {
	_, rows := s.Size()
	for _, want := range texts {
		found := false
		for i := 0; i < rows && !found; i++ {
			found = strings.Contains(s.PlainLine(i), want)
		}
		if !found {
			return false
		}
	}
	return true
}
