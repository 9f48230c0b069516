// What the page knows of the server: the chats (_acpmux/list, one chat's
// JSON from the calls that change it), their live states (_acpmux/watch
// and the _acpmux/changed notifications that follow) and the config in
// effect (_acpmux/config, _acpmux/configChanged). Views read it and listen
// for its events; only app.js writes it, from what the server says.

// statusNames are proto.Status's names, by number: a watched state
// carries the number, a chat's JSON the name.
export const statusNames = ["stopped", "starting", "running", "asking", "waiting", "exited", "failed"];

// liveStatuses are the statuses in which a harness process exists.
const liveStatuses = new Set(["starting", "running", "asking", "waiting"]);

export function isLive(status) {
  return liveStatuses.has(status);
}

// localHost names this machine's group in the list. Every chat is of this
// machine for now; a chat of another host would carry its host's name.
export const localHost = "local";

export class Store extends EventTarget {
  constructor() {
    super();
    this.chats = new Map(); // id → chat JSON (proto.ChatJSON)
    this.views = new Map(); // id → {state, terminal} (proto.ChatView)
    this.config = { harnesses: [], defaultHarness: "", generation: 0 };
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // setList replaces the chats with the list's.
  setList(chats) {
    this.chats = new Map();
    for (const c of chats || []) {
      if (c && typeof c.id === "string") {
        this.chats.set(c.id, c);
      }
    }
    this.emit("chats");
  }

  // putChat takes one chat's JSON as a call answered it.
  putChat(chat) {
    if (!chat || typeof chat.id !== "string") {
      return;
    }
    this.chats.set(chat.id, chat);
    this.emit("chats");
  }

  // resetViews forgets every watched state: a new connection's watch
  // answers the chats its server knows, and one it does not is stopped.
  resetViews(states) {
    this.views = new Map();
    this.applyStates(states);
    this.emit("states", { ids: [...this.chats.keys()], changed: [] });
  }

  // applyStates takes watch states by id; it answers the ids whose status
  // changed, each with the status before, for notifications.
  applyStates(states) {
    const changed = [];
    const ids = [];
    for (const [id, view] of Object.entries(states || {})) {
      if (!view || !view.state) {
        continue;
      }
      const before = this.status(id);
      this.views.set(id, { state: view.state, terminal: view.terminal || {} });
      ids.push(id);
      const after = this.status(id);
      if (before !== after) {
        changed.push({ id, before, after });
      }
    }
    if (ids.length > 0) {
      this.emit("states", { ids, changed });
    }
    return changed;
  }

  setConfig(cfg) {
    if (!cfg || (cfg.generation || 0) < (this.config.generation || 0)) {
      return; // an older config than the one heard: an answer and a notice crossed
    }
    this.config = cfg;
    this.emit("config");
  }

  // state is a chat's watched state, {} before any.
  state(id) {
    const v = this.views.get(id);
    return (v && v.state) || {};
  }

  terminal(id) {
    const v = this.views.get(id);
    return (v && v.terminal) || {};
  }

  // status is a chat's status by name: the watched state's when there is
  // one (it is live), else the list's.
  status(id) {
    const st = this.views.get(id);
    if (st && st.state && typeof st.state.Status === "number") {
      return statusNames[st.state.Status] || "unknown";
    }
    const c = this.chats.get(id);
    return (c && c.status) || "stopped";
  }

  harness(name) {
    return (this.config.harnesses || []).find((x) => x && x.name === name) || null;
  }

  // transport is "acp" or "pty": the harness table's, else what the
  // running harness said.
  transport(id) {
    const c = this.chats.get(id);
    const h = c && this.harness(c.harness);
    if (h && h.transport) {
      return h.transport;
    }
    return this.state(id).Transport || "pty";
  }

  // groups are the chats by host: [{host, chats}], each list in the
  // server's order.
  groups() {
    const byHost = new Map();
    for (const c of this.chats.values()) {
      const host = c.host || localHost;
      if (!byHost.has(host)) {
        byHost.set(host, []);
      }
      byHost.get(host).push(c);
    }
    return [...byHost].map(([host, chats]) => ({ host, chats }));
  }

  // asking counts the chats waiting for their user's answer.
  asking() {
    let n = 0;
    for (const id of this.chats.keys()) {
      if (this.status(id) === "asking") {
        n++;
      }
    }
    return n;
  }
}
