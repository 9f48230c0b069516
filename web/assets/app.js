// The page: it signs in (session.js), opens the one connection to the
// server (rpc.js), and lays out the chat list beside the chat shown, as
// the TUI's sidebar and chat pane; on a phone they are two screens. On
// each connection (the first and every reconnect) it reads the config and
// the chats, becomes a watcher (_acpmux/watch), and names the chat it
// shows again. What the server tells a watcher goes to the store and to
// the views that draw it.

import { h, fill, debounce } from "./dom.js";
import { Connection } from "./rpc.js";
import { Store } from "./store.js";
import { ChatList } from "./list.js";
import { ChatPane } from "./chat.js";
import { TerminalView } from "./terminal.js";
import { NewChatForm } from "./newchat.js";
import { Notifier } from "./notify.js";
import { takeToken, signIn, signInHint } from "./session.js";

const statusEl = document.getElementById("status");

// signedOut leaves only the sentence that says how to sign in.
function signedOut() {
  document.body.classList.add("signed-out");
  document.getElementById("app").hidden = true;
  statusEl.textContent = signInHint;
}

// narrow is the phone layout: the list and the chat are two screens.
const narrow = window.matchMedia("(max-width: 699px)");

class App {
  constructor() {
    this.store = new Store();
    this.rpc = new Connection({ url: "/acp", status: (t, kind) => this.linkStatus(t, kind) });
    this.toastEl = document.getElementById("toast");
    this.paneEl = document.getElementById("chat-pane");
    const report = (msg) => this.toast(msg);
    this.shown = [];

    this.terminal = new TerminalView({ rpc: this.rpc, store: this.store, report });
    this.chat = new ChatPane({
      rpc: this.rpc,
      store: this.store,
      terminal: this.terminal,
      report,
      show: (ids) => this.show(ids),
      onDerived: (id) => this.openChat(id),
      onBack: () => this.back(),
    });
    this.form = new NewChatForm({
      rpc: this.rpc,
      store: this.store,
      base: () => this.someFolder(),
      size: () => this.terminal.size,
      onCreated: (chat, why) => {
        this.store.putChat(chat);
        this.openChat(chat.id);
        if (why) this.toast(why);
      },
      onCancel: () => this.back(),
    });
    this.list = new ChatList(document.getElementById("chat-list"), this.store, (id) => this.openChat(id));
    this.notifier = new Notifier({ store: this.store, buttonEl: document.getElementById("notify"), open: (id) => this.openChat(id) });
    document.querySelector('[data-role="new-chat"]').addEventListener("click", () => this.openForm());
    this.relist = debounce(() => this.loadList(), 300);
    this.placeholder();
    this.wire();
  }

  // wire routes the server's notifications.
  wire() {
    const { rpc, store } = this;
    rpc.on("_acpmux/changed", (p) => {
      const states = p.states || {};
      store.applyStates(states);
      const ids = Object.keys(states);
      for (const id of ids) {
        this.terminal.view(id, states[id]);
      }
      if (ids.some((id) => !store.chats.has(id))) {
        this.relist(); // a chat made elsewhere
      }
    });
    rpc.on("_acpmux/screen", (u) => this.terminal.patch(u.id, u.screen, u.cursor));
    rpc.on("_acpmux/entries", (p) => this.chat.entries(p.id, p.entries));
    rpc.on("_acpmux/configChanged", (cfg) => store.setConfig(cfg));
    rpc.onOpen(() => this.setup());
    store.addEventListener("states", (ev) => this.chat.states(ev.detail.ids));
    store.addEventListener("chats", () => this.chat.id && this.chat.render());
    store.addEventListener("config", () => this.chat.id && this.chat.render());
    document.addEventListener("visibilitychange", () => {
      if (this.chat.id) {
        this.rpc.call("_acpmux/look", { id: document.hidden ? "" : this.chat.id }).catch(() => {});
      }
      if (!document.hidden && this.rpc.open) this.relist();
    });
    window.addEventListener("popstate", () => {
      if (narrow.matches && document.body.classList.contains("show-chat")) this.back(true);
    });
    this.toastEl.addEventListener("click", () => { this.toastEl.hidden = true; });
  }

  // setup runs on every connection: the new one has been told nothing.
  async setup() {
    const { rpc, store } = this;
    store.setConfig(await rpc.call("_acpmux/config", {}));
    await this.loadList();
    const w = await rpc.call("_acpmux/watch", this.terminal.size.cols > 0 ? this.terminal.size : { cols: 0, rows: 0 });
    store.resetViews((w && w.states) || {});
    // Until a watcher names the chats it draws it is sent every chat's
    // screen at each change: name none, then the one shown.
    await rpc.call("_acpmux/show", { ids: [] });
    if (this.chat.id) {
      if (store.chats.has(this.chat.id)) {
        await this.chat.attach();
        this.chat.render();
      } else {
        this.back();
      }
    }
  }

  async loadList() {
    try {
      const r = await this.rpc.call("_acpmux/list", {});
      this.store.setList((r && r.chats) || []);
    } catch (e) {
      this.toast("List the chats: " + e.message);
    }
  }

  // show names the chats whose screens the server sends.
  show(ids) {
    const key = ids.join("\n");
    if (key === this.shown.join("\n") && ids.length === 0) return;
    this.shown = ids;
    this.rpc.call("_acpmux/show", { ids }).catch(() => {});
  }

  linkStatus(t, kind) {
    if (kind === "signed-out") {
      signedOut();
      return;
    }
    statusEl.textContent = t;
    document.body.dataset.link = kind;
    document.getElementById("app").hidden = false;
  }

  // toast shows a failed call's message for a while. While the link is
  // down every call fails, and the status line says so already.
  toast(msg) {
    if (!msg || !this.rpc.open) return;
    this.toastEl.textContent = msg;
    this.toastEl.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { this.toastEl.hidden = true; }, 8000);
  }

  // someFolder is where the new chat's folder browser starts: the folder
  // of the chat shown, else of any chat.
  someFolder() {
    const c = this.store.chats.get(this.chat.id);
    if (c && c.cwd && !c.noProject) return c.cwd;
    for (const x of this.store.chats.values()) {
      if (x.cwd && !x.noProject) return x.cwd;
    }
    return "";
  }

  placeholder() {
    fill(this.paneEl, h("div", { class: "placeholder" },
      h("p", { text: "Choose a chat on the left, or start a new one." })));
  }

  // enter shows the second screen on a phone, with a history entry so
  // the phone's back gesture returns to the list.
  enter() {
    if (narrow.matches && !document.body.classList.contains("show-chat")) {
      history.pushState({ acpmuxChat: true }, "");
    }
    document.body.classList.add("show-chat");
  }

  openChat(id) {
    if (!this.store.chats.has(id)) return;
    if (id === this.chat.id && this.chat.element.isConnected) {
      // Shown already: opening it again would drop the screen the server
      // will not send whole again.
      this.enter();
      return;
    }
    fill(this.paneEl, this.chat.element);
    this.list.select(id);
    this.enter();
    this.chat.open(id).then(() => {
      if (this.store.transport(id) === "acp") this.chat.composer.focus();
      else this.terminal.focus();
    });
  }

  openForm() {
    if (this.chat.id) this.chat.close();
    this.list.select("");
    this.form.reset();
    fill(this.paneEl, this.form.element);
    this.enter();
    this.form.harness.focus();
  }

  // back returns to the list: on a phone, its screen; the chat is closed.
  back(fromHistory = false) {
    if (this.chat.id) this.chat.close();
    this.list.select("");
    this.placeholder();
    document.body.classList.remove("show-chat");
    if (!fromHistory && narrow.matches && history.state && history.state.acpmuxChat) {
      history.back();
    }
  }

  start() {
    this.rpc.start();
  }
}

async function main() {
  const token = takeToken();
  if (token !== null) {
    statusEl.textContent = "Signing in…";
    if ((await signIn(token)) === "refused") {
      signedOut();
      return;
    }
    // Unreachable: the socket is tried anyway, and retried.
  }
  new App().start();
}

main();
