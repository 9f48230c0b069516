package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/search"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the search row: `acpmux-tui search` over CHATS chats, each
// with a Claude Code session log of ENTRIES messages on disk and LINES
// lines of scrollback, beside `grep -r -i -F` over the same text on disk.
//
// The corpus is made here, from a fixed seed: each chat's log is JSONL as
// Claude Code writes it (user and assistant records, a message of 8 to 24
// words each), in one projects folder under WORK/claude (its
// CLAUDE_CONFIG_DIR); its scrollback is LINES lines of 6 to 16 words, kept
// in memory and fed to the search package as the server's mux would give
// it (Live), and written to WORK/screens/<id>.txt for grep. Every hundredth
// chat holds the needle once in its log and once in its scrollback. The
// chats themselves are metadata in memory (no chat files: the search of
// their names and folders is a few string compares each). Both sides run
// once to warm the page cache, then ROUNDS times each, in turn; the time
// of each is printed, with the median, min and max, and ratios against
// grep's median. Ours runs with GOMAXPROCS workers (as the server does)
// and with one (grep's one thread). The memory is the scan's peak heap
// above what the corpus holds (sampled every millisecond; no index is
// kept between searches) and what it allocated in all.

// searchNeedle is the word planted in every hundredth chat.
const searchNeedle = "xylophonist"

// searchWords are what the corpus is made of.
var searchWords = strings.Fields(`the parser config server client chat folder screen build test
fix error value table nested keys returns function module import export window pane terminal
session agent tool call file path read write line column token context cost usage model mode`)

// searchLive is the corpus's scrollback, as a server's mux holds it.
type searchLive struct{ screens map[string][]string }

func (l searchLive) Transcript(string) []proto.Entry { return nil }
func (l searchLive) History(id string, _ int) []string {
	return l.screens[id]
}

func searchBench(work string, chats, entries, lines, rounds int) error {
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	claude := filepath.Join(work, "claude")
	projects := filepath.Join(claude, "projects", "-bench")
	screensDir := filepath.Join(work, "screens")
	for _, d := range []string{projects, screensDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var spec harness.Spec
	for _, s := range harness.Builtins() {
		if s.Name == "claude" {
			spec = s
		}
	}
	env := []string{"CLAUDE_CONFIG_DIR=" + claude}
	live := searchLive{screens: make(map[string][]string, chats)}
	corpus := make([]search.Chat, chats)
	rng := rand.New(rand.NewPCG(1, 2))
	var logBytes, screenBytes int64
	start := time.Now()
	for i := range chats {
		id := fmt.Sprintf("c%05d", i)
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		corpus[i] = search.Chat{Meta: &sessions.Meta{ID: id, Name: "chat " + id, Harness: "claude", Cwd: "/src/app" + id, AgentSessionID: sid},
			Spec: spec, Env: env}
		n, err := writeSearchLog(filepath.Join(projects, sid+".jsonl"), rng, entries, i%100 == 0)
		if err != nil {
			return err
		}
		logBytes += n
		scr := make([]string, lines)
		for j := range scr {
			scr[j] = searchSentence(rng, 6, 16)
		}
		if i%100 == 0 {
			scr[lines*7/10] = "$ echo " + searchNeedle + " found"
		}
		live.screens[id] = scr
		text := strings.Join(scr, "\n") + "\n"
		screenBytes += int64(len(text))
		if err := os.WriteFile(filepath.Join(screensDir, id+".txt"), []byte(text), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("search_corpus chats=%d entries=%d lines=%d log_mb=%.1f screen_mb=%.1f made_s=%.1f\n",
		chats, entries, lines, float64(logBytes)/(1<<20), float64(screenBytes)/(1<<20), time.Since(start).Seconds())

	q, err := search.Parse([]string{searchNeedle})
	if err != nil {
		return err
	}
	want := 2 * ((chats + 99) / 100)
	ours := func(workers int) (time.Duration, proto.SearchResult) {
		t0 := time.Now()
		res := search.Run(q, corpus, search.Options{Live: live, Workers: workers})
		return time.Since(t0), res
	}
	grep := func() (time.Duration, int, error) {
		t0 := time.Now()
		out, err := exec.Command("grep", "-r", "-i", "-F", searchNeedle, claude, screensDir).Output()
		return time.Since(t0), bytes.Count(out, []byte("\n")), err
	}
	// Warm the page cache; check both find every needle.
	if _, res := ours(0); res.Hits != want {
		return fmt.Errorf("search found %d hits, want %d", res.Hits, want)
	}
	if _, n, err := grep(); err != nil || n != want {
		return fmt.Errorf("grep found %d lines (%v), want %d", n, err, want)
	}
	var oursT, ours1T, grepT []time.Duration
	for range rounds {
		d, _ := ours(0)
		oursT = append(oursT, d)
		d, _ = ours(1)
		ours1T = append(ours1T, d)
		g, _, err := grep()
		if err != nil {
			return err
		}
		grepT = append(grepT, g)
	}
	peak, alloc := searchPeakHeap(func() { ours(0) })
	g := median(grepT)
	fmt.Printf("search_ours s=%s median=%.3f min=%.3f max=%.3f workers=%d\n", secondsList(oursT), median(oursT).Seconds(),
		slices.Min(oursT).Seconds(), slices.Max(oursT).Seconds(), runtime.GOMAXPROCS(0))
	fmt.Printf("search_ours_1 s=%s median=%.3f min=%.3f max=%.3f workers=1\n", secondsList(ours1T), median(ours1T).Seconds(),
		slices.Min(ours1T).Seconds(), slices.Max(ours1T).Seconds())
	fmt.Printf("search_grep s=%s median=%.3f min=%.3f max=%.3f\n", secondsList(grepT), g.Seconds(),
		slices.Min(grepT).Seconds(), slices.Max(grepT).Seconds())
	fmt.Printf("search_ratio ours_grep=%.2f ours1_grep=%.2f\n", median(oursT).Seconds()/g.Seconds(), median(ours1T).Seconds()/g.Seconds())
	fmt.Printf("search_memory peak_heap_mb=%.1f allocated_mb=%.1f index_mb=0\n", float64(peak)/(1<<20), float64(alloc)/(1<<20))
	return nil
}

// writeSearchLog writes a Claude Code session log of n messages, with the
// needle in one when needle is set, and returns its size.
func writeSearchLog(path string, rng *rand.Rand, n int, needle bool) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	var size int64
	enc := json.NewEncoder(w)
	for j := range n {
		text := searchSentence(rng, 8, 24)
		if needle && j == n/2 {
			text += " and the " + searchNeedle + " too"
		}
		rec := map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", j), "sessionId": "s",
			"message": map[string]any{"role": "user", "content": text}}
		if j%2 == 1 {
			rec["type"] = "assistant"
			rec["message"] = map[string]any{"role": "assistant", "content": []map[string]string{{"type": "text", "text": text}}}
		}
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return size, f.Close()
}

// searchSentence is lo to hi words of the corpus.
func searchSentence(rng *rand.Rand, lo, hi int) string {
	n := lo + rng.IntN(hi-lo+1)
	words := make([]string, n)
	for i := range words {
		words[i] = searchWords[rng.IntN(len(searchWords))]
	}
	return strings.Join(words, " ")
}

// searchPeakHeap runs fn and returns the most heap it held above what was
// live before (sampled every millisecond) and the bytes it allocated.
func searchPeakHeap(fn func()) (peak, alloc uint64) {
	runtime.GC()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(samples)
	base, allocBase := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	var top atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > top.Load() {
				top.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	metrics.Read(samples)
	if t := top.Load(); t > base {
		peak = t - base
	}
	return peak, samples[1].Value.Uint64() - allocBase
}
