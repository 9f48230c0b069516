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

import { h, fill, text, button, errorText } from "./dom.js";
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
      this.add(e);
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
    for (const raw of entries || []) {
      this.merge(raw);
    }
    if (atEnd) this.toEnd();
  }

  atEnd() {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
  }

  toEnd() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  merge(raw) {
    const e = { ...raw, kind: kindOf(raw.kind) };
    const last = this.entries[this.entries.length - 1];
    if (e.kind !== "notice") {
      this.noticeEl.hidden = true;
    }
    switch (e.kind) {
      case "agent":
      case "thought":
      case "user":
        if (last && last.kind === e.kind && text(last.messageId) === text(e.messageId) && (e.kind !== "user" || e.messageId)) {
          last.text = text(last.text) + text(e.text);
          this.draw(last);
          return;
        }
        break;
      case "tool": {
        const t = this.findTool(e.toolCallId);
        if (t) {
          if (e.title) t.title = e.title;
          if (e.toolStatus) t.toolStatus = e.toolStatus;
          if (Array.isArray(e.locations)) t.locations = e.locations;
          this.draw(t);
          return;
        }
        break;
      }
      case "plan":
        if (last && last.kind === "plan") {
          last.plan = e.plan;
          this.draw(last);
          return;
        }
        break;
      case "stderr":
        if (last && last.kind === "stderr") {
          last.lines.push(text(e.text));
          if (last.lines.length > 200) last.lines.shift();
          this.draw(last);
          return;
        }
        e.lines = [text(e.text)];
        break;
      case "turnStarted":
        this.add({ kind: "user", text: e.text });
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

  add(raw) {
    const e = { ...raw, kind: kindOf(raw.kind) };
    if (e.kind === "stderr" && !e.lines) e.lines = [text(e.text)];
    if (!["user", "agent", "thought", "tool", "plan", "note", "error", "stderr"].includes(e.kind)) {
      return;
    }
    this.entries.push(e);
    this.log.append(this.draw(e));
  }

  // draw builds (or rebuilds in place) an entry's element.
  draw(e) {
    const el = entryElement(e);
    if (e.el && e.el.parentNode) {
      e.el.replaceWith(el);
    }
    e.el = el;
    return el;
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
      h("div", { class: "card-title", text: text(perm.Title) || "The agent asks to run a tool" }),
      !allow || !deny ? h("p", { class: "dim", text: "Only one-time answers are offered here; the TUI has the others." }) : null,
      h("div", { class: "card-actions" }, buttons),
      err));
  }
}

// statusMark is a plan entry's status ("[completed] text") as a mark.
function planItem(line) {
  const m = /^\[([a-z_]+)\]\s*(.*)$/s.exec(line);
  const status = m ? m[1] : "";
  const body = m ? m[2] : line;
  const mark = status === "completed" ? "✓" : status === "in_progress" ? "▸" : "○";
  return h("li", { class: "plan-item plan-" + (status || "pending") }, h("span", { class: "mark", text: mark }), h("span", { text: body }));
}

function entryElement(e) {
  switch (e.kind) {
    case "user":
      return h("div", { class: "entry user" }, h("div", { class: "who", text: "You" }), h("div", { class: "body", text: text(e.text) }));
    case "agent":
      return h("div", { class: "entry agent" }, h("div", { class: "body", text: text(e.text) }));
    case "thought": {
      const t = text(e.text);
      return h("details", { class: "entry thought" }, h("summary", { text: `Thought (${[...t].length} chars)` }), h("div", { class: "body", text: t }));
    }
    case "tool": {
      const locs = Array.isArray(e.locations) ? e.locations : [];
      const st = text(e.toolStatus) || "pending";
      return h("div", { class: "entry tool" },
        h("div", { class: "tool-head" },
          h("span", { class: "tool-icon", text: "⚙", attrs: { "aria-hidden": "true" } }),
          h("span", { class: "tool-title", text: text(e.title) || "tool call" }),
          h("span", { class: "tool-status status-" + st.replace(/[^a-z_]/g, ""), text: st })),
        locs.length > 0 ? h("ul", { class: "locations" }, locs.map((l) =>
          h("li", { class: "path", text: text(l && l.path) + (l && typeof l.line === "number" ? ":" + l.line : "") }))) : null);
    }
    case "plan":
      return h("div", { class: "entry plan" }, h("div", { class: "who", text: "Plan" }),
        h("ul", { class: "plan-items" }, (e.plan || []).map((p) => planItem(text(p)))));
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
