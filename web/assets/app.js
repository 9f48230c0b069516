// The page: it signs in (session.js), opens the one connection to this
// machine's server (rpc.js), and lays out the chat list beside the chat
// shown, as the TUI's sidebar and chat pane; on a phone they are two
// screens.
//
// The list holds the chats of this machine and of each [host.NAME] of the
// config, grouped by host as the TUI groups them. The page reaches a host
// only through this machine's server, which relays a call for it
// (_acpmux/host {host, method, params}) over a link it opens with OpenSSH,
// and sends back what the host tells it (_acpmux/hostNotify {host, method,
// params}), and _acpmux/hostDown {host, error} when the link ends. Every
// call for a chat goes through callFor(host, …): direct for this machine,
// relayed for a host. Every notification, this machine's or a host's, goes
// to the same handlers with its host.
//
// On each connection (the first and every reconnect) the page reads the
// config and the chats, becomes a watcher (_acpmux/watch), and names the
// chat it shows again; then, for each host (whose link went with the old
// connection), the same over the relay. A host that cannot be reached, or
// whose link ends, says why on its group and is tried again, waiting
// longer each time, or at once with its Retry button. What a server tells
// a watcher goes to the store and to the views that draw it.

import { h, fill, text, debounce, errorText } from "./dom.js";
import { Connection } from "./rpc.js";
import { Store, localHost, chatKey, splitKey, HostConnecting, HostOK, HostDown } from "./store.js";
import { ChatList } from "./list.js";
import { ChatPane } from "./chat.js";
import { TerminalView } from "./terminal.js";
import { NewChatForm } from "./newchat.js";
import { Notifier } from "./notify.js";
import { takeToken, signIn, signInHint } from "./session.js";

const statusEl = document.getElementById("status");

// MethodHost relays a call to a host; NotifyHost and NotifyHostDown are
// what the server tells of its links (proto/web.go).
const MethodHost = "_acpmux/host";
const NotifyHost = "_acpmux/hostNotify";
const NotifyHostDown = "_acpmux/hostDown";

// A host whose link could not be opened, or ended, is tried again after
// hostRetryFirst, then twice as long each time, up to hostRetryMost: each
// try is an ssh login.
const hostRetryFirst = 1000;
const hostRetryMost = 16000;

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
    const callFor = (host, method, params) => this.callFor(host, method, params);
    this.shown = new Map(); // host → the ids last named to it with show
    this.relists = new Map(); // host → its debounced list
    this.hostRuns = new Map(); // host → {conn, gen, wait, timer}: its link's setup
    this.conn = 0; // counts the connections to this machine's server

    this.terminal = new TerminalView({ callFor, store: this.store, report });
    this.chat = new ChatPane({
      callFor,
      store: this.store,
      terminal: this.terminal,
      report,
      show: (host, ids) => this.show(host, ids),
      onDerived: (key) => this.openChat(key),
      onBack: () => this.back(),
    });
    this.form = new NewChatForm({
      callFor,
      store: this.store,
      base: (host) => this.someFolder(host),
      size: () => this.terminal.size,
      onCreated: (host, chat, why) => {
        const key = this.store.putChat(host, chat);
        this.openChat(key);
        if (why) this.toast(why);
      },
      onCancel: () => this.back(),
    });
    this.list = new ChatList(document.getElementById("chat-list"), this.store, {
      onOpen: (key) => this.openChat(key),
      onRetry: (host) => this.retryHost(host),
    });
    this.notifier = new Notifier({ store: this.store, buttonEl: document.getElementById("notify"), open: (key) => this.openChat(key) });
    document.querySelector('[data-role="new-chat"]').addEventListener("click", () => this.openForm());
    this.placeholder();
    this.wire();
  }

  // callFor makes method with params on host's server: this machine's
  // directly, a host's through the relay. It answers the result, or
  // rejects with the error, as that server gave it.
  callFor(host, method, params = {}) {
    if (!host || host === localHost) {
      return this.rpc.call(method, params);
    }
    return this.rpc.call(MethodHost, { host, method, params });
  }

  // wire routes the servers' notifications: this machine's as they come,
  // a host's out of NotifyHost, each to the same handler with its host.
  wire() {
    const { rpc, store } = this;
    const handlers = {
      "_acpmux/changed": (host, p) => this.changed(host, p.states || {}),
      "_acpmux/screen": (host, u) => {
        if (typeof u.id === "string") this.terminal.patch(chatKey(host, u.id), u.screen, u.cursor);
      },
      "_acpmux/entries": (host, p) => {
        if (typeof p.id === "string") this.chat.entries(chatKey(host, p.id), p.entries);
      },
      "_acpmux/chatsChanged": (host) => this.relist(host),
      "_acpmux/configChanged": (host, cfg) => store.setConfig(host, cfg),
    };
    for (const [method, fn] of Object.entries(handlers)) {
      rpc.on(method, (p) => fn(localHost, p));
    }
    rpc.on(NotifyHost, (n) => {
      const host = text(n.host);
      const fn = handlers[n.method];
      // A host no longer configured, or whose link the page has not
      // asked for again since this machine's server restarted: nothing
      // of it is drawn.
      if (!fn || !this.knownHost(host)) return;
      fn(host, (n.params && typeof n.params === "object") ? n.params : {});
    });
    rpc.on(NotifyHostDown, (p) => this.hostDown(text(p.host), text(p.error)));
    rpc.onOpen(() => this.setup());
    store.addEventListener("states", (ev) => this.chat.states(ev.detail.ids));
    store.addEventListener("chats", () => this.chat.id && this.chat.render());
    store.addEventListener("config", (ev) => {
      if (!ev.detail || ev.detail.host === localHost) this.syncHosts();
      if (this.chat.id) this.chat.render();
    });
    store.addEventListener("hosts", () => this.chat.id && this.terminal.refresh());
    document.addEventListener("visibilitychange", () => {
      this.chat.look();
      if (!document.hidden && this.rpc.open) {
        for (const host of store.hosts()) this.relist(host);
      }
    });
    window.addEventListener("popstate", () => {
      if (narrow.matches && document.body.classList.contains("show-chat")) this.back(true);
    });
    this.toastEl.addEventListener("click", () => { this.toastEl.hidden = true; });
  }

  // changed takes a watcher's news of host's chats.
  changed(host, states) {
    const { store } = this;
    store.applyStates(host, states);
    const ids = Object.keys(states);
    for (const id of ids) {
      this.terminal.view(chatKey(host, id), states[id]);
    }
    if (ids.some((id) => !store.chats.has(chatKey(host, id)))) {
      this.relist(host); // a chat made elsewhere
    }
  }

  // setup runs on every connection: the new one has been told nothing, and
  // the links to the hosts went with the old one.
  async setup() {
    const { rpc, store } = this;
    this.conn++;
    this.shown.clear();
    store.setConfig(localHost, await rpc.call("_acpmux/config", {}), true);
    this.syncHosts(); // each host's setup runs beside this machine's
    await this.loadList(localHost);
    const w = await rpc.call("_acpmux/watch", this.watchSize());
    store.resetViews(localHost, (w && w.states) || {});
    // Until a watcher names the chats it draws it is sent every chat's
    // screen at each change: name none, then the one shown.
    await this.show(localHost, [], true);
    if (this.chat.id && this.chat.host === localHost) {
      await this.reattach();
    }
  }

  watchSize() {
    return this.terminal.size.cols > 0 ? this.terminal.size : { cols: 0, rows: 0 };
  }

  // reattach names the chat shown to its server again, or leaves it when
  // its server no longer has it.
  async reattach() {
    if (this.store.chats.has(this.chat.id)) {
      await this.chat.attach();
      this.chat.render();
    } else {
      this.back();
    }
  }

  // knownHost says whether host is this machine or a configured host whose
  // link the page has asked for on this connection.
  knownHost(host) {
    if (host === localHost) return true;
    const run = this.hostRuns.get(host);
    return !!run && run.conn === this.conn;
  }

  // syncHosts follows the config's hosts: a host new to it, or not yet
  // asked for on this connection, is set up; a host gone from it goes
  // from the page, with its chats.
  syncHosts() {
    if (!this.rpc.open) return;
    const names = this.store.hostNames();
    for (const [host, run] of [...this.hostRuns]) {
      if (!names.includes(host)) {
        clearTimeout(run.timer);
        this.hostRuns.delete(host);
        this.shown.delete(host);
        this.store.dropHost(host);
        if (this.chat.id && this.chat.host === host) this.back();
      }
    }
    for (const host of names) {
      const run = this.hostRuns.get(host);
      if (!run || run.conn !== this.conn) this.startHost(host);
    }
  }

  // startHost (re)does host's setup now.
  startHost(host) {
    let run = this.hostRuns.get(host);
    if (!run) {
      run = { conn: 0, gen: 0, wait: hostRetryFirst, timer: 0 };
      this.hostRuns.set(host, run);
    }
    clearTimeout(run.timer);
    if (run.conn !== this.conn) {
      run.wait = hostRetryFirst;
      this.store.setLink(host, HostConnecting);
    }
    run.conn = this.conn;
    run.gen++;
    this.setupHost(host, run, run.gen);
  }

  // setupHost does for host, over the relay, what setup does for this
  // machine: its config, its chats, a watch of them at the page's size,
  // and the chat shown when it is the host's. The first call opens the
  // server's link there, which may take seconds, or fail. A setup made
  // stale (the link ended meanwhile, this machine's server restarted, a
  // newer setup began) stops, and its answers are dropped.
  async setupHost(host, run, gen) {
    const { store } = this;
    const current = () => this.hostRuns.get(host) === run && run.gen === gen && run.conn === this.conn && this.rpc.open;
    const call = (method, params) => this.callFor(host, method, params);
    try {
      const cfg = await call("_acpmux/config", {});
      if (!current()) return;
      store.setConfig(host, cfg, true);
      const list = await call("_acpmux/list", {});
      if (!current()) return;
      store.setList(host, (list && list.chats) || []);
      const w = await call("_acpmux/watch", this.watchSize());
      if (!current()) return;
      store.resetViews(host, (w && w.states) || {});
      await this.show(host, [], true);
      if (!current()) return;
    } catch (e) {
      if (current()) this.hostFailed(host, run, "unreachable: " + errorText(e));
      return;
    }
    run.wait = hostRetryFirst;
    store.setLink(host, HostOK);
    if (this.chat.id && this.chat.host === host) {
      await this.reattach();
    }
  }

  // hostFailed shows why host is not reached on its group, and tries it
  // again later.
  hostFailed(host, run, why) {
    this.store.setLink(host, HostDown, why);
    clearTimeout(run.timer);
    const wait = run.wait;
    run.wait = Math.min(run.wait * 2, hostRetryMost);
    run.timer = setTimeout(() => {
      if (this.hostRuns.get(host) === run && this.rpc.open) this.startHost(host);
    }, wait);
  }

  // hostDown hears that the server's link to host ended: what the page
  // shows of it is as it was then, and the link is tried again.
  hostDown(host, error) {
    if (!this.knownHost(host) || host === localHost) return;
    const run = this.hostRuns.get(host);
    run.gen++; // a setup under way is stale
    this.shown.delete(host);
    this.hostFailed(host, run, error || `the link to host ${host} closed`);
  }

  // retryHost is the Retry button of a host's group: at once, and from
  // the shortest wait again.
  retryHost(host) {
    const run = this.hostRuns.get(host);
    if (run) run.wait = hostRetryFirst;
    this.store.setLink(host, HostConnecting);
    this.startHost(host);
  }

  // relist reads host's chats again, soon (news come in bursts).
  relist(host) {
    if (!this.relists.has(host)) {
      this.relists.set(host, debounce(() => this.loadList(host), 300));
    }
    this.relists.get(host)();
  }

  async loadList(host) {
    if (host !== localHost && (!this.knownHost(host) || this.store.link(host).state === HostDown)) {
      return; // its next setup lists it
    }
    try {
      const r = await this.callFor(host, "_acpmux/list", {});
      if (this.knownHost(host)) this.store.setList(host, (r && r.chats) || []);
    } catch (e) {
      this.toast((host === localHost ? "List the chats: " : `List the chats of ${host}: `) + e.message);
    }
  }

  // show names the chats (ids on host) whose screens host's server sends.
  show(host, ids, force = false) {
    const key = ids.join("\n");
    if (!force && key === "" && this.shown.get(host) === key) return Promise.resolve();
    this.shown.set(host, key);
    return this.callFor(host, "_acpmux/show", { ids }).catch(() => {});
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

  // someFolder is where the new chat's folder browser starts on host: the
  // folder of the chat shown when it is there, else of any chat there.
  someFolder(host) {
    const c = this.store.chats.get(this.chat.id);
    if (c && c.host === host && c.cwd && !c.noProject) return c.cwd;
    for (const x of this.store.chats.values()) {
      if (x.host === host && x.cwd && !x.noProject) return x.cwd;
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

  openChat(key) {
    if (!this.store.chats.has(key)) return;
    if (key === this.chat.id && this.chat.element.isConnected) {
      // Shown already: opening it again would drop the screen the server
      // will not send whole again.
      this.enter();
      return;
    }
    fill(this.paneEl, this.chat.element);
    this.list.select(key);
    this.enter();
    this.chat.open(key).then(() => {
      if (this.store.transport(key) === "acp") this.chat.composer.focus();
      else this.terminal.focus();
    });
  }

  openForm() {
    const host = this.chat.id ? splitKey(this.chat.id).host : localHost;
    if (this.chat.id) this.chat.close();
    this.list.select("");
    this.form.reset(host);
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
