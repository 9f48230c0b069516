// One chat, as the TUI's summary and chat pane show it: a head with its
// name and what can be done to it (start, stop, fork, side chat, hand
// off), its summary, its sources as chips, and its body: a terminal
// chat's live screen (terminal.js) or an ACP chat's conversation
// (transcript.js) with the prompt input (composer.js). Below the body, a
// path becomes a source of the chat: a folder through _acpmux/addFolders,
// a file through _acpmux/setFiles with the chat's files and it; a running
// chat takes either at the end of its turn, and its chip shows pending
// until then. A chat of another host is shown the same way: every call
// for it goes to its host (callFor), its folders are that host's.

import { h, fill, text, button, errorText, debounce } from "./dom.js";
import { isLive, localHost, splitKey } from "./store.js";
import { chipList, SourceInput } from "./sources.js";
import { TranscriptView } from "./transcript.js";
import { Composer } from "./composer.js";

export class ChatPane {
  // callFor(host, method, params) makes a call on a host's server;
  // terminal is the page's one TerminalView; show(host, ids) names the
  // chats whose screens a host's server sends; onDerived(key) opens a chat
  // made here; onBack() returns to the list (a phone's one screen).
  constructor({ callFor, store, terminal, show, report, onDerived, onBack }) {
    this.callFor = callFor;
    this.store = store;
    this.terminal = terminal;
    this.show = show;
    this.report = report;
    this.onDerived = onDerived;
    this.id = ""; // the chat's key (store.js)
    this.host = localHost;
    this.chatId = "";
    this.acp = false;
    this.prompting = false;

    this.headEl = h("div", { class: "chat-head" });
    this.summaryEl = h("div", { class: "summary" });
    this.chipsEl = h("div", { class: "chips-box" });
    this.bodyEl = h("div", { class: "chat-body" });
    this.backBtn = button("‹ Chats", { class: "back", on: { click: onBack } });
    this.transcript = new TranscriptView({ callFor, store, onStale: debounce(() => this.loadTranscript(), 300) });
    this.composer = new Composer({
      onSend: (t, links) => this.prompt(t, links),
      onCancel: () => this.cancel(),
      files: (query) => this.call("_acpmux/files", { id: this.chatId, query, limit: 50 }),
    });
    this.sourceInput = new SourceInput({
      call: (method, params) => this.call(method, params),
      base: () => text((this.chat() || {}).cwd),
      onAdd: (s) => this.addSource(s),
      label: "Add a folder or file to this chat",
    });
    this.element = h("article", { class: "chat" },
      this.headEl, this.summaryEl, this.chipsEl, this.bodyEl,
      h("div", { class: "chat-sources" }, this.sourceInput.element));
    this.refetch = debounce(() => this.fetchChat(), 250);
    this.lastPending = "";
  }

  chat() {
    return this.store.chats.get(this.id);
  }

  // call makes a call on the server of the chat's host.
  call(method, params = {}) {
    return this.callFor(this.host, method, params);
  }

  // open shows the chat of key and sets up what its server sends of it.
  async open(key) {
    const next = splitKey(key);
    if (this.id && this.id !== key) {
      this.leave(next.host);
    }
    this.id = key;
    ({ host: this.host, id: this.chatId } = next);
    this.acp = this.store.transport(key) === "acp";
    this.prompting = false;
    this.sourceInput.reset();
    this.composer.reset();
    if (this.acp) {
      this.transcript.open(key);
      fill(this.bodyEl, this.transcript.element, this.composer.element);
      this.terminal.close();
    } else {
      this.terminal.open(key);
      fill(this.bodyEl, this.terminal.element);
    }
    this.render();
    await this.attach();
  }

  // attach asks the chat's server for its updates: its screen (show) or
  // its stream (observe, then the transcript). It runs again after a
  // reconnect (of this machine's server, or of the link to the chat's
  // host): the new connection has been told nothing.
  async attach() {
    const id = this.id;
    if (!id) {
      return;
    }
    const chatId = this.chatId;
    this.look();
    if (!this.acp) {
      this.show(this.host, [chatId]);
      this.terminal.resized();
      return;
    }
    this.show(this.host, []);
    try {
      await this.call("_acpmux/observe", { id: chatId });
    } catch (e) {
      if (id === this.id) this.report("Observe: " + e.message);
    }
    await this.loadTranscript();
  }

  // look tells the chat's server whether its user looks at it (not while
  // the page is hidden).
  look() {
    if (this.id) {
      this.call("_acpmux/look", { id: document.hidden ? "" : this.chatId }).catch(() => {});
    }
  }

  async loadTranscript() {
    const id = this.id;
    if (!id || !this.acp) return;
    try {
      const r = await this.call("_acpmux/transcript", { id: this.chatId });
      if (id === this.id) {
        this.transcript.setTranscript((r && r.entries) || [], !!(r && r.turnRunning) || !!this.store.state(id).TurnActive);
      }
    } catch (e) {
      this.report("Transcript: " + e.message);
    }
  }

  // leave stops what the chat's server sends of the chat shown, and tells
  // it nobody looks at it here. When the next chat shown (nextHost's) is of
  // the same server, the next show and look replace those: they are not
  // sent "none" first, as a server may take two calls in either order.
  leave(nextHost = "") {
    if (!this.id) return;
    if (this.acp) {
      this.call("_acpmux/unobserve", { id: this.chatId }).catch(() => {});
    }
    if (nextHost !== this.host) {
      if (!this.acp) this.show(this.host, []);
      this.call("_acpmux/look", { id: "" }).catch(() => {});
    }
    this.terminal.close();
  }

  close() {
    this.leave();
    this.id = "";
    this.chatId = "";
  }

  // entries takes the stream of an observed chat (by its key).
  entries(key, list) {
    if (key === this.id && this.acp) {
      this.transcript.stream(list);
    }
  }

  // states hears that chats' states changed (their keys): the chat shown is drawn
  // again, and its JSON read again when its pending lists moved or its
  // harness started or ended (a change taken at the end of a turn shows
  // in the chips then; a first start says how the folders went).
  states(ids) {
    if (!this.id || !ids.includes(this.id)) {
      return;
    }
    const st = this.store.state(this.id);
    const key = JSON.stringify([this.id, isLive(this.store.status(this.id)), st.PendingDirectories, st.PendingFiles, st.FoldersVia]);
    if (key !== this.lastPending) {
      this.lastPending = key;
      this.refetch();
    }
    this.render();
  }

  async fetchChat() {
    const id = this.id, host = this.host;
    if (!id) return;
    try {
      this.store.putChat(host, await this.call("_acpmux/chat", { id: this.chatId }));
    } catch (e) {
      if (id === this.id) this.report("Read the chat: " + e.message);
    }
  }

  render() {
    const chat = this.chat();
    if (!chat) {
      this.headKey = "";
      this.bodyKey = "";
      fill(this.headEl, this.backBtn, h("h2", { text: "This chat is gone" }));
      fill(this.summaryEl);
      fill(this.chipsEl);
      return;
    }
    const st = this.store.state(this.id);
    const status = this.store.status(this.id);
    this.renderHead(chat, st, status);
    // The summary and the chips are built again only when what they show
    // changed: a state changes with each cursor move of a terminal.
    const key = JSON.stringify([chat, status, st.StatusFrom, st.AgentName, st.LastError, st.Reason, st.FoldersVia,
      st.PendingDirectories, st.RunningDirectories, st.PendingFiles, st.RunningFiles, st.PendingUntilRestart]);
    if (key !== this.bodyKey) {
      this.bodyKey = key;
      this.renderSummary(chat, st, status);
      this.renderChips(chat, st);
    }
    if (this.acp) {
      this.transcript.permission(st.Permission || null);
      this.composer.setRunning(this.prompting || !!st.TurnActive);
      this.composer.setCommands(st.Commands || []);
    } else {
      this.terminal.refresh();
    }
  }

  renderHead(chat, st, status) {
    const live = isLive(status);
    const title = text(st.Title).trim();
    const name = text(chat.name) || chat.id;
    const harnesses = (this.store.configOf(this.host).harnesses || []).filter((x) => x.installed !== false);
    // Built again only when what it shows changed: an open hand-off menu
    // stays open while the chat's screen changes.
    const key = JSON.stringify([this.id, name, title, live, harnesses.map((x) => x.name), this.host]);
    if (key === this.headKey) {
      return;
    }
    this.headKey = key;
    const handoffTo = h("select", { class: "small", attrs: { "aria-label": "Hand off to" } },
      harnesses.map((x) => h("option", { value: text(x.name), text: text(x.name) })));
    const handoff = h("details", { class: "handoff" },
      h("summary", { class: "button-like", text: "Hand off…" }),
      h("div", { class: "popover" },
        h("p", { class: "dim", text: "A new chat in another harness, told what was said here." }),
        handoffTo,
        button("Hand off", { class: "primary small", on: { click: () => this.derive("handoff", handoffTo.value) } })));
    fill(this.headEl,
      this.backBtn,
      h("div", { class: "chat-title" },
        h("h2", { text: name }),
        this.host !== localHost ? h("span", { class: "chat-host", role: "chat-host", text: "on " + this.host }) : null,
        title && title !== name ? h("span", { class: "term-title", text: title }) : null),
      h("div", { class: "chat-actions" },
        live
          ? button("Stop", { class: "danger", on: { click: () => this.lifecycle("_acpmux/stop") } })
          : button("Start", { class: "primary", on: { click: () => this.lifecycle("_acpmux/start") } }),
        live ? button("Restart", { on: { click: () => this.lifecycle("_acpmux/restart") } }) : null,
        button("Fork", { on: { click: () => this.derive("fork") } }),
        button("Side chat", { on: { click: () => this.derive("side") } }),
        handoff));
  }

  renderSummary(chat, st, status) {
    const transport = this.store.transport(this.id);
    let via = text(chat.foldersVia) || text(st.FoldersVia) || "none";
    if (chat.foldersViaExpected) via += " (expected)";
    const bits = [text(chat.harness), transport === "acp" ? "ACP" : "terminal"];
    if (st.AgentName) bits.push(text(st.AgentName));
    const line = (label, value, cls) => h("div", { class: "summary-row" + (cls ? " " + cls : "") },
      h("span", { class: "summary-label", text: label }), h("span", { class: "summary-value", text: value }));
    const from = isLive(status) ? sourceWords[st.StatusFrom] || "" : "";
    const statusText = status + (from ? " · " + from : "");
    const why = text(st.LastError || (status === "failed" || status === "exited" ? st.Reason : ""));
    fill(this.summaryEl,
      this.host !== localHost ? line("host", this.host) : null,
      line("harness", bits.join(" · ")),
      h("div", { class: "summary-row" }, h("span", { class: "summary-label", text: "status" }),
        h("span", { class: "summary-value status-pill status-" + status, text: statusText })),
      line("folders reach it through", via),
      chat.additionalFiles && chat.additionalFiles.length > 0 ? line("files reach it through", text(chat.filesVia)) : null,
      chat.origin ? line("made as", text(chat.origin) + (chat.parent ? " of " + text(chat.parent) : "")) : null,
      chat.sandbox ? line("sandbox", chat.sandbox.refused ? "refused: " + text(chat.sandbox.refused) : text(chat.sandbox.summary),
        chat.sandbox.refused ? "warn" : "") : null,
      pendingText(st) ? line("pending", pendingText(st), "pending") : null,
      chat.broken ? line("broken", text(chat.broken), "warn") : null,
      why ? line(isLive(status) ? "last error" : "error", why, "warn") : null);
  }

  // renderChips shows the chat's folder, folders and files; a source the
  // running harness has not taken yet is marked pending.
  renderChips(chat, st) {
    const pendingDirs = added(st.PendingDirectories, st.RunningDirectories);
    const pendingFiles = added(st.PendingFiles, st.RunningFiles);
    const items = [{ path: text(chat.cwd), kind: "folder", label: chat.noProject ? "chat's own folder" : "chat's folder" }];
    for (const d of chat.additionalDirectories || []) {
      items.push({ path: text(d), kind: "folder", label: "folder", pending: pendingDirs.has(d), onRemove: () => this.removeSource(d, "folder") });
    }
    for (const d of chat.pendingDirectories || []) {
      if (!(chat.additionalDirectories || []).includes(d)) items.push({ path: text(d), kind: "folder", label: "folder", pending: true });
    }
    for (const f of chat.additionalFiles || []) {
      items.push({ path: text(f), kind: "file", label: "file", pending: pendingFiles.has(f), onRemove: () => this.removeSource(f, "file") });
    }
    fill(this.chipsEl, chipList(items));
  }

  size() {
    return this.terminal.size.cols > 0 ? this.terminal.size : {};
  }

  async lifecycle(method) {
    const host = this.host;
    try {
      this.store.putChat(host, await this.call(method, { id: this.chatId, ...this.size() }));
    } catch (e) {
      this.report(errorText(e));
    }
  }

  // derive makes a fork, side chat or handoff (the server writes a
  // capsule of what was said, when the harness cannot fork natively),
  // starts it and opens it. It is made on the chat's host.
  async derive(origin, harness) {
    const host = this.host;
    const call = (method, params) => this.callFor(host, method, params);
    try {
      const chat = await call("_acpmux/derive", { id: this.chatId, origin, harness: harness || undefined, makeCapsule: true });
      const key = this.store.putChat(host, chat);
      try {
        this.store.putChat(host, await call("_acpmux/start", { id: chat.id, ...this.size() }));
      } catch (e) {
        this.report("Made " + text(chat.name) + ", not started: " + errorText(e));
      }
      this.onDerived(key);
    } catch (e) {
      this.report(errorText(e));
    }
  }

  // addSource adds a folder or a file; a refusal rejects, and the input
  // shows it.
  async addSource({ path, kind }) {
    const chat = this.chat();
    if (!chat) return;
    const host = this.host;
    let updated;
    if (kind === "folder") {
      updated = await this.call("_acpmux/addFolders", { id: chat.id, additionalDirectories: [path] });
    } else {
      const files = [...(chat.pendingFiles || chat.additionalFiles || [])];
      if (!files.includes(path)) files.push(path);
      updated = await this.call("_acpmux/setFiles", { id: chat.id, additionalFiles: files });
    }
    this.store.putChat(host, updated);
  }

  async removeSource(path, kind) {
    const chat = this.chat();
    if (!chat) return;
    const host = this.host;
    try {
      let updated;
      if (kind === "folder") {
        updated = await this.call("_acpmux/removeFolders", { id: chat.id, additionalDirectories: [path] });
      } else {
        const files = (chat.pendingFiles || chat.additionalFiles || []).filter((f) => f !== path);
        updated = await this.call("_acpmux/setFiles", { id: chat.id, additionalFiles: files });
      }
      this.store.putChat(host, updated);
    } catch (e) {
      this.sourceInput.showError(errorText(e));
    }
  }

  // prompt runs one turn, with the files its chips link; it answers when
  // the turn ends.
  async prompt(t, links = []) {
    this.prompting = true;
    this.composer.setRunning(true);
    const key = this.id;
    try {
      await this.call("_acpmux/prompt", { id: this.chatId, text: t, links: links.length > 0 ? links : undefined });
    } finally {
      if (key === this.id) {
        this.prompting = false;
        this.composer.setRunning(!!this.store.state(this.id).TurnActive);
      }
    }
  }

  async cancel() {
    try {
      await this.call("_acpmux/cancel", { id: this.chatId });
    } catch (e) {
      this.report("Cancel: " + e.message);
    }
  }
}

// sourceWords say where a live status comes from, as the TUI's narrow
// summary does (proto.StatusSource.Short): nothing for ACP, whose status is
// exact.
const sourceWords = { hooks: "from hooks", notify: "turn ends from notify, else inferred", screen: "inferred" };

// pendingText says what a pending change of the folders and files adds
// and removes, and when the running harness takes it, as the TUI's
// summary does; "" when nothing is pending.
function pendingText(st) {
  const parts = [];
  const change = (pending, running, noun) => {
    if (!Array.isArray(pending)) return;
    const add = [...added(pending, running)];
    const drop = [...added(running || [], pending)];
    if (add.length > 0) parts.push("adds " + add.join(", "));
    if (drop.length > 0) parts.push("removes " + drop.join(", "));
    if (add.length === 0 && drop.length === 0) parts.push("reorders the " + noun);
  };
  change(st.PendingDirectories, st.RunningDirectories, "folders");
  change(st.PendingFiles, st.RunningFiles, "files");
  if (parts.length === 0) return "";
  return parts.join(" · ") + (st.PendingUntilRestart ? " at its next restart" : " at the end of its turn");
}

// added is what of pending the running list lacks, as a set; empty when
// nothing is pending.
function added(pending, running) {
  if (!Array.isArray(pending)) return new Set();
  const run = new Set(running || []);
  return new Set(pending.filter((p) => !run.has(p)));
}
