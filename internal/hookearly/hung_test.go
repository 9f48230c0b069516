//go:build linux

package hookearly

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestHookMarkerPath: one marker per user and agent home, in TMPDIR when it is
// an absolute path and in /tmp otherwise.
func TestHookMarkerPath(t *testing.T) {
	a := MarkerPath("/run/user/1000/tmp", "/home/u/.acpmux", 1000)
	if filepath.Dir(a) != "/run/user/1000/tmp" || !strings.HasPrefix(filepath.Base(a), markerPrefix) || !strings.HasSuffix(a, markerSuffix) {
		t.Fatalf("MarkerPath = %q", a)
	}
	if a != MarkerPath("/run/user/1000/tmp", "/home/u/.acpmux", 1000) {
		t.Fatal("MarkerPath is not stable")
	}
	for _, other := range []string{
		MarkerPath("/run/user/1000/tmp", "/home/u/.acpmux", 1001),
		MarkerPath("/run/user/1000/tmp", "/home/u/.acpmux2", 1000),
	} {
		if filepath.Base(other) == filepath.Base(a) {
			t.Fatalf("another user or agent home has the same marker: %q", other)
		}
	}
	for _, tmpdir := range []string{"", "tmp", "./x"} {
		if got := MarkerPath(tmpdir, "/h", 1); filepath.Dir(got) != "/tmp" {
			t.Errorf("MarkerPath(%q, ...) = %q, want it in /tmp", tmpdir, got)
		}
	}
}

// setMtime sets path's modification time without following a link.
func setMtime(t *testing.T, path string, when time.Time) {
	t.Helper()
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	ts := [2]syscall.Timespec{syscall.NsecToTimespec(when.UnixNano()), syscall.NsecToTimespec(when.UnixNano())}
	const atFDCWD, atSymlinkNoFollow = -100, 0x100
	fdcwd := atFDCWD
	if _, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(fdcwd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&ts[0])), atSymlinkNoFollow, 0, 0); e != 0 {
		t.Fatal(e)
	}
}

// TestHookMarkerState: what counts as a marker, and a fresh one.
func TestHookMarkerState(t *testing.T) {
	uid := os.Getuid()
	now := time.Now()
	for _, tc := range []struct {
		name        string
		make        func(t *testing.T, path string)
		uid         int
		ours, fresh bool
	}{
		{"none", func(*testing.T, string) {}, uid, false, false},
		{"just made", func(t *testing.T, p string) { touch(t, p, now) }, uid, true, true},
		{"within the window", func(t *testing.T, p string) { touch(t, p, now.Add(-HungWindow+time.Second)) }, uid, true, true},
		{"past the window", func(t *testing.T, p string) { touch(t, p, now.Add(-HungWindow-time.Second)) }, uid, true, false},
		{"a little ahead", func(t *testing.T, p string) { touch(t, p, now.Add(time.Second)) }, uid, true, true},
		{"far ahead (a clock set back)", func(t *testing.T, p string) { touch(t, p, now.Add(time.Hour)) }, uid, true, false},
		{"another user's", func(t *testing.T, p string) { touch(t, p, now) }, uid + 1, false, false},
		{"a link to one of ours", func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "target")
			touch(t, target, now)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, uid, false, false},
		{"a folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}, uid, false, false},
		{"a fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, uid, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := marker{path: filepath.Join(t.TempDir(), "m.hung"), uid: tc.uid}
			tc.make(t, m.path)
			if ours, fresh := m.state(now); ours != tc.ours || fresh != tc.fresh {
				t.Fatalf("state = ours %v, fresh %v; want %v, %v", ours, fresh, tc.ours, tc.fresh)
			}
		})
	}
}

// touch makes a regular file at path, modified at when.
func touch(t *testing.T, path string, when time.Time) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	setMtime(t, path, when)
}

// TestHookMarkerMark: mark makes a fresh marker, 0600, in place of an old one
// of ours, and leaves whatever else is at its path as it was.
func TestHookMarkerMark(t *testing.T) {
	m := marker{path: filepath.Join(t.TempDir(), "m.hung"), uid: os.Getuid()}
	m.mark(false)
	fi, err := os.Lstat(m.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mark made %v, %v; want a regular file, 0600", fi, err)
	}
	if ours, fresh := m.state(time.Now()); !ours || !fresh {
		t.Fatalf("a marker just made: ours %v, fresh %v", ours, fresh)
	}
	setMtime(t, m.path, time.Now().Add(-time.Hour))
	ours, fresh := m.state(time.Now())
	if !ours || fresh {
		t.Fatalf("an old marker: ours %v, fresh %v", ours, fresh)
	}
	m.mark(ours)
	if ours, fresh := m.state(time.Now()); !ours || !fresh {
		t.Fatalf("an old marker marked again: ours %v, fresh %v", ours, fresh)
	}
	m.clear()
	if _, err := os.Lstat(m.path); !os.IsNotExist(err) {
		t.Fatalf("clear left %v", err)
	}

	// A link: neither it nor its target changes.
	target := filepath.Join(t.TempDir(), "target")
	touch(t, target, time.Now().Add(-time.Hour))
	if err := os.Symlink(target, m.path); err != nil {
		t.Fatal(err)
	}
	m.mark(false)
	if fi, err := os.Lstat(m.path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link became %v, %v", fi, err)
	}
	if fi, err := os.Stat(target); err != nil || time.Since(fi.ModTime()) < time.Minute {
		t.Fatalf("mark wrote through the link: %v, %v", fi, err)
	}
}

// TestHookReportOutcome: how report tells a server that answers (or hangs up)
// from one that lets its deadline pass and from none at all.
func TestHookReportOutcome(t *testing.T) {
	p := Params{ID: "k3x9q2", Event: "Stop"}
	listen := func(t *testing.T, serve func(net.Conn)) string {
		t.Helper()
		home := t.TempDir()
		ln, err := net.Listen("unix", filepath.Join(home, socketName))
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		t.Cleanup(func() { close(stop); ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					serve(c)
					<-stop
				}()
			}
		}()
		return home
	}
	readLine := func(c net.Conn) { bufio.NewReader(c).ReadString('\n') }
	for _, tc := range []struct {
		name  string
		serve func(net.Conn)
		want  outcome
	}{
		{"answers", func(c net.Conn) { readLine(c); c.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")) }, answered},
		{"a notification, then the answer", func(c net.Conn) {
			readLine(c)
			c.Write([]byte(`{"jsonrpc":"2.0","method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}` + "\n"))
		}, answered},
		{"hangs up", func(c net.Conn) { readLine(c); c.Close() }, answered},
		{"never answers", func(c net.Conn) { readLine(c) }, timedOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := listen(t, tc.serve)
			if got := report(home, p, time.Now().Add(HungBudget)); got != tc.want {
				t.Fatalf("report = %d, want %d", got, tc.want)
			}
		})
	}
	if got := report(t.TempDir(), p, time.Now().Add(HungBudget)); got != unreached {
		t.Fatalf("report with no socket = %d, want unreached", got)
	}
	if got := report("", p, time.Now().Add(HungBudget)); got != unreached {
		t.Fatalf("report with no home = %d, want unreached", got)
	}
}

// TestHookReadsPastTheDeadline: a hook whose start took all the time its stdin
// had still takes the event already written there.
func TestHookReadsPastTheDeadline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // never closed before: a stdin left open
	const event = `{"hook_event_name":"Notification","notification_type":"permission_prompt"}`
	if _, err := w.WriteString(event); err != nil {
		t.Fatal(err)
	}
	in := input{fd: int(r.Fd()), keep: true}
	in.read(time.Now().Add(-time.Second), wholeObject)
	if string(in.kept) != event {
		t.Fatalf("kept %q, want the event", in.kept)
	}
	in.keep, in.kept = false, nil
	in.read(time.Now().Add(-time.Second), nil) // nothing there: returns at once
}
