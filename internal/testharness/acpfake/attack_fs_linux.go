package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/acp-go-sdk"
	"golang.org/x/sys/unix"
)

// Limits of the race commands.
const (
	maxRace     = 1_000_000
	raceWorkers = 8
	// raceInside is what DIR/secret.txt holds while DIR is the real folder.
	raceInside = "inside"
)

// race-read DIR OUTSIDE N and race-write DIR OUTSIDE N: the agent makes DIR
// a folder holding secret.txt ("inside") and DIR.swap a symlink to OUTSIDE,
// then swaps the two names as fast as it can (renameat2 RENAME_EXCHANGE)
// while it sends N requests through DIR, raceWorkers at a time:
//
//	race-read   reads DIR/secret.txt; the reply is
//	            "race-read: reads=N inside=I leaked=L refused=R swaps=S",
//	            then "; leak: TEXT" for the first content that was not
//	            "inside", then the refusals as flood-fs lists them
//	race-write  writes "planted" to DIR/planted-W.txt (W the worker); the
//	            reply is "race-write: writes=N ok=K refused=R swaps=S" and
//	            the refusals
//
// DIR is left the folder when the command ends.
func init() {
	attacks["race-read"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		return t.race("race-read", arg)
	}
	attacks["race-write"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		return t.race("race-write", arg)
	}
}

func (t *turnRun) race(name, arg string) (acp.StopReason, error) {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return "", fmt.Errorf("%s: want DIR OUTSIDE N, got %q", name, arg)
	}
	dir, out := f[0], f[1]
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 1 || n > maxRace {
		return "", fmt.Errorf("%s: want a count from 1 to %d, got %q", name, maxRace, f[2])
	}
	sw, err := newSwapper(dir, out)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	sw.start()
	var (
		next           atomic.Int64
		inside, leaked atomic.Int64
		firstLeak      sync.Once
		leak           string
		tally          fsTally
		wg             sync.WaitGroup
	)
	for w := range raceWorkers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				sid := acp.SessionId(t.sid)
				if name == "race-read" {
					resp, err := t.a.conn.ReadTextFile(t.ctx, acp.ReadTextFileRequest{SessionId: sid, Path: filepath.Join(dir, "secret.txt")})
					tally.add(err)
					switch {
					case err != nil:
					case resp.Content == raceInside:
						inside.Add(1)
					default:
						leaked.Add(1)
						firstLeak.Do(func() { leak = resp.Content })
					}
					continue
				}
				_, err := t.a.conn.WriteTextFile(t.ctx, acp.WriteTextFileRequest{SessionId: sid,
					Path: filepath.Join(dir, fmt.Sprintf("planted-%d.txt", w)), Content: "planted"})
				tally.add(err)
			}
		})
	}
	wg.Wait()
	swaps, err := sw.stop()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	logf("acpfake: %s: %d requests, %d swaps", name, n, swaps)
	var reply string
	if name == "race-read" {
		reply = fmt.Sprintf("race-read: reads=%d inside=%d leaked=%d refused=%d swaps=%d", n, inside.Load(), leaked.Load(), tally.refused(), swaps)
		if leak != "" {
			reply += "; leak: " + leak
		}
	} else {
		reply = fmt.Sprintf("race-write: writes=%d ok=%d refused=%d swaps=%d", n, n-tally.refused(), tally.refused(), swaps)
	}
	_, refusals, _ := strings.Cut(tally.String(), "; ")
	if refusals != "" {
		reply += "; " + refusals
	}
	return t.stopReason(), t.say(reply)
}

// swapper exchanges a folder and a symlink to outside under one name.
type swapper struct {
	dir, alt string
	done     chan struct{}
	stopped  chan error
	swaps    atomic.Int64
}

func newSwapper(dir, out string) (*swapper, error) {
	s := &swapper{dir: dir, alt: dir + ".swap", done: make(chan struct{}), stopped: make(chan error, 1)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(raceInside), 0o644); err != nil {
		return nil, err
	}
	_ = os.Remove(s.alt)
	if err := os.Symlink(out, s.alt); err != nil {
		return nil, err
	}
	return s, nil
}

// exchange swaps the two names atomically, or, where the file system does
// not support that, in three renames (with a moment where DIR is missing).
func (s *swapper) exchange() error {
	err := unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.alt, unix.RENAME_EXCHANGE)
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
		return err
	}
	tmp := s.dir + ".tmp"
	for _, step := range [][2]string{{s.dir, tmp}, {s.alt, s.dir}, {tmp, s.alt}} {
		if err := os.Rename(step[0], step[1]); err != nil {
			return err
		}
	}
	return nil
}

func (s *swapper) start() {
	go func() {
		for {
			select {
			case <-s.done:
				s.stopped <- nil
				return
			default:
			}
			if err := s.exchange(); err != nil {
				s.stopped <- err
				return
			}
			s.swaps.Add(1)
		}
	}()
}

// stop ends the swapping, leaves DIR the folder and removes DIR.swap.
func (s *swapper) stop() (int64, error) {
	close(s.done)
	if err := <-s.stopped; err != nil {
		return 0, err
	}
	if fi, err := os.Lstat(s.dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if err := s.exchange(); err != nil {
			return 0, err
		}
	}
	return s.swaps.Load(), os.Remove(s.alt)
}
