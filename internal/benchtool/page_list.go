package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// page1000 is `benchtool page-1000 BIN HOME N RUNS`: N chats are written
// to the fresh agent home HOME as first-frame-1000 writes them
// (writeChats), a server is started on it and its web listener opened,
// and RUNS times, in turn: the page is loaded in a new tab of a headless
// Chromium and timed from the navigation's start until all N chat rows
// ([data-chat-id]) are in the document (dom) and then painted (paint: the
// task after the next animation frame's callbacks, which comes once that
// frame is drawn), read in the page by a MutationObserver added before
// its scripts run; and the TUI starts with the same server up and is
// timed to its first frame showing "chats N" (first-frame-1000's warm
// figure). It prints the medians, their ratio, and the page's JavaScript
// heap with the N chats shown (after the last run, once the page has been
// quiet for 500 ms, after a full garbage collection: Runtime.getHeapUsage,
// V8's heap and Blink's, which holds the document's nodes).
func page1000(bin, home string, n, runs int) error {
	r, err := newServerRig(bin, home, nil)
	if err != nil {
		return err
	}
	var td teardown
	defer td.run()
	defer ownSignals(r, &td)()
	if err := r.stop(); err != nil {
		return err
	}
	if _, err := writeChats(r.home, n); err != nil {
		return err
	}
	if err := r.start(); err != nil {
		return err
	}
	url, b, err := openPage(r, &td)
	if err != nil {
		return err
	}

	want := "chats " + strconv.Itoa(n)
	var dom, paint, tui []time.Duration
	var heap pageHeap
	for i := range runs {
		got, err := pageListRun(b, url, n, i == runs-1)
		if err != nil {
			return fmt.Errorf("page run %d: %w", i+1, err)
		}
		dom, paint = append(dom, got.dom), append(paint, got.paint)
		if got.heap != nil {
			heap = *got.heap
		}
		d, err := timeFirstFrame(profiledTUI(r.binary, "warm", i), want, nil)
		if err != nil {
			return fmt.Errorf("TUI run %d: %w", i+1, err)
		}
		tui = append(tui, d)
	}
	emit("bench", "page-1000")
	emit("chats", n)
	emit("runs", runs)
	pm, tm := median(paint), median(tui)
	emit("page_dom_median_seconds", median(dom).Seconds())
	emit("page_paint_median_seconds", pm.Seconds())
	emit("tui_warm_median_seconds", tm.Seconds())
	emit("ratio", pm.Seconds()/tm.Seconds())
	emit("page_js_heap_used_bytes", int64(heap.Used))
	emit("page_js_heap_total_bytes", int64(heap.Total))
	emit("page_embedder_heap_used_bytes", int64(heap.Embedder))
	emit("page_backing_store_bytes", int64(heap.Backing))
	emit("page_dom_nodes", heap.Nodes)
	return nil
}

// pageHeap is the page's JavaScript heap after a garbage collection (V8's
// used and allocated size; the embedder's heap, where Blink keeps the
// document's nodes; the backing stores of array buffers and external
// strings), and how many elements its document holds.
type pageHeap struct {
	Used, Total, Embedder, Backing float64
	Nodes                          int
}

// pageList is one load of the page: its times, and its heap when asked.
type pageList struct {
	dom, paint time.Duration
	heap       *pageHeap
}

// listScript is added to a tab before the page's own scripts run: it
// resolves window.__acpmuxBenchList with the times (performance.now(),
// from the navigation's start) at which the document first held n chat
// rows, and the task after the next frame (a message posted from the
// animation frame's callback is handled once that frame is painted).
func listScript(n int) string {
	return `(() => {
  const want = ` + strconv.Itoa(n) + `;
  let resolve;
  const done = new Promise((r) => { resolve = r; });
  window.__acpmuxBenchList = done;
  const mo = new MutationObserver(() => {
    if (document.querySelectorAll("[data-chat-id]").length < want) return;
    const dom = performance.now();
    mo.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve({ dom, paint: performance.now() });
      ch.port2.postMessage(0);
    });
  });
  mo.observe(document, { childList: true, subtree: true });
})()`
}

// quietScript resolves once no element of the page has changed for 500
// ms, or after 10 s.
const quietScript = `new Promise((resolve) => {
  let t;
  const mo = new MutationObserver(() => { clearTimeout(t); t = setTimeout(end, 500); });
  const end = () => { mo.disconnect(); clearTimeout(cap); resolve(); };
  const cap = setTimeout(end, 10000);
  mo.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  t = setTimeout(end, 500);
})`

// pageListRun loads the page at url in a new tab and times its list of n
// chats; with heap, it also reads the page's heap once it is quiet.
func pageListRun(b *pageBrowser, url string, n int, heap bool) (pageList, error) {
	tab, closeTab, err := b.newTab()
	if err != nil {
		return pageList{}, err
	}
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, pageWait)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: listScript(n)}); err != nil {
		return pageList{}, fmt.Errorf("add the list's observer: %w", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return pageList{}, fmt.Errorf("load the page: %w", err)
	}
	times, err := pageEval[struct{ Dom, Paint float64 }](tab, pageWait, "window.__acpmuxBenchList")
	if err != nil {
		return pageList{}, fmt.Errorf("wait for %d rows: %w", n, err)
	}
	rows, err := pageEval[int](tab, pageWait, `document.querySelectorAll("[data-chat-id]").length`)
	if err != nil {
		return pageList{}, err
	}
	if rows != n {
		return pageList{}, fmt.Errorf("the page shows %d chat rows, want %d", rows, n)
	}
	got := pageList{dom: msDuration(times.Dom), paint: msDuration(times.Paint)}
	if !heap {
		return got, nil
	}
	if _, err := pageEval[chromedp.Void](tab, pageWait, quietScript); err != nil {
		return pageList{}, fmt.Errorf("wait for the page to be quiet: %w", err)
	}
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		return pageList{}, fmt.Errorf("collect garbage: %w", err)
	}
	use, err := chromedp.Call(ctx, runtime.GetHeapUsage, cdp.Empty{})
	if err != nil {
		return pageList{}, fmt.Errorf("read the heap: %w", err)
	}
	nodes, err := pageEval[int](tab, pageWait, `document.getElementsByTagName("*").length`)
	if err != nil {
		return pageList{}, err
	}
	got.heap = &pageHeap{Used: use.UsedSize, Total: use.TotalSize, Embedder: use.EmbedderHeapUsedSize, Backing: use.BackingStorageSize, Nodes: nodes}
	return got, nil
}

// msDuration is a time the page read (milliseconds, fractional).
func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
