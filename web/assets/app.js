// The page's first form: it signs in with the token the address carried in
// its fragment (which a browser never sends to a server), opens the
// WebSocket on /acp, and lists the chats' names. Everything it shows is
// text it was given, set with textContent, never markup.

const HINT = "Run `acpmux-tui web` in a terminal to get this page's address with its token.";

const status = document.getElementById("status");
const list = document.getElementById("chats");

function say(text) {
  status.textContent = text;
}

// takeToken reads #token=… from the address, and removes it from the
// address bar and the history before anything else happens: the entry is
// replaced, not added to.
function takeToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (token === null) {
    return null;
  }
  history.replaceState(null, "", location.pathname + location.search);
  return token;
}

// signIn trades the token for the session cookie (HttpOnly: this script
// never sees it again).
async function signIn(token) {
  try {
    const r = await fetch("/session", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
    });
    return r.ok;
  } catch {
    return false;
  }
}

// showChats lists the chats' names, each item carrying its chat's id.
function showChats(chats) {
  list.replaceChildren();
  for (const chat of chats) {
    const li = document.createElement("li");
    li.dataset.chatId = String(chat.id);
    li.textContent = String(chat.name || chat.id);
    list.append(li);
  }
  say(chats.length === 0 ? "No chats yet." : "");
}

// connect opens /acp on this page's own origin (the cookie goes with it),
// says initialize, then asks for the list.
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(scheme + "//" + location.host + "/acp");
  let opened = false;
  let nextId = 1;
  const waiting = new Map();

  function call(method, params, then) {
    const id = nextId++;
    waiting.set(id, then);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  }

  ws.addEventListener("open", () => {
    opened = true;
    call("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    }, () => {
      call("_acpmux/list", {}, (result) => showChats((result && result.chats) || []));
    });
  });

  ws.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    const then = waiting.get(msg.id);
    if (then === undefined) {
      return;
    }
    waiting.delete(msg.id);
    if (msg.error) {
      say("The server answered: " + String(msg.error.message));
      return;
    }
    then(msg.result);
  });

  ws.addEventListener("close", () => {
    say(opened ? "The connection to the server closed. Reload the page to connect again." : HINT);
  });
}

async function start() {
  const token = takeToken();
  if (token !== null && !(await signIn(token))) {
    say(HINT);
    return;
  }
  connect();
}

start();
