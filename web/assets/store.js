// What the page knows of the servers: this machine's and each configured
// host's (reached through this machine's server, app.js). Per host: the
// chats (_acpmux/list, one chat's JSON from the calls that change it),
// their live states (_acpmux/watch and the _acpmux/changed notifications
// that follow), the config in effect there (_acpmux/config,
// _acpmux/configChanged) and how its link stands. Views read it and listen
// for its events; only app.js writes it, from what the servers say.
//
// A chat is known by its key: its id for a chat of this machine,
// "HOST:ID" for a chat of a host, as the TUI names them (a chat id is
// [a-z0-9-], so it never holds the colon). Each chat's JSON carries its
// host ("local" for this machine) in its host field.

// statusNames are proto.Status's names, by number: a watched state
// carries the number, a chat's JSON the name.
export const statusNames = ["stopped", "starting", "running", "asking", "waiting", "exited", "failed"];

// liveStatuses are the statuses in which a harness process exists.
const liveStatuses = new Set(["starting", "running", "asking", "waiting"]);

export function isLive(status) {
  return liveStatuses.has(status);
}

// localHost names this machine, as the TUI's sidebar heads its chats (no
// [host.NAME] may take the name).
export const localHost = "local";

// chatKey is the page's name of chat id of host.
export function chatKey(host, id) {
  return !host || host === localHost ? id : host + ":" + id;
}

// splitKey is the host and the id of a chat's key.
export function splitKey(key) {
  const k = String(key || "");
  const i = k.lastIndexOf(":");
  return i < 0 ? { host: localHost, id: k } : { host: k.slice(0, i), id: k.slice(i + 1) };
}

// HostState says how a host's link stands: "connecting" while its chats
// are asked for, "ok" once they came, "down" (with why) when the link
// could not be opened or ended.
export const HostConnecting = "connecting";
export const HostOK = "ok";
export const HostDown = "down";

const emptyConfig = () => ({ harnesses: [], defaultHarness: "", generation: 0, hosts: [] });

export class Store extends EventTarget {
  constructor() {
    super();
    this.chats = new Map(); // key → chat JSON (proto.ChatJSON), with its host
    this.views = new Map(); // key → {state, terminal} (proto.ChatView)
    this.config = emptyConfig(); // this machine's
    this.hostConfigs = new Map(); // host → its config
    this.links = new Map(); // host → {state, error}
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // hostNames are the configured hosts, in the config's order.
  hostNames() {
    return (this.config.hosts || []).map((x) => x && String(x.name || "")).filter((n) => n !== "" && n !== localHost);
  }

  // hosts are this machine then the configured hosts.
  hosts() {
    return [localHost, ...this.hostNames()];
  }

  // setList replaces host's chats with the list's.
  setList(host, chats) {
    for (const [key, c] of this.chats) {
      if (c.host === host) {
        this.chats.delete(key);
      }
    }
    for (const c of chats || []) {
      if (c && typeof c.id === "string") {
        this.chats.set(chatKey(host, c.id), { ...c, host });
      }
    }
    this.emit("chats");
  }

  // putChat takes one chat's JSON of host as a call answered it; it
  // answers the chat's key.
  putChat(host, chat) {
    if (!chat || typeof chat.id !== "string") {
      return "";
    }
    const key = chatKey(host, chat.id);
    this.chats.set(key, { ...chat, host });
    this.emit("chats");
    return key;
  }

  // dropHost forgets a host no longer configured: its chats, states,
  // config and link.
  dropHost(host) {
    for (const [key, c] of this.chats) {
      if (c.host === host) this.chats.delete(key);
    }
    for (const key of [...this.views.keys()]) {
      if (splitKey(key).host === host) this.views.delete(key);
    }
    this.hostConfigs.delete(host);
    this.links.delete(host);
    this.emit("chats");
    this.emit("hosts");
  }

  // resetViews forgets every watched state of host: a new watch answers
  // the chats its server knows, and one it does not is stopped.
  resetViews(host, states) {
    for (const key of [...this.views.keys()]) {
      if (splitKey(key).host === host) this.views.delete(key);
    }
    this.applyStates(host, states);
    const ids = [...this.chats.keys()].filter((k) => splitKey(k).host === host);
    this.emit("states", { ids, changed: [] });
  }

  // applyStates takes host's watch states by id; it answers the keys
  // whose status changed, each with the status before, for notifications.
  applyStates(host, states) {
    const changed = [];
    const ids = [];
    for (const [id, view] of Object.entries(states || {})) {
      if (!view || !view.state) {
        continue;
      }
      const key = chatKey(host, id);
      const before = this.status(key);
      this.views.set(key, { state: view.state, terminal: view.terminal || {} });
      ids.push(key);
      const after = this.status(key);
      if (before !== after) {
        changed.push({ id: key, before, after });
      }
    }
    if (ids.length > 0) {
      this.emit("states", { ids, changed });
    }
    return changed;
  }

  // setConfig takes host's config in effect. fresh says it is the first
  // of a new connection, whose server may have started again and counts
  // its configs from 1 again.
  setConfig(host, cfg, fresh = false) {
    if (!cfg || typeof cfg !== "object") {
      return;
    }
    const before = this.configOf(host);
    if (!fresh && (cfg.generation || 0) < (before.generation || 0)) {
      return; // an older config than the one heard: an answer and a notice crossed
    }
    if (host === localHost) {
      this.config = cfg;
    } else {
      this.hostConfigs.set(host, cfg);
    }
    this.emit("config", { host });
  }

  // configOf is host's config, an empty one before it is known.
  configOf(host) {
    if (!host || host === localHost) return this.config;
    return this.hostConfigs.get(host) || emptyConfig();
  }

  // setLink says how host's link stands.
  setLink(host, state, error = "") {
    const was = this.links.get(host);
    if (was && was.state === state && was.error === error) return;
    this.links.set(host, { state, error });
    this.emit("hosts", { host });
  }

  // link is how host's link stands; this machine's is the page's own
  // connection, told in the status line.
  link(host) {
    if (!host || host === localHost) return { state: HostOK, error: "" };
    return this.links.get(host) || { state: HostConnecting, error: "" };
  }

  // state is a chat's watched state, {} before any.
  state(key) {
    const v = this.views.get(key);
    return (v && v.state) || {};
  }

  terminal(key) {
    const v = this.views.get(key);
    return (v && v.terminal) || {};
  }

  // status is a chat's status by name: the watched state's when there is
  // one (it is live), else the list's.
  status(key) {
    const st = this.views.get(key);
    if (st && st.state && typeof st.state.Status === "number") {
      return statusNames[st.state.Status] || "unknown";
    }
    const c = this.chats.get(key);
    return (c && c.status) || "stopped";
  }

  // harness is the harness of that name on host.
  harness(name, host = localHost) {
    return (this.configOf(host).harnesses || []).find((x) => x && x.name === name) || null;
  }

  // transport is "acp" or "pty": the harness table's of the chat's host,
  // else what the running harness said.
  transport(key) {
    const c = this.chats.get(key);
    const h = c && this.harness(c.harness, c.host);
    if (h && h.transport) {
      return h.transport;
    }
    return this.state(key).Transport || "pty";
  }

  // groups are the chats by host, as the TUI's sidebar heads them: this
  // machine first, then the configured hosts in order (each shown even
  // with no chat, to say how its link stands): [{host, chats, link}],
  // each list in its server's order.
  groups() {
    const byHost = new Map(this.hosts().map((host) => [host, []]));
    for (const c of this.chats.values()) {
      const host = c.host || localHost;
      if (!byHost.has(host)) {
        byHost.set(host, []);
      }
      byHost.get(host).push(c);
    }
    return [...byHost].map(([host, chats]) => ({ host, chats, link: this.link(host) }));
  }

  // asking counts the chats waiting for their user's answer.
  asking() {
    let n = 0;
    for (const key of this.chats.keys()) {
      if (this.status(key) === "asking") {
        n++;
      }
    }
    return n;
  }
}
