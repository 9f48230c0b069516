package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/acpmux/acpmux-tui/proto"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
	"golang.org/x/sys/unix"
)

// This file keeps <agent home>/running/: one small file per harness the
// server runs, written as it starts and removed when it ends. A server that
// dies (kill -9, a crash) leaves them behind, and they are all the next
// server has to find what it left running (see survivors.go) and which
// chats to start again (revive.go). The format is in docs/chat-files.md.

// recordVersion is the format of a record.
const recordVersion = 1

// maxRecordBytes bounds what is read of one record: anything in the agent
// home may have been put there by another program.
const maxRecordBytes = 4 << 10

// bootIDPath names the current boot; a record from another boot names
// processes that are long gone, whatever pids run now.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

// runRecord is one running harness, as the server that started it
// recorded it.
type runRecord struct {
	Version int    `json:"version"`
	Chat    string `json:"chat"`
	// Pid is the harness's process, the leader of its own process group
	// Pgid (the two are equal: the mux starts each harness in a group of
	// its own).
	Pid  int `json:"pid"`
	Pgid int `json:"pgid"`
	// StartTicks is the process's start time, field 22 of /proc/<pid>/stat
	// (clock ticks since boot), 0 when it could not be read: with BootID it
	// tells the process from a later one given the same pid.
	StartTicks uint64    `json:"startTicks"`
	BootID     string    `json:"bootId"`
	ServerPid  int       `json:"serverPid"`
	Started    time.Time `json:"started"`
	// Used is when the chat was last used (typed into, prompted) while
	// this harness ran, to usedEvery; zero if it was not.
	Used time.Time `json:"used,omitzero"`
}

// usedEvery is how often a chat's use is written at most: the order of
// last use the next server revives chats in is that fine.
const usedEvery = 5 * time.Second

// Records keeps the agent home's records of running harnesses. Its
// Started and Ended are the mux's hooks (mux.Options): they only note what
// is due, as the mux calls them with a chat's lock held, and a goroutine of
// its own writes the files, so no chat waits on the disk. Per chat only the
// latest state is written, in the order the mux reported them.
type Records struct {
	dir       string
	boot      string
	serverPid int
	log       *slog.Logger

	mu   sync.Mutex
	last map[string]*runRecord // each chat's latest record, as noted
	due  map[string]*runRecord // nil: remove the chat's record
	busy bool                  // the writer is writing a batch
	done *sync.Cond            // signalled when a batch is written
	wake chan struct{}
	quit chan struct{}
	once sync.Once
}

// NewRecords returns the records of the agent home; nothing is read or
// written until a harness starts, or the server that owns them runs.
// Close ends its writer.
func NewRecords(home string, log *slog.Logger) *Records {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &Records{
		dir: filepath.Join(home, proto.RunningDir), boot: readBootID(), serverPid: os.Getpid(), log: log,
		last: map[string]*runRecord{}, due: map[string]*runRecord{}, wake: make(chan struct{}, 1), quit: make(chan struct{}),
	}
	r.done = sync.NewCond(&r.mu)
	go r.writer()
	return r
}

// readBootID returns the current boot's id, or "" when it cannot be read
// (then no record is ever acted on).
func readBootID() string {
	b, err := os.ReadFile(bootIDPath)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Started records that a harness process of chat id has started (the
// mux's Started hook). Its start time is read now, while the process is
// the mux's child and not yet reaped, so the pid is certainly its own.
func (r *Records) Started(id string, pid int) {
	start, err := processStartTicks(pid)
	if err != nil {
		r.log.Warn("record harness: its start time is unknown; it will not be ended by pid", "chat", id, "pid", pid, "err", err)
	}
	rec := &runRecord{
		Version: recordVersion, Chat: id, Pid: pid, Pgid: pid, StartTicks: start,
		BootID: r.boot, ServerPid: r.serverPid, Started: time.Now().UTC(),
	}
	r.note(id, rec)
}

// Ended records that no harness process of chat id runs (the mux's Ended
// hook). While the mux is to respawn it the record stays: should the
// server die before, the next server starts the chat again.
func (r *Records) Ended(id string, respawning bool) {
	if !respawning {
		r.note(id, nil)
	}
}

// forget removes the record of a chat, whatever it says.
func (r *Records) forget(id string) { r.note(id, nil) }

// Used records that chat id was used now (typed into, prompted), if its
// harness runs, at most once per usedEvery: the next server starts the
// chats it revives most recently used first.
func (r *Records) Used(id string) {
	if r == nil {
		return
	}
	now := time.Now().UTC()
	r.mu.Lock()
	last := r.last[id]
	if last == nil || now.Sub(last.Used) < usedEvery {
		r.mu.Unlock()
		return
	}
	rec := *last
	rec.Used = now
	r.noteLocked(id, &rec)
	r.mu.Unlock()
	r.poke()
}

func (r *Records) note(id string, rec *runRecord) {
	r.mu.Lock()
	if last := r.last[id]; rec != nil && last != nil && rec.Used.IsZero() {
		rec.Used = last.Used // a respawn keeps the chat's last use
	}
	r.noteLocked(id, rec)
	r.mu.Unlock()
	r.poke()
}

func (r *Records) noteLocked(id string, rec *runRecord) {
	r.due[id] = rec
	if rec == nil {
		delete(r.last, id)
	} else {
		r.last[id] = rec
	}
}

// poke wakes the writer.
func (r *Records) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// writer writes what is due until Close.
func (r *Records) writer() {
	for {
		select {
		case <-r.quit:
			return
		case <-r.wake:
		}
		r.mu.Lock()
		due := r.due
		r.due = map[string]*runRecord{}
		r.busy = true
		r.mu.Unlock()
		for id, rec := range due {
			var err error
			if rec == nil {
				err = r.remove(id)
			} else {
				err = r.write(rec)
			}
			if err != nil {
				r.log.Error("record of a running harness", "chat", id, "err", err)
			}
		}
		r.mu.Lock()
		r.busy = false
		r.done.Broadcast()
		r.mu.Unlock()
	}
}

// Flush waits until every change reported so far is on disk.
func (r *Records) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.due) > 0 || r.busy {
		r.done.Wait()
	}
}

// Close ends the writer; what was due and not flushed is dropped.
func (r *Records) Close() {
	if r != nil {
		r.once.Do(func() { close(r.quit) })
	}
}

func (r *Records) path(id string) string { return filepath.Join(r.dir, id+".json") }

// write stores rec atomically, mode 0600: a temp file in the same folder,
// fsync, rename, fsync of the folder.
func (r *Records) write(rec *runRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(r.dir, "."+rec.Chat+".json.tmp-*") // 0600
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, r.path(rec.Chat))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", r.path(rec.Chat), err)
	}
	return syncFolder(r.dir)
}

// remove deletes a chat's record, durably: a record that came back after
// a power cut would start the chat again.
func (r *Records) remove(id string) error {
	err := os.Remove(r.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return syncFolder(r.dir)
}

// RemoveAll deletes every record, as an orderly end of the server does
// once its harnesses are stopped: after kill-server nothing is started
// again.
func (r *Records) RemoveAll() {
	if r == nil {
		return
	}
	r.Flush()
	recs, _ := r.load()
	for _, rec := range recs {
		if err := r.remove(rec.Chat); err != nil {
			r.log.Error("remove the record of a harness", "chat", rec.Chat, "err", err)
		}
	}
	for _, name := range r.junk() {
		r.removeFile(name)
	}
}

// removeFile removes a file of the folder that is not a record.
func (r *Records) removeFile(name string) { os.Remove(filepath.Join(r.dir, name)) }

// load reads every record. A file that is not a record (a leftover temp
// file, something unreadable, too big or malformed) is not returned; junk
// names them.
func (r *Records) load() ([]runRecord, error) {
	ents, err := os.ReadDir(r.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.dir, err)
	}
	var recs []runRecord
	for _, e := range ents {
		if rec, err := r.read(e); err == nil {
			recs = append(recs, rec)
		}
	}
	return recs, nil
}

// junk names the files of the folder that are not records: temp files of
// a writer that was killed, and anything else that does not read as one.
func (r *Records) junk() []string {
	ents, _ := os.ReadDir(r.dir)
	var names []string
	for _, e := range ents {
		if _, err := r.read(e); err != nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// read reads one record file: a regular file named <chat id>.json, of at
// most maxRecordBytes, whose fields make sense.
func (r *Records) read(e fs.DirEntry) (runRecord, error) {
	var rec runRecord
	id, ok := strings.CutSuffix(e.Name(), ".json")
	if !ok || !sessions.ValidID(id) || !e.Type().IsRegular() {
		return rec, fmt.Errorf("%s is not a record", e.Name())
	}
	f, err := os.OpenFile(filepath.Join(r.dir, e.Name()), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return rec, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return rec, err
	}
	if len(b) > maxRecordBytes {
		return rec, fmt.Errorf("%s is over %d bytes", e.Name(), maxRecordBytes)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", e.Name(), err)
	}
	if rec.Version != recordVersion || rec.Chat != id || rec.Pid <= 1 || rec.Pgid <= 1 {
		return rec, fmt.Errorf("%s: not a record this build reads", e.Name())
	}
	return rec, nil
}

func syncFolder(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
