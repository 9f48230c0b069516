// Small helpers to build the page out of nodes. Everything a chat, an agent
// or the server sends is text: it goes in through textContent (or a text
// node), never as markup, so a chat named <img onerror=…> shows as those
// characters and runs nothing.

// h makes an element: h("button", {class: "x", role: "send", on: {click}},
// "Send"). Props: class (string), text, role (data-role), data (object of
// data-* values), attrs (attributes, set with setAttribute), on (events),
// and any other key is set as a property (type, value, disabled, hidden…).
// Children are nodes or strings; a string becomes a text node.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) {
      continue;
    }
    switch (k) {
      case "class":
        el.className = v;
        break;
      case "text":
        el.textContent = String(v);
        break;
      case "role":
        el.dataset.role = v;
        break;
      case "data":
        for (const [dk, dv] of Object.entries(v)) {
          el.dataset[dk] = String(dv);
        }
        break;
      case "attrs":
        for (const [ak, av] of Object.entries(v)) {
          el.setAttribute(ak, String(av));
        }
        break;
      case "on":
        for (const [ev, fn] of Object.entries(v)) {
          el.addEventListener(ev, fn);
        }
        break;
      default:
        el[k] = v;
    }
  }
  append(el, children);
  return el;
}

// append adds children (nodes, strings, nested arrays; null is skipped).
export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    if (Array.isArray(c)) {
      append(el, c);
    } else if (c instanceof Node) {
      el.append(c);
    } else {
      el.append(document.createTextNode(String(c)));
    }
  }
  return el;
}

// fill replaces an element's children.
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// text is String(v) for what may be missing: "" for null and undefined.
export function text(v) {
  return v === null || v === undefined ? "" : String(v);
}

// button is a <button type=button>: a form never submits by accident.
export function button(label, props = {}) {
  return h("button", { type: "button", ...props }, label);
}

// errorText says what an RPC refusal means, with each refused entry's
// reason (a folder validator's -32602 names them in data.entries), so it
// can be shown where the user made the call.
export function errorText(err) {
  if (!err) {
    return "";
  }
  let msg = text(err.message || err);
  const entries = err.data && Array.isArray(err.data.entries) ? err.data.entries : [];
  const lines = [];
  for (const e of entries) {
    if (!e) {
      continue;
    }
    const what = e.field === "additionalFiles" ? "file" : "folder";
    const line = what + " " + text(e.path) + ": " + text(e.reason);
    if (!msg.includes(text(e.path)) || !msg.includes(text(e.reason))) {
      lines.push(line);
    }
  }
  if (lines.length > 0) {
    msg += "\n" + lines.join("\n");
  }
  return msg;
}

// debounce calls fn once calls have stopped for ms.
export function debounce(fn, ms) {
  let t = 0;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
