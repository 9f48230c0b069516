// The bytes a terminal sends for a key, as xterm does (and as the TUI's
// ptykeys.go encodes Bubble Tea's keys): printable text as itself (UTF-8
// on the wire), Enter CR, Backspace DEL, control letters as control bytes,
// Alt as an ESC prefix, the cursor keys as CSI or, in application cursor
// mode, SS3, and the editing and function keys as CSI n ~ or SS3.

// cursorFinals are the final bytes of the cursor and home/end keys.
const cursorFinals = {
  ArrowUp: "A", ArrowDown: "B", ArrowRight: "C", ArrowLeft: "D", Home: "H", End: "F",
};

// tildeKeys are sent as CSI n ~.
const tildeKeys = {
  Insert: 2, Delete: 3, PageUp: 5, PageDown: 6,
  F5: 15, F6: 17, F7: 18, F8: 19, F9: 20, F10: 21, F11: 23, F12: 24,
};

// ss3Keys are F1-F4.
const ss3Keys = { F1: "P", F2: "Q", F3: "R", F4: "S" };

// modifier is xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl.
function modifier(ev) {
  return 1 + (ev.shiftKey ? 1 : 0) + (ev.altKey ? 2 : 0) + (ev.ctrlKey ? 4 : 0);
}

// controlByte is the byte Ctrl+key sends, or "" when there is none.
function controlByte(key) {
  if (key.length !== 1) {
    return "";
  }
  const c = key.toUpperCase();
  if (c >= "A" && c <= "Z") {
    return String.fromCharCode(c.charCodeAt(0) - 64);
  }
  switch (key) {
    case " ": case "@": case "2": return "\x00";
    case "[": case "3": return "\x1b";
    case "\\": case "4": return "\x1c";
    case "]": case "5": return "\x1d";
    case "^": case "6": return "\x1e";
    case "_": case "-": case "7": return "\x1f";
    case "?": case "8": return "\x7f";
  }
  return "";
}

// keyBytes is what the key event sends the harness, as a string of
// characters (encoded as UTF-8 when sent), or null when the page should
// leave the key to the browser (Cmd/Meta shortcuts, a paste shortcut, a
// lone modifier).
export function keyBytes(ev, modes = {}) {
  const key = ev.key;
  if (ev.metaKey || ev.isComposing || key === "Unidentified" || key === "Dead") {
    return null;
  }
  if (key === "Shift" || key === "Control" || key === "Alt" || key === "Meta" || key === "CapsLock" || key === "AltGraph") {
    return null;
  }
  // Ctrl+Shift+C/V copy and paste in a terminal window; here too.
  if (ev.ctrlKey && ev.shiftKey && (key === "C" || key === "V" || key === "c" || key === "v")) {
    return null;
  }
  const esc = ev.altKey ? "\x1b" : "";
  const mod = modifier(ev);
  if (key in cursorFinals) {
    const f = cursorFinals[key];
    if (mod > 1) {
      return "\x1b[1;" + mod + f;
    }
    return (modes.AppCursor ? "\x1bO" : "\x1b[") + f;
  }
  if (key in tildeKeys) {
    // Shift+PgUp/PgDn scroll the page's view back (terminal.js), not here.
    return "\x1b[" + tildeKeys[key] + (mod > 1 ? ";" + mod : "") + "~";
  }
  if (key in ss3Keys) {
    return mod > 1 ? "\x1b[1;" + mod + ss3Keys[key] : "\x1bO" + ss3Keys[key];
  }
  switch (key) {
    case "Enter":
      return esc + "\r";
    case "Backspace":
      return esc + (ev.ctrlKey ? "\x08" : "\x7f");
    case "Tab":
      return ev.shiftKey ? "\x1b[Z" : esc + "\t";
    case "Escape":
      return esc + "\x1b";
  }
  if (ev.ctrlKey && !ev.altKey) {
    const b = controlByte(key);
    return b === "" ? null : b;
  }
  if (ev.ctrlKey && ev.altKey) {
    // AltGr on some layouts arrives as Ctrl+Alt with the character it
    // makes: that character is the key's text.
    const b = controlByte(key);
    if (b !== "" && /^[a-zA-Z]$/.test(key)) {
      return "\x1b" + b;
    }
    return key.length >= 1 && [...key].length === 1 ? key : null;
  }
  if ([...key].length === 1) {
    return esc + key;
  }
  return null;
}

// pasteBytes is pasted text as a terminal sends it: line ends as CR, and
// inside bracketed-paste markers when the harness asked for them (?2004),
// so it is taken as text and not as typed commands.
export function pasteBytes(text, modes = {}) {
  const t = text.replace(/\r\n|\n/g, "\r");
  return modes.BracketedPaste ? "\x1b[200~" + t + "\x1b[201~" : t;
}

// wheelBytes is a mouse-wheel report at the 0-based cell (col, row) for a
// harness that tracks the mouse, or null when it does not.
export function wheelBytes(up, col, row, modes = {}) {
  if (!modes.MouseTracking) {
    return null;
  }
  const button = up ? 64 : 65;
  if (modes.MouseSGR) {
    return `\x1b[<${button};${col + 1};${row + 1}M`;
  }
  if (col + 33 > 255 || row + 33 > 255) {
    return null;
  }
  // Raw bytes: a position past 94 is a byte over 0x7f, which must not be
  // UTF-8 encoded.
  return new Uint8Array([0x1b, 0x5b, 0x4d, 32 + button, 33 + col, 33 + row]);
}

// base64 is data in base64, as _acpmux/write's data ([]byte on the
// wire): a string as its UTF-8 bytes, a Uint8Array as it is.
export function base64(data) {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}
