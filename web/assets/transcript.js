// An ACP chat's conversation: what was said before (_acpmux/transcript,
// kinds as numbers) and what streams while the page observes the chat
// (_acpmux/entries, kinds by name), merged as the server's transcript
// merges them: a chunk of text joins the entry before it when it is of its
// kind and message id, a tool call's update changes the call it names, a
// plan replaces the plan just before it. The prompt of a turn comes as the
// turn's start (turnStarted), not as a user entry. The permission card is
// the chat's state (its pending request), not an entry: it shows while
// the state has one, and goes when the state no longer does, whoever
// answered it.
//
// Every entry's text is cleaned once, where it enters the page
// (cleanEntry), and each entry keeps its own element: a chunk redraws only
// the end of the message it joins (drawMessage), once per batch of the
// stream, never the transcript. An agent's message and a thought are
// markdown (markdown.js), a tool call a card (toolcard.js); a message
// keeps at most its first maxRendered characters, and says its size when
// it had more.

import { h, fill, text, button, errorText } from "./dom.js";
import { cleanText, cleanLine, markdownNodes, maxRendered, renderMarkdown, stableEnd } from "./markdown.js";
import { contentElement, formatSize, planList, toolCard } from "./toolcard.js";
import { splitKey } from "./store.js";

// kindNames are proto.EntryKind's names by number (a transcript's form).
const kindNames = ["user", "agent", "thought", "tool", "plan", "note", "error", "stderr",
  "turnStarted", "turnEnded", "refused", "notice", "missed"];

function kindOf(k) {
  return typeof k === "number" ? kindNames[k] || "unknown" : String(k);
}

export class TranscriptView {
  // onStale() is called when the page's copy may differ from the
  // server's: updates were dropped, or a turn that ran as the transcript
  // was copied has ended (its last entries were copied half made, and the
  // stream may have repeated some). The caller fetches the transcript
  // again. Otherwise the stream, merged, is the transcript, and the agent's
  // stderr lines, which only the stream carries, stay. callFor(host,
  // method, params) makes a call on the chat's host.
  constructor({ callFor, store, onStale }) {
    this.callFor = callFor;
    this.store = store;
    this.onStale = onStale;
    this.id = ""; // the chat's key (store.js)
    this.entries = [];
    this.log = h("div", { class: "transcript", attrs: { role: "log", "aria-live": "polite" } });
    this.noticeEl = h("div", { class: "turn-notice", hidden: true });
    this.cards = h("div", { class: "cards" });
    this.element = h("div", { class: "acp-body" }, this.log, this.noticeEl, this.cards);
    this.cardSeq = null;
  }

  open(key) {
    this.id = key;
    this.entries = [];
    this.cardSeq = null;
    this.stale = false;
    fill(this.log, h("p", { class: "empty", text: "Loading the conversation…" }));
    fill(this.cards);
    this.noticeEl.hidden = true;
  }

  // setTranscript replaces the conversation with the server's copy;
  // running says a turn ran as it was copied.
  setTranscript(entries, running) {
    this.stale = !!running;
    const atEnd = this.atEnd();
    this.entries = [];
    fill(this.log);
    for (const e of entries || []) {
      this.add(cleanEntry(e));
    }
    if (this.entries.length === 0) {
      fill(this.log, h("p", { class: "empty", text: "No messages yet: write a prompt below." }));
    }
    if (atEnd) this.toEnd();
  }

  // stream merges streamed entries.
  stream(entries) {
    const atEnd = this.atEnd();
    const empty = this.log.querySelector(".empty");
    if (empty) empty.remove();
    // Each entry a batch adds or changes is drawn once, after the batch.
    const dirty = new Set();
    this.dirty = dirty;
    try {
      for (const raw of entries || []) {
        this.merge(raw);
      }
    } finally {
      this.dirty = null;
      for (const e of dirty) this.draw(e);
    }
    if (atEnd) this.toEnd();
  }

  atEnd() {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
  }

  toEnd() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  // changed marks an entry to draw again: at the end of the stream's
  // batch, or now outside one.
  changed(e) {
    if (this.dirty) this.dirty.add(e);
    else this.draw(e);
  }

  merge(raw) {
    const e = cleanEntry(raw);
    // A chunk joins, and a plan replaces, the entry before it in the
    // server's transcript, which has no stderr lines: they are passed
    // over here (a line the agent wrote mid-message does not split it).
    let last = this.entries[this.entries.length - 1];
    if (e.kind !== "stderr") {
      for (let i = this.entries.length - 1; i >= 0 && last && last.kind === "stderr"; i--) last = this.entries[i];
    }
    if (e.kind !== "notice") {
      this.noticeEl.hidden = true;
    }
    switch (e.kind) {
      case "agent":
      case "thought":
      case "user":
        if (last && last.kind === e.kind && text(last.messageId) === text(e.messageId) && (e.kind !== "user" || e.messageId)) {
          appendText(last, e);
          // Past the server's bound a chunk has no text, and the
          // message's size so far.
          if (e.size) last.size = Math.max(last.size || 0, e.size);
          this.changed(last);
          return;
        }
        break;
      case "tool": {
        const t = this.findTool(e.toolCallId);
        if (t) {
          if (e.title) t.title = e.title;
          if (e.toolStatus) t.toolStatus = e.toolStatus;
          if (e.toolKind) t.toolKind = e.toolKind;
          if (Array.isArray(e.locations)) t.locations = e.locations;
          if (Array.isArray(e.content)) t.content = e.content;
          this.changed(t);
          return;
        }
        break;
      }
      case "plan":
        if (last && last.kind === "plan") {
          last.plan = e.plan;
          last.planItems = e.planItems;
          this.changed(last);
          return;
        }
        break;
      case "stderr":
        if (last && last.kind === "stderr") { // last is the tail here
          last.lines.push(text(e.text));
          if (last.lines.length > 200) last.lines.shift();
          this.changed(last);
          return;
        }
        e.lines = [text(e.text)];
        break;
      case "turnStarted":
        this.add({ kind: "user", text: e.text, bytes: e.bytes, links: e.links });
        return;
      case "turnEnded":
        if (e.error) {
          this.add({ kind: "error", text: e.error });
        } else if (e.stopReason === "cancelled") {
          this.add({ kind: "note", text: "turn cancelled" });
        } else if (e.stopReason && e.stopReason !== "end_turn") {
          this.add({ kind: "note", text: "turn ended: " + e.stopReason });
        }
        if (this.stale) {
          this.stale = false;
          this.onStale();
        }
        return;
      case "refused":
        this.add({ kind: "note", text: "refused a permission request: " + text(e.title) });
        return;
      case "notice":
        this.noticeEl.textContent = text(e.text);
        this.noticeEl.hidden = false;
        return;
      case "missed":
        this.add({ kind: "note", text: `${e.count || "some"} updates were not sent to this page` });
        this.onStale();
        return;
      case "unknown":
        return;
    }
    this.add(e);
  }

  findTool(id) {
    if (!id) return null;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const x = this.entries[i];
      if (x.kind === "tool" && x.toolCallId === id) return x;
    }
    return null;
  }

  // add appends an entry (cleaned by cleanEntry) to the conversation.
  add(e) {
    if (e.kind === "stderr" && !e.lines) e.lines = [text(e.text)];
    if (!["user", "agent", "thought", "tool", "plan", "note", "error", "stderr"].includes(e.kind)) {
      return;
    }
    this.entries.push(e);
    if (this.dirty) {
      // Its place now, its drawing after the batch.
      e.el = h("div", { class: "entry" });
      this.log.append(e.el);
      this.dirty.add(e);
      return;
    }
    this.log.append(this.draw(e));
  }

  // draw builds (or rebuilds in place) an entry's element.
  draw(e) {
    if (e.kind === "agent") {
      return this.drawMessage(e);
    }
    // A message past maxRendered keeps its text: a chunk then changes
    // only the size it says, and only that is drawn again.
    if (e.el && e.noteEl && e.drawnText === e.text && e.noteEl.parentNode) {
      const note = sizeNote(e);
      e.noteEl.replaceWith(note);
      e.noteEl = note;
      return e.el;
    }
    const el = entryElement(e);
    e.drawnText = e.text;
    e.noteEl = el.querySelector(":scope > .size-note");
    if (e.kind === "thought") {
      // The user's opening or folding of a thought stays as it grows; a
      // folded thought's markdown is not drawn until it is opened.
      const body = el.querySelector(":scope > .body");
      const fillBody = () => {
        if (el.open && !body.hasChildNodes()) body.append(renderMarkdown(text(e.text)));
      };
      el.open = !!e.open;
      fillBody();
      el.firstChild.addEventListener("click", () => {
        e.open = !el.open;
      });
      el.addEventListener("toggle", fillBody);
    }
    if (e.el && e.el.parentNode) {
      e.el.replaceWith(el);
    }
    e.el = el;
    return el;
  }

  // drawMessage draws an agent's message in two parts: the blocks no
  // later chunk can change (stableEnd), drawn once as they are complete,
  // and the rest, drawn again at each chunk. The size note follows.
  drawMessage(e) {
    const t = text(e.text);
    if (!e.el || !e.md || !e.el.parentNode) {
      e.md = h("div", { class: "md" });
      e.frozen = 0;
      e.tail = [];
      e.noteEl = null;
      const el = h("div", { class: "entry agent" }, e.md);
      if (e.el && e.el.parentNode) e.el.replaceWith(el);
      e.el = el;
    }
    if (e.drawnText !== t) {
      for (const n of e.tail) n.remove();
      const end = stableEnd(t, e.frozen);
      if (end > e.frozen) {
        e.md.append(...markdownNodes(t.slice(e.frozen, end)));
        e.frozen = end;
      }
      e.tail = markdownNodes(t.slice(e.frozen));
      e.md.append(...e.tail);
      e.drawnText = t;
    }
    const note = sizeNote(e);
    if (e.noteEl) e.noteEl.remove();
    if (note) e.el.append(note);
    e.noteEl = note;
    return e.el;
  }

  // permission shows the chat's pending request as a card with one-time
  // answers (a web caller may give no other), or takes the card away.
  permission(perm) {
    const seq = perm ? perm.Seq : null;
    if (seq === this.cardSeq) {
      return;
    }
    this.cardSeq = seq;
    fill(this.cards);
    if (!perm) {
      return;
    }
    const opts = Array.isArray(perm.Options) ? perm.Options : [];
    const allow = opts.find((o) => o && o.Kind === "allow_once");
    const deny = opts.find((o) => o && o.Kind === "reject_once");
    const err = h("p", { class: "card-error", hidden: true });
    const buttons = [];
    const answer = (opt) => async () => {
      for (const b of buttons) b.disabled = true;
      err.hidden = true;
      try {
        const { host, id } = splitKey(this.id);
        await this.callFor(host, "_acpmux/answerPermission", { id, optionId: opt });
      } catch (e) {
        // Answered elsewhere first: the next state takes the card away.
        err.textContent = errorText(e);
        err.hidden = false;
        for (const b of buttons) b.disabled = false;
      }
    };
    if (allow) buttons.push(button(text(allow.Name) || "Allow once", { class: "primary", role: "permission-allow", on: { click: answer(allow.ID) } }));
    if (deny) buttons.push(button(text(deny.Name) || "Reject once", { class: "danger", role: "permission-deny", on: { click: answer(deny.ID) } }));
    if (buttons.length === 0) {
      buttons.push(button("Dismiss", { on: { click: answer("") } }));
    }
    const head = perm.Pending > 1 ? `Permission 1 of ${perm.Pending}` : "Permission";
    this.cards.append(h("div", { class: "card permission", attrs: { role: "alertdialog", "aria-label": "Permission request" } },
      h("div", { class: "card-head", text: head }),
      h("div", { class: "card-title", text: cleanLine(perm.Title) || "The agent asks to run a tool" }),
      // What is asked: the diff of the edit, the command to run.
      Array.isArray(perm.Content) ? h("div", { class: "card-content" }, cleanContents(perm.Content).map(contentElement)) : null,
      !allow || !deny ? h("p", { class: "dim", text: "Only one-time answers are offered here; the TUI has the others." }) : null,
      h("div", { class: "card-actions" }, buttons),
      err));
  }
}

// utf8Length is how many bytes s is in UTF-8 (a lone surrogate counts 3).
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// cleanEntry is an entry as the page keeps it: its kind by name, every
// text from the agent cleaned (cleanText; one-line fields cleanLine), a
// message's text cut to maxRendered with its size in bytes kept.
function cleanEntry(raw) {
  const e = { ...raw, kind: kindOf(raw.kind) };
  const t = cleanText(e.text);
  e.bytes = utf8Length(t);
  e.text = t.length > maxRendered ? t.slice(0, maxRendered) : t;
  for (const k of ["title", "toolStatus", "toolKind", "messageId", "toolCallId", "stopReason"]) {
    if (e[k] !== undefined && e[k] !== null) e[k] = cleanLine(e[k]);
  }
  if (e.error !== undefined && e.error !== null) e.error = cleanText(e.error);
  if (Array.isArray(e.locations)) {
    e.locations = e.locations.filter((l) => l && typeof l === "object").map((l) => ({ path: cleanLine(l.path), line: l.line }));
  }
  if (Array.isArray(e.content)) e.content = cleanContents(e.content);
  if (Array.isArray(e.links)) e.links = e.links.filter((l) => l && typeof l === "object").slice(0, 64).map((l) => ({ name: cleanLine(l.name), uri: cleanLine(l.uri) }));
  if (Array.isArray(e.plan)) e.plan = e.plan.map(cleanLine);
  if (Array.isArray(e.planItems)) {
    e.planItems = e.planItems.filter((p) => p && typeof p === "object").map((p) => ({
      content: cleanLine(p.content), priority: cleanLine(p.priority), status: cleanLine(p.status),
    }));
  }
  return e;
}

// cleanContents are a tool call's contents (proto's ToolContent) with
// their texts cleaned.
function cleanContents(list) {
  return list.filter((c) => c && typeof c === "object").map((c) => ({
    type: cleanLine(c.type),
    text: cleanText(c.text),
    path: cleanLine(c.path),
    oldText: c.oldText === null || c.oldText === undefined ? null : cleanText(c.oldText),
    newText: cleanText(c.newText),
    terminalId: cleanLine(c.terminalId),
    size: typeof c.size === "number" ? c.size : 0,
  }));
}

// appendText joins a chunk (an entry cleanEntry made) to a message,
// keeping at most maxRendered characters of it and counting every byte.
function appendText(e, chunk) {
  const t = text(chunk.text);
  e.bytes = (e.bytes || 0) + (chunk.bytes || 0);
  const cur = text(e.text);
  if (cur.length < maxRendered) {
    e.text = cur + (cur.length + t.length > maxRendered ? t.slice(0, maxRendered - cur.length) : t);
  }
}

// sizeNote says that a message was longer than what is drawn of it: the
// bytes it had (the server's count when it cut the message, else the
// page's) and how much is shown.
function sizeNote(e) {
  const bytes = Math.max(e.bytes || 0, typeof e.size === "number" ? e.size : 0);
  if (bytes <= text(e.text).length || (bytes <= utf8Length(text(e.text)) && !e.size)) return null;
  return h("div", { class: "size-note dim", text: `This message is ${formatSize(bytes)}: its first ${formatSize(utf8Length(text(e.text)))} are shown.` });
}

// planItems are a plan entry's items: the agent's own (planItems), else
// read back from the "[status] text" lines an older server sends.
function planItems(e) {
  if (Array.isArray(e.planItems) && e.planItems.length > 0) return e.planItems;
  return (e.plan || []).map((line) => {
    const m = /^\[([a-z_]+)\]\s*(.*)$/s.exec(text(line));
    return m ? { content: m[2], status: m[1] } : { content: text(line), status: "pending" };
  });
}

function entryElement(e) {
  switch (e.kind) {
    case "user":
      return h("div", { class: "entry user" }, h("div", { class: "who", text: "You" }), h("div", { class: "body", text: text(e.text) }), sizeNote(e),
        // The files the prompt linked, as chips (their names, never followed).
        Array.isArray(e.links) && e.links.length > 0 ? h("ul", { class: "chips prompt-links" },
          e.links.map((l) => h("li", { class: "chip chip-file", role: "prompt-link", title: l.uri, text: "@" + l.name }))) : null);
    // An agent's message is drawn by TranscriptView.drawMessage.
    case "thought":
      // Its body is drawn when it is opened (see TranscriptView.draw).
      return h("details", { class: "entry thought" }, h("summary", { text: `Thought (${formatSize(e.bytes || 0)})` }),
        h("div", { class: "body" }), sizeNote(e));
    case "tool":
      return toolCard(e);
    case "plan":
      return planList(planItems(e));
    case "note":
      return h("div", { class: "entry note", text: text(e.text) });
    case "error":
      return h("div", { class: "entry error", text: text(e.text) });
    case "stderr":
      return h("details", { class: "entry stderr" }, h("summary", { text: `The agent's stderr (${e.lines.length} ${e.lines.length === 1 ? "line" : "lines"})` }),
        h("pre", { text: e.lines.join("\n") }));
  }
  return h("div");
}
