// A terminal chat's screen, drawn from the server's own cells: the page
// runs no terminal emulator. While the chat is named with _acpmux/show,
// the server sends its screen as patches (_acpmux/changed with a screen,
// or _acpmux/screen when only the screen and cursor moved): a whole
// screen, or the lines that changed since the last one told. Keys go back
// as bytes with _acpmux/write. The element's size in character cells is
// the size the page asks the server for (_acpmux/resize), as the TUI's
// pane sizes every chat's pty. Scrolling back asks for the screen as it
// was some lines up (_acpmux/render with scroll), as the TUI's pgup does.
// A chat of another host is drawn the same way: its calls go to its host
// (app.js's callFor), and its host's notifications come here as its own.

import { h, fill, text, debounce } from "./dom.js";
import { parseLine, renderCells } from "./sgr.js";
import { keyBytes, pasteBytes, wheelBytes, base64 } from "./keys.js";
import { touchKeys } from "./touchkeys.js";
import { isLive, localHost, splitKey, HostDown } from "./store.js";

const maxCols = 2000, maxRows = 1000;

export class TerminalView {
  // callFor(host, method, params) makes a call on a chat's host;
  // report(text) shows a failed call in the page's status line.
  constructor({ callFor, store, report }) {
    this.callFor = callFor;
    this.store = store;
    this.report = report;
    this.id = ""; // the chat's key (store.js)
    this.host = "";
    this.chatId = "";
    this.lines = []; // the live screen's lines, as the server rendered them
    this.rowEls = [];
    this.cursor = [-1, -1];
    this.scroll = 0; // lines scrolled back; 0 is live
    this.scrolled = null; // the lines shown while scrolled back
    this.cell = { w: 8, h: 16 };
    this.size = { cols: 0, rows: 0 };
    this.sentSize = "";
    this.wheelRest = 0;
    this.outbox = []; // keys for a host: {host, id, data}, oldest first
    this.sending = false;

    this.screen = h("div", { class: "term-screen", attrs: { "aria-hidden": "true" } });
    this.banner = h("div", { class: "term-banner", hidden: true });
    this.term = h("div", {
      class: "terminal",
      role: "terminal",
      tabIndex: 0,
      attrs: { "aria-label": "Terminal: typing here goes to the chat" },
      on: {
        keydown: (ev) => this.key(ev),
        keypress: (ev) => this.keypress(ev),
        paste: (ev) => this.paste(ev),
        wheel: (ev) => this.wheel(ev),
        mousedown: () => this.term.focus(),
      },
    }, this.screen);
    this.touchY = null;
    this.term.addEventListener("touchstart", (ev) => { this.touchY = ev.touches[0].clientY; }, { passive: true });
    this.term.addEventListener("touchmove", (ev) => this.touchMove(ev), { passive: false });
    this.element = h("div", { class: "term-wrap" }, this.term, this.banner, touchKeys({
      write: (b) => {
        this.backToLive();
        this.write(b);
      },
      modes: () => this.store.terminal(this.id).Modes || {},
    }));

    this.sendSize = debounce(() => this.resize(), 150);
    new ResizeObserver(() => this.measure()).observe(this.term);
  }

  // open shows the chat of key (its screen comes with its server's next
  // patch).
  open(key) {
    this.id = key;
    ({ host: this.host, id: this.chatId } = splitKey(key));
    this.lines = [];
    this.rowEls = [];
    this.cursor = [-1, -1];
    this.scroll = 0;
    this.scrolled = null;
    fill(this.screen);
    this.measure();
    this.refresh();
  }

  close() {
    this.id = "";
  }

  focus() {
    this.term.focus({ preventScroll: true });
  }

  // measure finds the size of a character cell in the terminal's font and
  // how many fit the element; a change is told to the server, debounced.
  measure() {
    if (!this.term.isConnected || this.term.clientWidth === 0) {
      return;
    }
    const probe = h("div", { class: "term-row term-probe" }, "M".repeat(50));
    this.screen.append(probe);
    const r = probe.getBoundingClientRect();
    probe.remove();
    if (r.width > 0 && r.height > 0) {
      this.cell = { w: r.width / 50, h: r.height };
      this.term.style.setProperty("--cell-w", this.cell.w + "px");
    }
    const cs = getComputedStyle(this.term);
    const w = this.term.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const hgt = this.term.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    const cols = Math.max(1, Math.min(maxCols, Math.floor(w / this.cell.w)));
    const rows = Math.max(1, Math.min(maxRows, Math.floor(hgt / this.cell.h)));
    if (cols !== this.size.cols || rows !== this.size.rows) {
      this.size = { cols, rows };
      this.sendSize();
    }
  }

  // resize tells the chat's server the page's size: every chat's pty
  // there takes it, as with the TUI's pane, and the page's writes carry it
  // from then on.
  resize() {
    const key = this.size.cols + "x" + this.size.rows;
    if (!this.id || this.size.cols === 0 || key === this.sentSize) {
      return;
    }
    this.sentSize = key;
    this.callFor(this.host, "_acpmux/resize", this.size).catch((e) => {
      this.sentSize = "";
      this.report("Resize: " + e.message);
    });
  }

  // resized forgets the size last sent (a new connection knows none).
  resized() {
    this.sentSize = "";
    this.sendSize();
  }

  // patch applies a screen patch ({full} or {rows}) of the chat shown
  // (by its key).
  patch(key, screen, cursor) {
    if (key !== this.id || !screen) {
      return;
    }
    if (typeof screen.full === "string") {
      this.lines = screen.full.split("\n");
    } else if (screen.rows) {
      for (const [n, line] of Object.entries(screen.rows)) {
        const i = Number(n);
        if (Number.isInteger(i) && i >= 0 && i < maxRows) {
          while (this.lines.length <= i) this.lines.push("");
          this.lines[i] = String(line);
        }
      }
    }
    if (Array.isArray(cursor)) {
      this.cursor = [cursor[0] | 0, cursor[1] | 0];
    }
    if (this.scroll > 0) {
      this.fetchScrolled(); // what lies above moves with new output
    }
    this.refresh();
  }

  // view takes a watched chat view: its terminal (cursor, modes) and, for
  // a chat shown, its screen.
  view(key, v) {
    if (key !== this.id) {
      return;
    }
    const t = v.terminal || {};
    if (typeof t.CursorCol === "number") {
      this.cursor = [t.CursorCol, t.CursorRow];
    }
    if (v.screen) {
      this.patch(key, v.screen, null);
    } else {
      this.refresh();
    }
  }

  // refresh draws the lines that differ from what is drawn, the cursor's
  // row, and the banner.
  refresh() {
    if (!this.id) {
      return;
    }
    const lines = this.scroll > 0 && this.scrolled ? this.scrolled : this.lines;
    const t = this.store.terminal(this.id);
    const live = isLive(this.store.status(this.id));
    const showCursor = this.scroll === 0 && live && t.CursorVisible !== false;
    while (this.rowEls.length > lines.length) {
      this.rowEls.pop().remove();
    }
    for (let i = 0; i < lines.length; i++) {
      let row = this.rowEls[i];
      if (!row) {
        row = h("div", { class: "term-row" });
        this.rowEls.push(row);
        this.screen.append(row);
        row.drawn = null;
      }
      const col = showCursor && this.cursor[1] === i ? this.cursor[0] : -1;
      const key = lines[i] + "\u0000" + col;
      if (row.drawn !== key) {
        row.drawn = key;
        fill(row, renderCells(parseLine(lines[i]), col));
      }
    }
    this.term.classList.toggle("scrolled", this.scroll > 0);
    this.drawBanner(live);
  }

  drawBanner(live) {
    const st = this.store.state(this.id);
    const status = this.store.status(this.id);
    const link = this.store.link(this.host);
    let msg = "";
    if (link.state === HostDown) {
      msg = `Keys are not sent · ${text(link.error) || "the link to host " + this.host + " is down"} · reconnecting…`;
    } else if (this.scroll > 0) {
      msg = `Scrolled back ${this.scroll} lines · Shift+PgDn or any key returns to the live screen`;
    } else if (!live) {
      const chat = this.store.chats.get(this.id) || {};
      msg = text(chat.harness) + (status === "stopped" ? " is not running" : " " + status);
      const why = text(st.Reason || st.LastError);
      if (status !== "stopped" && why) {
        msg += " · " + why;
      }
      msg += " · Start runs it again";
    } else if (this.lines.length === 0) {
      msg = "Waiting for the screen…";
    }
    this.banner.textContent = msg;
    this.banner.hidden = msg === "";
  }

  // write sends bytes to the harness; nothing while it does not run.
  write(data) {
    if (!this.id) {
      return;
    }
    if (this.store.link(this.host).state === HostDown) {
      this.report(`The link to host ${this.host} is down: the keys were not sent.`);
      return;
    }
    if (!isLive(this.store.status(this.id))) {
      this.report("The chat is not running: Start it to type to it.");
      return;
    }
    if (this.host === localHost) {
      // This machine's server takes a connection's keys in the order
      // they come.
      this.callFor(this.host, "_acpmux/write", { id: this.chatId, data: base64(data) }).catch((e) => this.report("Keys not sent: " + e.message));
      return;
    }
    // A host's calls are relayed each on its own, and two under way may
    // reach the host in either order: its keys go one write at a time,
    // those typed meanwhile together in the next.
    const last = this.outbox[this.outbox.length - 1];
    if (last && last.host === this.host && last.id === this.chatId) {
      last.data += data;
    } else {
      this.outbox.push({ host: this.host, id: this.chatId, data });
    }
    this.sendKeys();
  }

  // sendKeys sends the keys waiting for a host, one write at a time.
  async sendKeys() {
    if (this.sending) {
      return;
    }
    this.sending = true;
    while (this.outbox.length > 0) {
      const w = this.outbox.shift();
      try {
        await this.callFor(w.host, "_acpmux/write", { id: w.id, data: base64(w.data) });
      } catch (e) {
        this.report("Keys not sent: " + e.message);
      }
    }
    this.sending = false;
  }

  key(ev) {
    if (ev.shiftKey && (ev.key === "PageUp" || ev.key === "PageDown")) {
      ev.preventDefault();
      this.scrollBy((ev.key === "PageUp" ? 1 : -1) * Math.max(1, this.size.rows - 1));
      return;
    }
    const b = keyBytes(ev, this.store.terminal(this.id).Modes || {});
    this.downSent = b !== null;
    if (b === null) {
      return;
    }
    ev.preventDefault();
    this.backToLive();
    this.write(b);
  }

  // keypress types what a keydown left alone: a key whose keydown named
  // no key ("Unidentified", as some layouts and tools send) but made a
  // character. A handled keydown prevents its keypress in a browser, but
  // not in every tool that drives one: the keypress of a key sent already
  // is dropped.
  keypress(ev) {
    if (this.downSent) {
      this.downSent = false;
      ev.preventDefault();
      return;
    }
    // An unnamed key's character is in charCode.
    const ch = [...ev.key].length === 1 ? ev.key : ev.charCode > 0 ? String.fromCodePoint(ev.charCode) : "";
    if (ev.ctrlKey || ev.metaKey || ch === "" || ch < " ") {
      return;
    }
    ev.preventDefault();
    this.backToLive();
    this.write((ev.altKey ? "\x1b" : "") + ch);
  }

  paste(ev) {
    const t = ev.clipboardData ? ev.clipboardData.getData("text/plain") : "";
    if (t === "") {
      return;
    }
    ev.preventDefault();
    this.backToLive();
    this.write(pasteBytes(t, this.store.terminal(this.id).Modes || {}));
  }

  // wheel scrolls back, or, for a harness that tracks the mouse, is sent
  // to it as wheel reports (as the TUI does).
  wheel(ev) {
    if (!this.id) {
      return;
    }
    ev.preventDefault();
    const px = ev.deltaMode === 1 ? ev.deltaY * this.cell.h : ev.deltaMode === 2 ? ev.deltaY * this.cell.h * this.size.rows : ev.deltaY;
    this.wheelRest += px;
    const lines = Math.trunc(this.wheelRest / this.cell.h);
    if (lines === 0) {
      return;
    }
    this.wheelRest -= lines * this.cell.h;
    const modes = this.store.terminal(this.id).Modes || {};
    if (modes.MouseTracking && this.scroll === 0) {
      const r = this.screen.getBoundingClientRect();
      const col = Math.max(0, Math.floor((ev.clientX - r.left) / this.cell.w));
      const row = Math.max(0, Math.floor((ev.clientY - r.top) / this.cell.h));
      for (let i = 0; i < Math.min(Math.abs(lines), 10); i++) {
        const b = wheelBytes(lines < 0, col, row, modes);
        if (b) this.write(b);
      }
      return;
    }
    this.scrollBy(-lines);
  }

  touchMove(ev) {
    if (this.touchY === null || ev.touches.length !== 1) {
      return;
    }
    const dy = ev.touches[0].clientY - this.touchY;
    const lines = Math.trunc(dy / this.cell.h);
    if (lines !== 0) {
      ev.preventDefault();
      this.touchY += lines * this.cell.h;
      this.scrollBy(lines);
    }
  }

  // scrollBy moves the view n lines back (negative: forward), within the
  // scrollback the server keeps.
  scrollBy(n) {
    const most = this.store.terminal(this.id).Scrollback || 0;
    const next = Math.max(0, Math.min(most, this.scroll + n));
    if (next === this.scroll) {
      return;
    }
    this.scroll = next;
    if (next === 0) {
      this.scrolled = null;
      this.refresh();
      return;
    }
    this.fetchScrolled();
  }

  backToLive() {
    if (this.scroll > 0) {
      this.scroll = 0;
      this.scrolled = null;
      this.refresh();
    }
  }

  // fetchScrolled asks for the screen as it is scroll lines up; one call
  // at a time, the latest scroll wins.
  fetchScrolled() {
    if (this.fetching) {
      this.refetch = true;
      return;
    }
    this.fetching = true;
    const id = this.id, scroll = this.scroll;
    this.callFor(this.host, "_acpmux/render", { id: this.chatId, scroll }).then((r) => {
      if (id === this.id && this.scroll > 0) {
        this.scrolled = String((r && r.text) || "").split("\n");
        this.refresh();
      }
    }).catch((e) => this.report("Scroll back: " + e.message)).finally(() => {
      this.fetching = false;
      if (this.refetch) {
        this.refetch = false;
        if (this.scroll > 0) this.fetchScrolled();
      }
    });
  }
}
