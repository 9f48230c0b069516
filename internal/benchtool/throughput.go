package main

import (
	"fmt"
	"os"
	"time"

	"github.com/acpmux/acpmux-tui/config"
)

// throughput times one 160x45 chat whose harness is `cat file`, from Start
// until Wait returns (the process has exited and all its output has been
// fed to the screen), and checks that the file's last line is on screen.
func throughput(file string) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	want, err := lastLine(file)
	if err != nil {
		return err
	}
	r, err := newRig(map[string]config.HarnessConfig{"bench-cat": catHarness(file)})
	if err != nil {
		return err
	}
	defer r.close()
	id, err := r.create("bench-cat")
	if err != nil {
		return err
	}

	begin := time.Now()
	if err := r.start(id); err != nil {
		return err
	}
	r.mux.Wait(id)
	elapsed := time.Since(begin)

	if s := r.mux.State(id); s.ExitCode != 0 {
		return fmt.Errorf("cat %s: %s", file, s.Reason)
	}
	if err := r.checkScreen(id, want); err != nil {
		return err
	}
	secs := elapsed.Seconds()
	emit("bench", "throughput")
	emit("bytes", st.Size())
	emit("seconds", secs)
	emit("mb_per_s", float64(st.Size())/1e6/secs)
	emit("last_line_on_screen", true)
	return nil
}
