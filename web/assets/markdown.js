// An agent's markdown, drawn as the page's own nodes. The renderer builds
// every element with createElement and puts the agent's words in with
// textContent: no string of it is ever read as HTML, so a <script> or an
// <img onerror> in a message shows as those characters. A link is data: its
// text and its address are shown, and no element with an href is made (a
// click on an agent's link goes nowhere). An image is its alt text and its
// address, never fetched. Headings, paragraphs, emphasis, strike, code
// spans, lists (nested, with task marks), block quotes, tables, fenced code
// blocks (with a small keyword highlighter) and thematic breaks are drawn;
// raw HTML in the markdown is text.
//
// The renderer's work is bounded: the caller gives it at most a message's
// first maxRendered characters, inline markup searches each closer once,
// and nesting stops at maxDepth (deeper markup shows as text).

import { h } from "./dom.js";

// maxRendered is how much of a message the page lays out (UTF-16 units);
// the rest is counted and said, never drawn.
export const maxRendered = 64 * 1024;

// maxDepth bounds the nesting of block quotes, lists and inline markup.
const maxDepth = 24;

// maxHighlight is the largest code block the highlighter colours; a bigger
// one is drawn plain.
const maxHighlight = 32 * 1024;

// unsafe matches what cleanText removes: C0 controls but tab and newline,
// DEL, C1 controls, and the bidi controls that reorder what is shown.
const unsafe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// escapes matches the escape sequences a terminal would act on: OSC (to
// BEL or ST, or to the end when cut), DCS, SOS, PM and APC strings, CSI,
// and any other two-character ESC sequence; then the 8-bit forms of CSI
// and OSC.
const escapes = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[ -/]*[0-~]?|\x9b[0-?]*[ -/]*[@-~]?|\x9d[^\x07\x1b\x9c]*[\x07\x9c]?/g;

const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// cleanText is s with escape sequences, control characters (but newline
// and tab) and bidi controls removed; "\r\n" becomes "\n". The server has
// cleaned what it sends already: the page does it again where text enters
// it, once, so that nothing it draws depends on that.
export function cleanText(s) {
  s = s === null || s === undefined ? "" : String(s);
  if (!unsafe.test(s)) {
    return s;
  }
  return s.replace(/\r\n/g, "\n").replace(escapes, "").replace(controls, "");
}

// cleanLine is cleanText on one line: newlines and tabs become spaces.
export function cleanLine(s) {
  return cleanText(s).replace(/[\n\t]/g, " ");
}

// renderMarkdown returns a <div class="md"> drawing src (already clean).
export function renderMarkdown(src) {
  const root = h("div", { class: "md" });
  blocks(root, String(src).split("\n"), 0);
  return root;
}

// markdownNodes returns the top-level nodes that draw src's blocks.
export function markdownNodes(src) {
  return [...renderMarkdown(src).childNodes];
}

// stableEnd returns where the part of src (from from on) that no text
// appended later can change ends: the start of the last line that begins
// a top-level block after a blank line, outside a code fence and not a
// list's next item (from itself when there is none). A streaming message
// draws the part before it once, and only the rest again per chunk.
export function stableEnd(src, from) {
  let end = from;
  let fence = "";
  let blank = false;
  let pos = from;
  for (;;) {
    const nl = src.indexOf("\n", pos);
    if (nl < 0) return end; // the last line may still grow
    const line = src.slice(pos, nl);
    if (fence) {
      const t = line.trim();
      if (t[0] === fence[0] && t.startsWith(fence) && /^([`~])\1*$/.test(t)) fence = "";
      blank = false;
    } else {
      const empty = line.trim() === "";
      if (blank && !empty && indentOf(line) === 0 && !itemRe.test(line)) end = pos;
      const m = fenceRe.exec(line);
      if (m) fence = m[1];
      blank = empty;
    }
    pos = nl + 1;
  }
}

const fenceRe = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const headingRe = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const ruleRe = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const quoteRe = /^ {0,3}> ?/;
const itemRe = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const tableDelimRe = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const setextRe = /^ {0,3}(=+|-+)[ \t]*$/;

function indentOf(line) {
  let n = 0;
  for (const c of line) {
    if (c === " ") n++;
    else if (c === "\t") n += 4 - (n % 4);
    else break;
  }
  return n;
}

// dedent takes n columns of indentation off line (as much as it has).
function dedent(line, n) {
  let i = 0;
  let col = 0;
  while (i < line.length && col < n && (line[i] === " " || line[i] === "\t")) {
    col += line[i] === "\t" ? 4 - (col % 4) : 1;
    i++;
  }
  return line.slice(i);
}

// startsBlock says whether line begins a block other than a paragraph
// (which ends the paragraph before it).
function startsBlock(line) {
  return fenceRe.test(line) || headingRe.test(line) || ruleRe.test(line) || quoteRe.test(line) || itemRe.test(line);
}

// blocks appends to parent the blocks of lines.
function blocks(parent, lines, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    if (depth >= maxDepth) {
      parent.append(h("p", { text: lines.slice(i).join("\n") }));
      return;
    }
    let m;
    // A fenced code block runs to its closing fence, or to the end (a
    // message still streaming).
    if ((m = fenceRe.exec(line))) {
      const fence = m[1];
      const lang = m[2].toLowerCase().replace(/[^a-z0-9_+-]/g, "");
      const body = [];
      i++;
      while (i < lines.length) {
        const t = lines[i].trim();
        if (t.startsWith(fence[0].repeat(fence.length)) && /^([`~])\1*$/.test(t) && t[0] === fence[0]) {
          i++;
          break;
        }
        body.push(lines[i]);
        i++;
      }
      parent.append(codeBlock(body.join("\n"), lang));
      continue;
    }
    if ((m = headingRe.exec(line))) {
      parent.append(inline(h("h" + m[1].length), m[2] || "", depth));
      i++;
      continue;
    }
    if (ruleRe.test(line)) {
      parent.append(h("hr"));
      i++;
      continue;
    }
    if (quoteRe.test(line)) {
      const inner = [];
      while (i < lines.length && quoteRe.test(lines[i])) {
        inner.push(lines[i].replace(quoteRe, ""));
        i++;
      }
      const q = h("blockquote");
      blocks(q, inner, depth + 1);
      parent.append(q);
      continue;
    }
    if (itemRe.test(line)) {
      i = list(parent, lines, i, depth);
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && lines[i + 1].includes("-") && tableDelimRe.test(lines[i + 1])) {
      i = table(parent, lines, i, depth);
      continue;
    }
    // A paragraph: lines up to a blank one or one that starts a block; a
    // line of === or --- under it makes it a heading.
    const para = [line];
    i++;
    let level = 0;
    while (i < lines.length && lines[i].trim() !== "") {
      const s = setextRe.exec(lines[i]);
      if (s) {
        level = s[1][0] === "=" ? 1 : 2;
        i++;
        break;
      }
      if (startsBlock(lines[i])) break;
      para.push(lines[i]);
      i++;
    }
    parent.append(inlineLines(h(level ? "h" + level : "p"), para, depth));
  }
}

// list draws the list that starts at lines[i] and returns the index after
// it. An item holds the lines indented under its text (a nested list, a
// second paragraph); a blank line ends the list unless an indented line
// or another item follows.
function list(parent, lines, i, depth) {
  const first = itemRe.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const el = h(ordered ? "ol" : "ul");
  if (ordered) {
    const n = parseInt(first[2], 10);
    if (n !== 1) el.start = n;
  }
  while (i < lines.length) {
    const m = itemRe.exec(lines[i]);
    if (!m || /\d/.test(m[2]) !== ordered || indentOf(m[1]) > indentOf(first[1]) + 1) break;
    // The item's text starts at this column: lines indented to it are
    // the item's.
    const width = m[1].length + m[2].length + Math.max(1, Math.min(4, m[3].replace(/\t/g, "    ").length));
    const body = [lines[i].slice(m[0].length)];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (l.trim() === "") {
        // A blank line: the item goes on only when the next line is
        // indented under it.
        if (i + 1 < lines.length && lines[i + 1].trim() !== "" && indentOf(lines[i + 1]) >= width) {
          body.push("");
          i++;
          continue;
        }
        break;
      }
      if (indentOf(l) >= width) {
        body.push(dedent(l, width));
      } else if (!startsBlock(l)) {
        body.push(l.trim()); // a lazy continuation of the item's text
      } else {
        break;
      }
      i++;
    }
    el.append(listItem(body, depth));
    // A blank line between two items keeps the list.
    if (i < lines.length && lines[i].trim() === "" && i + 1 < lines.length && itemRe.test(lines[i + 1])) {
      const next = itemRe.exec(lines[i + 1]);
      if (/\d/.test(next[2]) === ordered) i++;
    }
  }
  parent.append(el);
  return i;
}

function listItem(body, depth) {
  const li = h("li");
  const task = /^\[([ xX])\][ \t]+/.exec(body[0]);
  if (task) {
    body[0] = body[0].slice(task[0].length);
    const done = task[1] !== " ";
    li.className = "task " + (done ? "task-done" : "task-open");
    li.append(h("span", { class: "task-mark", text: done ? "☑ " : "☐ " }));
  }
  // One paragraph is drawn without its <p>, as a tight list is.
  const rest = body.slice(1).findIndex((l) => l.trim() === "" || startsBlock(l));
  if (rest < 0) {
    inlineLines(li, body, depth + 1);
  } else {
    inlineLines(li, body.slice(0, rest + 1), depth + 1);
    blocks(li, body.slice(rest + 1), depth + 1);
  }
  return li;
}

// cells splits a table row at its unescaped pipes.
function cells(line) {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  const out = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && s[i + 1] === "|") {
      cur += "|";
      i++;
    } else if (s[i] === "|") {
      out.push(cur.trim());
      cur = "";
    } else {
      cur += s[i];
    }
  }
  out.push(cur.trim());
  return out;
}

function table(parent, lines, i, depth) {
  const head = cells(lines[i]);
  const aligns = cells(lines[i + 1]).map((c) => (c.endsWith(":") ? (c.startsWith(":") ? "center" : "right") : c.startsWith(":") ? "left" : ""));
  const row = (tag, values) => h("tr", {}, head.map((_, k) => {
    const cell = inline(h(tag), values[k] || "", depth + 1);
    if (aligns[k]) cell.className = "align-" + aligns[k];
    return cell;
  }));
  const tbody = h("tbody");
  i += 2;
  while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|") && !startsBlock(lines[i])) {
    tbody.append(row("td", cells(lines[i])));
    i++;
  }
  parent.append(h("div", { class: "md-table" }, h("table", {}, h("thead", {}, row("th", head)), tbody)));
  return i;
}

// inlineLines draws a paragraph's lines into el: a soft break is a space
// (a newline the style sheet folds), two trailing spaces or a backslash
// make a hard one.
function inlineLines(el, lines, depth) {
  lines.forEach((l, k) => {
    let hard = false;
    if (k < lines.length - 1) {
      if (/ {2,}$/.test(l)) {
        hard = true;
        l = l.replace(/ +$/, "");
      } else if (/\\$/.test(l)) {
        hard = true;
        l = l.slice(0, -1);
      }
    }
    inline(el, k === 0 ? l.replace(/^[ \t]+/, "") : l.trim(), depth);
    if (k < lines.length - 1) el.append(hard ? h("br") : "\n");
  });
  return el;
}

const punct = /[!-/:-@[-`{-~]/;

// inline appends the inline markup of s to el and returns el.
function inline(el, s, depth) {
  const p = new InlineParser(s, depth);
  p.run(el, 0, s.length);
  return el;
}

// InlineParser draws one span of inline markup. noCloser remembers, per
// delimiter, the first place after which none closes, so that a text full
// of unmatched stars is read once, not once per star.
class InlineParser {
  constructor(s, depth) {
    this.s = s;
    this.depth = depth;
    this.noCloser = new Map();
  }

  // closer finds the closing delim at or after from and before end, that
  // test accepts; -1 when there is none.
  closer(delim, from, end, test) {
    const key = delim;
    const known = this.noCloser.get(key);
    if (known !== undefined && from >= known) return -1;
    let at = from;
    for (;;) {
      at = this.s.indexOf(delim, at);
      if (at < 0 || at + delim.length > end) {
        if (end === this.s.length) this.noCloser.set(key, Math.min(from, known === undefined ? from : known));
        return -1;
      }
      if (test(at)) return at;
      at += 1;
    }
  }

  run(el, start, end, depth = this.depth) {
    const s = this.s;
    let buf = "";
    const flush = () => {
      if (buf) el.append(buf);
      buf = "";
    };
    let i = start;
    while (i < end) {
      const c = s[i];
      if (c === "\\" && i + 1 < end && punct.test(s[i + 1])) {
        buf += s[i + 1];
        i += 2;
        continue;
      }
      if (c === "`") {
        let n = 1;
        while (i + n < end && s[i + n] === "`") n++;
        const fence = "`".repeat(n);
        const close = this.closer(fence, i + n, end, (at) => s[at + n] !== "`" && s[at - 1] !== "`");
        if (close < 0) {
          buf += fence;
          i += n;
          continue;
        }
        flush();
        let code = s.slice(i + n, close).replace(/\n/g, " ");
        if (code.length > 2 && code[0] === " " && code[code.length - 1] === " " && code.trim() !== "") code = code.slice(1, -1);
        el.append(h("code", { text: code }));
        i = close + n;
        continue;
      }
      if (depth < maxDepth && (c === "[" || (c === "!" && s[i + 1] === "["))) {
        const link = this.link(i, end);
        if (link) {
          flush();
          el.append(this.linkElement(link, c === "!", depth));
          i = link.next;
          continue;
        }
      }
      if (c === "<") {
        // An autolink <https://…> or <mail@host> shows its address.
        const m = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>/.exec(s.slice(i, Math.min(end, i + 2050)));
        if (m) {
          flush();
          el.append(h("span", { class: "md-url", text: m[1] }));
          i += m[0].length;
          continue;
        }
      }
      if (depth < maxDepth && (c === "*" || c === "_" || c === "~")) {
        const done = this.emphasis(el, i, end, depth, flush);
        if (done > i) {
          i = done;
          continue;
        }
      }
      buf += c;
      i++;
    }
    flush();
  }

  // emphasis draws the ***, **, *, __, _ or ~~ span that opens at i, and
  // returns the index after it; i when it does not open one.
  emphasis(el, i, end, depth, flush) {
    const s = this.s;
    const c = s[i];
    let n = 1;
    while (i + n < end && s[i + n] === c) n++;
    if (c === "~" && n !== 2) return i;
    if (n > 3) return i;
    const after = s[i + n];
    if (after === undefined || /\s/.test(after)) return i;
    // An underscore inside a word (snake_case) is a letter.
    if (c === "_" && i > 0 && /[\p{L}\p{N}]/u.test(s[i - 1])) return i;
    const delim = c.repeat(n);
    const close = this.closer(delim, i + n + 1, end, (at) =>
      !/\s/.test(s[at - 1]) && s[at + n] !== c && s[at - 1] !== c &&
      (c !== "_" || at + n >= s.length || !/[\p{L}\p{N}]/u.test(s[at + n])));
    if (close < 0) return i;
    flush();
    let node;
    if (c === "~") node = h("del");
    else if (n === 1) node = h("em");
    else if (n === 2) node = h("strong");
    else node = h("strong", {}, h("em"));
    this.run(node.firstChild && node.firstChild.nodeType === 1 ? node.firstChild : node, i + n, close, depth + 1);
    el.append(node);
    return close + n;
  }

  // link reads [text](url "title") at i (after a "!" for an image):
  // {text: [start, end], url, next}, or null.
  link(i, end) {
    const s = this.s;
    const open = s[i] === "!" ? i + 1 : i;
    const first = s.indexOf("]", open);
    if (first < 0 || first >= end) return null;
    let level = 0;
    let j = open;
    const limit = Math.min(end, open + 1000);
    for (; j < limit; j++) {
      if (s[j] === "\\") {
        j++;
      } else if (s[j] === "[") {
        level++;
      } else if (s[j] === "]") {
        level--;
        if (level === 0) break;
      }
    }
    if (level !== 0 || j >= limit || s[j + 1] !== "(") return null;
    const m = /^\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+("[^"]*"|'[^']*'))?\s*\)/.exec(s.slice(j + 1, Math.min(end, j + 2100)));
    if (!m) return null;
    let url = m[1];
    if (url.startsWith("<")) url = url.slice(1, -1);
    return { text: [open + 1, j], url, next: j + 1 + m[0].length };
  }

  // linkElement shows a link as data: its text, then its address, both
  // text; no href, so nothing is followed.
  linkElement(link, image, depth) {
    const label = h("span", { class: image ? "md-image-alt" : "md-link-text" });
    this.run(label, link.text[0], link.text[1], depth + 1);
    const wrap = h("span", { class: image ? "md-image" : "md-link" });
    if (image) wrap.append(h("span", { class: "md-image-mark", text: "image: " }));
    wrap.append(label);
    if (link.url && link.url !== label.textContent) {
      wrap.append(h("span", { class: "md-url", text: link.url }));
    }
    return wrap;
  }
}

// codeBlock is a fenced block: <pre><code class="language-LANG">, its
// words coloured by kind when the language is one the highlighter knows.
export function codeBlock(body, lang) {
  const code = h("code", lang ? { class: "language-" + lang } : {});
  const words = keywords(lang);
  if (!words || body.length > maxHighlight) {
    code.textContent = body;
  } else {
    highlight(code, body, words, lang);
  }
  return h("pre", { class: "md-code", data: lang ? { lang } : {} }, code);
}

const kwSets = {
  c: "auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while include define",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false",
  js: "async await break case catch class const continue debugger default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield interface type",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self",
  rust: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  sh: "if then else elif fi for while until do done case esac in function return local export echo exit set unset cd",
  java: "abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements import instanceof int interface long new null package private protected public return short static super switch this throw throws true false try void while",
};
const langFamily = {
  c: "c", h: "c", cpp: "c", "c++": "c", cc: "c", go: "go", golang: "go", js: "js", javascript: "js", ts: "js",
  typescript: "js", jsx: "js", tsx: "js", mjs: "js", py: "py", python: "py", rs: "rust", rust: "rust",
  sh: "sh", bash: "sh", shell: "sh", zsh: "sh", console: "sh", java: "java", kotlin: "java", kt: "java", cs: "java", csharp: "java",
};
const kwCache = new Map();

function keywords(lang) {
  const fam = langFamily[lang];
  if (!fam) return null;
  if (!kwCache.has(fam)) kwCache.set(fam, new Set(kwSets[fam].split(" ")));
  return kwCache.get(fam);
}

// highlight colours code's comments, strings, numbers and keywords, each
// a <span> of text; everything else is plain text.
function highlight(code, body, words, lang) {
  const hash = lang === "sh" || langFamily[lang] === "sh" || langFamily[lang] === "py";
  const slash = !hash || langFamily[lang] === "c";
  const re = new RegExp([
    slash ? "\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?(?:\\*\\/|$)" : null,
    hash ? "#[^\\n]*" : null,
    '"(?:[^"\\\\\\n]|\\\\.)*"?',
    "'(?:[^'\\\\\\n]|\\\\.)*'?",
    langFamily[lang] === "js" || langFamily[lang] === "go" ? "`[^`]*`?" : null,
    "\\b\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?\\b|\\b0[xX][0-9a-fA-F_]+\\b",
    "[A-Za-z_][A-Za-z0-9_]*",
  ].filter(Boolean).join("|"), "g");
  let last = 0;
  let m;
  while ((m = re.exec(body))) {
    const t = m[0];
    if (t === "") {
      re.lastIndex++;
      continue;
    }
    let cls = "";
    const c = t[0];
    if ((c === "/" && (t[1] === "/" || t[1] === "*")) || (c === "#" && hash)) cls = "tok-comment";
    else if (c === '"' || c === "'" || c === "`") cls = "tok-string";
    else if (c >= "0" && c <= "9") cls = "tok-number";
    else if (words.has(t)) cls = "tok-keyword";
    if (!cls) continue;
    if (m.index > last) code.append(body.slice(last, m.index));
    code.append(h("span", { class: cls, text: t }));
    last = m.index + t.length;
  }
  if (last < body.length) code.append(body.slice(last));
}
