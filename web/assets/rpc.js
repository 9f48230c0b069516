// The page's one connection to the server: JSON-RPC 2.0 over the WebSocket
// on /acp, one message per text frame. It numbers requests, matches the
// answers, hands notifications to whoever listens for their method, and
// when the socket closes (the server restarted, the laptop slept) dials
// again with a growing wait, telling the page "Reconnecting…" meanwhile.
// Whoever needs something set up on each connection (watch, show,
// observe) registers it with onOpen: it runs again after every reconnect.
//
// The page never says ACP's initialize: a connection whose first call is
// initialize becomes an ACP client of the server's door, and the chats it
// observes would then stream as session/update, not _acpmux/entries.

// RPCError is a JSON-RPC error answer (or the connection's loss).
export class RPCError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

// Codes the page reads.
export const CodeInvalidParams = -32602;
export const CodeNotConnected = -1;

const backoffFirst = 250;
const backoffMost = 8000;

// Connection is the socket and its calls. status(text, kind) is told how
// the link stands: kind "ok", "connecting", "down" or "signed-out".
export class Connection {
  constructor({ url, status }) {
    this.url = url;
    this.status = status;
    this.ws = null;
    this.open = false;
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = new Map();
    this.openers = [];
    this.wait = backoffFirst;
    this.timer = 0;
    this.stopped = false;
    this.everOpen = false;
  }

  // on listens for a notification method's params.
  on(method, fn) {
    if (!this.handlers.has(method)) {
      this.handlers.set(method, []);
    }
    this.handlers.get(method).push(fn);
  }

  // onOpen runs fn (async) each time a connection opens, in order of
  // registration: the first time and after each reconnect.
  onOpen(fn) {
    this.openers.push(fn);
  }

  // call sends a request and resolves with its result, or rejects with an
  // RPCError. With no connection it rejects at once: keys and prompts are
  // not queued for a server that may come back in a different state.
  call(method, params = {}) {
    if (!this.open) {
      return Promise.reject(new RPCError(CodeNotConnected, "Not connected to the server: reconnecting…"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      try {
        this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      } catch (e) {
        this.pending.delete(id);
        reject(new RPCError(CodeNotConnected, "Could not send: " + String(e)));
      }
    });
  }

  start() {
    this.stopped = false;
    this.dial();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) {
      this.ws.close();
    }
  }

  dial() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(scheme + "//" + location.host + this.url);
    } catch (e) {
      this.retry();
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.addEventListener("open", async () => {
      opened = true;
      this.open = true;
      this.everOpen = true;
      this.wait = backoffFirst;
      this.status("Connected", "ok");
      for (const fn of this.openers) {
        try {
          await fn();
        } catch (e) {
          // One setup step failing (a chat gone) must not stop the rest.
          console.warn("acpmux: setup after connect:", e);
        }
        if (this.ws !== ws) {
          return; // closed meanwhile: the next open runs them again
        }
      }
    });
    ws.addEventListener("message", (ev) => this.receive(ev.data));
    ws.addEventListener("close", () => {
      if (this.ws !== ws) {
        return;
      }
      this.open = false;
      this.ws = null;
      for (const [, p] of this.pending) {
        p.reject(new RPCError(CodeNotConnected, "The connection to the server closed"));
      }
      this.pending.clear();
      if (this.stopped) {
        return;
      }
      if (opened) {
        this.retry();
        return;
      }
      // A WebSocket that never opened does not say why. Ask /acp over
      // plain HTTP: without a session cookie the guard answers 401
      // (signed out: a reconnect would never succeed); with one it
      // answers otherwise (403, 426): the server is there, try again.
      // A network error means no server yet: try again.
      this.probe().then((signedOut) => {
        if (signedOut) {
          this.stopped = true;
          this.status("", "signed-out");
        } else {
          this.retry();
        }
      });
    });
  }

  async probe() {
    try {
      const r = await fetch(this.url, { credentials: "same-origin", cache: "no-store" });
      return r.status === 401;
    } catch {
      return false;
    }
  }

  retry() {
    const wait = this.wait;
    this.wait = Math.min(this.wait * 2, backoffMost);
    this.status(this.everOpen ? "Reconnecting…" : "Connecting…", "connecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.dial(), wait);
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg === null || typeof msg !== "object") {
      return;
    }
    if (msg.method !== undefined && msg.id === undefined) {
      for (const fn of this.handlers.get(msg.method) || []) {
        try {
          fn(msg.params || {});
        } catch (e) {
          console.error("acpmux: handling", msg.method, e);
        }
      }
      return;
    }
    if (msg.method !== undefined) {
      // A request from the server: the page serves none. Say so, or the
      // server would wait for an answer.
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) {
      return;
    }
    this.pending.delete(msg.id);
    if (msg.error) {
      const e = msg.error;
      p.reject(new RPCError(e.code, String(e.message || "error"), e.data));
    } else {
      p.resolve(msg.result);
    }
  }
}
