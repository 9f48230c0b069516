// Reading the server's screen lines, which come as the TUI draws them
// (screen.Render): each line exactly the terminal's width in cells, with
// SGR sequences (ESC [ … m) where the style changes. A line is turned into
// cells, each a character with its style, and the cells into spans: the
// 16 colours and the attributes as classes of app.css, a 256-colour or
// truecolor value through the span's style from script (which the CSP
// allows; a style attribute in markup it would not).

import { h } from "./dom.js";

const ESC = "\x1b";
const combining = /^\p{M}$/u;

// Attribute bits, as screen.Attr.
const BOLD = 1, FAINT = 2, ITALIC = 4, UNDERLINE = 8, BLINK = 16, REVERSE = 32, CONCEAL = 64, STRIKE = 128;

// A style: fg and bg are null (the default), 0..255, or "#rrggbb".
const plain = Object.freeze({ fg: null, bg: null, attrs: 0 });

// wideRanges are the code points a terminal draws two cells wide (East
// Asian wide and fullwidth, and the emoji blocks), enough to keep columns
// where the server has them.
const wideRanges = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
  [0xa000, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60],
  [0xffe0, 0xffe6], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x3fffd],
];

export function isWide(cp) {
  for (const [lo, hi] of wideRanges) {
    if (cp < lo) {
      return false;
    }
    if (cp <= hi) {
      return true;
    }
  }
  return false;
}

// applySGR returns the style after the parameters of one SGR sequence.
function applySGR(st, params) {
  let { fg, bg, attrs } = st;
  const p = params === "" ? [0] : params.split(";").map((x) => (x === "" ? 0 : parseInt(x, 10)));
  for (let i = 0; i < p.length; i++) {
    const n = p[i];
    if (n === 0) {
      fg = null; bg = null; attrs = 0;
    } else if (n === 1) attrs |= BOLD;
    else if (n === 2) attrs |= FAINT;
    else if (n === 3) attrs |= ITALIC;
    else if (n === 4 || n === 21) attrs |= UNDERLINE;
    else if (n === 5 || n === 6) attrs |= BLINK;
    else if (n === 7) attrs |= REVERSE;
    else if (n === 8) attrs |= CONCEAL;
    else if (n === 9) attrs |= STRIKE;
    else if (n === 22) attrs &= ~(BOLD | FAINT);
    else if (n === 23) attrs &= ~ITALIC;
    else if (n === 24) attrs &= ~UNDERLINE;
    else if (n === 25) attrs &= ~BLINK;
    else if (n === 27) attrs &= ~REVERSE;
    else if (n === 28) attrs &= ~CONCEAL;
    else if (n === 29) attrs &= ~STRIKE;
    else if (n >= 30 && n <= 37) fg = n - 30;
    else if (n === 39) fg = null;
    else if (n >= 40 && n <= 47) bg = n - 40;
    else if (n === 49) bg = null;
    else if (n >= 90 && n <= 97) fg = n - 90 + 8;
    else if (n >= 100 && n <= 107) bg = n - 100 + 8;
    else if (n === 38 || n === 48) {
      // 38;5;n or 38;2;r;g;b (and 48 for the background).
      let c = null;
      if (p[i + 1] === 5 && i + 2 < p.length) {
        c = p[i + 2] & 255;
        i += 2;
      } else if (p[i + 1] === 2 && i + 4 < p.length) {
        c = "#" + [p[i + 2], p[i + 3], p[i + 4]].map((v) => (v & 255).toString(16).padStart(2, "0")).join("");
        i += 4;
      }
      if (n === 38) fg = c;
      else bg = c;
    }
  }
  if (fg === st.fg && bg === st.bg && attrs === st.attrs) {
    return st;
  }
  return Object.freeze({ fg, bg, attrs });
}

// parseLine turns a rendered line into cells: {ch, wide, st}. A wide
// character is one cell marked wide (it covers two columns); a combining
// mark joins the cell before it.
export function parseLine(line) {
  const cells = [];
  let st = plain;
  for (let i = 0; i < line.length;) {
    if (line[i] === ESC) {
      if (line[i + 1] === "[") {
        let j = i + 2;
        while (j < line.length && !(line.charCodeAt(j) >= 0x40 && line.charCodeAt(j) <= 0x7e)) {
          j++;
        }
        if (line[j] === "m") {
          st = applySGR(st, line.slice(i + 2, j));
        }
        i = j + 1;
      } else {
        i += 2; // a lone escape: nothing the server sends
      }
      continue;
    }
    const cp = line.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (cells.length > 0 && combining.test(ch)) {
      cells[cells.length - 1].ch += ch;
      continue;
    }
    cells.push({ ch, wide: isWide(cp), st });
  }
  return cells;
}

// colour256 is the CSS colour of xterm's palette entry n (16..255).
function colour256(n) {
  if (n < 232) {
    const levels = [0, 95, 135, 175, 215, 255];
    n -= 16;
    const r = levels[Math.floor(n / 36)], g = levels[Math.floor(n / 6) % 6], b = levels[n % 6];
    return `rgb(${r}, ${g}, ${b})`;
  }
  const v = 8 + 10 * (n - 232);
  return `rgb(${v}, ${v}, ${v})`;
}

// paint gives a span the classes and colours of a style.
function paint(span, st, cursor) {
  let { fg, bg } = st;
  const cls = [];
  if (st.attrs & REVERSE) {
    [fg, bg] = [bg, fg];
    if (fg === null) cls.push("fdef-bg");
    if (bg === null) cls.push("gdef-fg");
  }
  if (cursor) cls.push("cursor");
  if (st.attrs & BOLD) cls.push("b");
  if (st.attrs & FAINT) cls.push("faint");
  if (st.attrs & ITALIC) cls.push("i");
  if (st.attrs & UNDERLINE) cls.push("u");
  if (st.attrs & STRIKE) cls.push("s");
  if (st.attrs & CONCEAL) cls.push("hide");
  if (st.attrs & BLINK) cls.push("blink");
  if (typeof fg === "number" && fg < 16) cls.push("f" + fg);
  else if (typeof fg === "number") span.style.color = colour256(fg);
  else if (typeof fg === "string") span.style.color = fg;
  if (typeof bg === "number" && bg < 16) cls.push("g" + bg);
  else if (typeof bg === "number") span.style.backgroundColor = colour256(bg);
  else if (typeof bg === "string") span.style.backgroundColor = bg;
  if (cls.length > 0) span.className = cls.join(" ");
}

// renderCells makes the spans of a line's cells: runs of one style share
// a span; a wide character and the cursor's cell get their own.
// cursorCol is the cursor's column, or -1 for none on this line.
export function renderCells(cells, cursorCol) {
  const out = [];
  let run = "", runSt = null;
  const flush = () => {
    if (run !== "") {
      const span = h("span", { text: run });
      paint(span, runSt, false);
      out.push(span);
    }
    run = "";
  };
  let col = 0;
  for (const c of cells) {
    const atCursor = cursorCol >= col && cursorCol < col + (c.wide ? 2 : 1);
    if (c.wide || atCursor) {
      flush();
      const span = h("span", { text: c.ch });
      paint(span, c.st, atCursor);
      if (c.wide) span.classList.add("wide");
      out.push(span);
    } else {
      if (c.st !== runSt) {
        flush();
        runSt = c.st;
      }
      run += c.ch;
    }
    col += c.wide ? 2 : 1;
  }
  flush();
  if (cursorCol >= col) {
    // The cursor past the line's last cell (a short line): pad to it.
    if (cursorCol > col) out.push(h("span", { text: " ".repeat(cursorCol - col) }));
    const span = h("span", { class: "cursor", text: " " });
    out.push(span);
  }
  return out;
}

// plainText is a line without its SGR sequences.
export function plainText(line) {
  return parseLine(line).map((c) => c.ch).join("");
}
