// A tool call drawn as a card, as the TUI draws it: its kind's icon, its
// title, its status (a spinner while it runs), the places it works on
// (path:line), and what it produced: a diff as a unified diff with its
// path (added and removed lines coloured, a new file marked), a
// terminal's or a text's output in a block cut to its first lines with a
// "Show all" button. A finished card is folded to its head (a <details>),
// a failed one stays open; the user's own opening or folding is kept
// across its updates. A plan is a checklist. All of it is text the
// transcript cleaned as it came in.

import { h, text, button } from "./dom.js";

// shownLines is how many lines of an output or a diff a card shows
// before its "Show all" button.
export const shownLines = 20;

// maxDiffCells bounds the line diff's work (old lines × new lines, once
// the common head and tail are set aside); past it the card says the
// sizes only.
const maxDiffCells = 4 * 1024 * 1024;

// maxDiffLines bounds the lines of either side that a diff is computed
// on.
const maxDiffLines = 20000;

// contextLines is how many unchanged lines a hunk shows around a change.
const contextLines = 3;

const kindIcons = {
  read: "📄", edit: "✎", delete: "🗑", move: "⇄", search: "🔍", execute: "▶",
  think: "💭", fetch: "⇣", switch_mode: "⇆", other: "⚙",
};

const statusMarks = { pending: "…", in_progress: "", completed: "✓", failed: "✗" };

// toolCard builds a tool call entry's card. e.open (set when the user
// opens or folds it) wins over what its status would choose.
export function toolCard(e) {
  const st = text(e.toolStatus) || "pending";
  const stClass = st.replace(/[^a-z_]/g, "");
  const kind = text(e.toolKind);
  const locs = Array.isArray(e.locations) ? e.locations : [];
  const contents = Array.isArray(e.content) ? e.content : [];
  const status = h("span", { class: "tool-status status-" + stClass },
    st === "in_progress" ? h("span", { class: "spinner", attrs: { "aria-hidden": "true" } }) : null,
    (statusMarks[st] !== undefined && statusMarks[st] !== "" ? statusMarks[st] + " " : "") + st.replace(/_/g, " "));
  const head = h("summary", { class: "tool-head" },
    h("span", { class: "tool-icon", text: kindIcons[kind] || kindIcons.other, attrs: { "aria-hidden": "true", title: kind || "tool" } }),
    h("span", { class: "tool-title", text: text(e.title) || "tool call" }),
    kind ? h("span", { class: "tool-kind", text: kind }) : null,
    status);
  const card = h("details", { class: "entry tool status-" + stClass, data: kind ? { kind } : {} }, head);
  if (locs.length > 0) {
    card.append(h("ul", { class: "locations" }, locs.map((l) =>
      h("li", { class: "path", text: text(l && l.path) + (l && typeof l.line === "number" ? ":" + l.line : "") }))));
  }
  for (const c of contents) {
    const el = contentElement(c);
    if (el) card.append(el);
  }
  const hasBody = locs.length > 0 || contents.length > 0;
  card.open = hasBody && (typeof e.open === "boolean" ? e.open : st !== "completed");
  if (!hasBody) card.classList.add("empty-card");
  // A click on the head is the user's choice: kept across redraws.
  head.addEventListener("click", () => {
    e.open = !card.open;
  });
  return card;
}

// contentElement draws one piece of a tool call's content (proto's
// ToolContent: {type, text, path, oldText, newText, terminalId, size}).
export function contentElement(c) {
  if (!c || typeof c !== "object") return null;
  switch (c.type) {
    case "diff":
      return diffElement(c);
    case "terminal":
      return h("div", { class: "tool-terminal" },
        h("div", { class: "tool-sub", text: "terminal " + text(c.terminalId) }),
        c.text ? outputBlock(text(c.text), c.size) : h("div", { class: "dim", text: "no output yet" }));
    case "content":
      return c.text ? outputBlock(text(c.text), c.size) : null;
  }
  return null;
}

// outputBlock is text in a <pre> cut to its first shownLines lines, with
// a button that shows it all; size (when the server cut it) is said.
export function outputBlock(s, size) {
  const lines = s.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const pre = h("pre", { class: "tool-output" });
  const wrap = h("div", { class: "tool-output-box" }, pre);
  const cut = lines.length > shownLines;
  pre.textContent = cut ? lines.slice(0, shownLines).join("\n") : lines.join("\n");
  if (cut) {
    const more = button(`Show all ${lines.length} lines`, { class: "quiet show-all" });
    more.addEventListener("click", () => {
      pre.textContent = lines.join("\n");
      more.remove();
    });
    wrap.append(more);
  }
  if (size) wrap.append(h("div", { class: "dim size-note", text: `cut: the tool sent ${formatSize(size)}` }));
  return wrap;
}

// formatSize says a size in bytes as a person reads it.
export function formatSize(n) {
  if (n < 1024) return n + " bytes";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
  return (n / (1024 * 1024)).toFixed(1) + " MiB";
}

// diffElement draws a diff content as a unified diff under its path.
function diffElement(c) {
  const isNew = c.oldText === null || c.oldText === undefined;
  const d = c._diff || (c._diff = lineDiff(isNew ? [] : splitLines(text(c.oldText)), splitLines(text(c.newText))));
  const headParts = [h("span", { class: "path diff-path", text: text(c.path) })];
  if (isNew) headParts.push(h("span", { class: "badge new-file", text: "new file" }));
  const box = h("div", { class: "diff" + (isNew ? " diff-new" : "") }, h("div", { class: "diff-head" }, headParts));
  if (d.tooBig) {
    headParts[0].after(h("span", { class: "diff-stat", text: `${d.oldCount} → ${d.newCount} lines` }));
    box.append(h("div", { class: "dim", text: `Too large to compare here: ${d.oldCount} lines before, ${d.newCount} after.` }));
    return box;
  }
  box.firstChild.append(h("span", { class: "diff-stat" },
    h("span", { class: "diff-add-count", text: "+" + d.added }), " ", h("span", { class: "diff-del-count", text: "−" + d.removed })));
  const rows = unifiedRows(d.ops, isNew);
  const body = h("pre", { class: "diff-body" });
  const draw = (n) => {
    body.replaceChildren(...rows.slice(0, n).map(rowElement));
  };
  draw(Math.min(rows.length, shownLines * 2));
  box.append(body);
  if (rows.length > shownLines * 2) {
    const more = button(`Show all ${rows.length} lines`, { class: "quiet show-all" });
    more.addEventListener("click", () => {
      draw(rows.length);
      more.remove();
    });
    box.append(more);
  }
  if (c.size) box.append(h("div", { class: "dim size-note", text: `cut: the edit is ${formatSize(c.size)} in all` }));
  return box;
}

function rowElement(r) {
  return h("span", { class: "diff-line diff-" + r.kind, text: r.text });
}

function splitLines(s) {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

// lineDiff compares two files' lines: {ops: [{kind: "same"|"add"|"del",
// line}], added, removed}, or {tooBig, oldCount, newCount} past the
// bounds. The common head and tail are set aside first; the middle is an
// LCS table of directions (a byte a cell).
export function lineDiff(a, b) {
  if (a.length > maxDiffLines || b.length > maxDiffLines) {
    return { tooBig: true, oldCount: a.length, newCount: b.length };
  }
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const n = am.length;
  const m = bm.length;
  if (n * m > maxDiffCells) {
    return { tooBig: true, oldCount: a.length, newCount: b.length };
  }
  const ops = [];
  for (let i = 0; i < pre; i++) ops.push({ kind: "same", line: a[i] });
  if (n === 0 || m === 0) {
    for (const l of am) ops.push({ kind: "del", line: l });
    for (const l of bm) ops.push({ kind: "add", line: l });
  } else {
    // lengths[j] holds the LCS of am[i:] and bm[j:] for the row being
    // filled; dir records which way each cell's best went.
    const dir = new Uint8Array(n * m);
    let next = new Uint32Array(m + 1);
    let cur = new Uint32Array(m + 1);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        if (am[i] === bm[j]) {
          cur[j] = next[j + 1] + 1;
          dir[i * m + j] = 0;
        } else if (next[j] >= cur[j + 1]) {
          cur[j] = next[j];
          dir[i * m + j] = 1; // drop am[i]
        } else {
          cur[j] = cur[j + 1];
          dir[i * m + j] = 2; // take bm[j]
        }
      }
      [next, cur] = [cur, next];
      cur.fill(0);
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      const d = dir[i * m + j];
      if (d === 0) {
        ops.push({ kind: "same", line: am[i] });
        i++;
        j++;
      } else if (d === 1) {
        ops.push({ kind: "del", line: am[i] });
        i++;
      } else {
        ops.push({ kind: "add", line: bm[j] });
        j++;
      }
    }
    for (; i < n; i++) ops.push({ kind: "del", line: am[i] });
    for (; j < m; j++) ops.push({ kind: "add", line: bm[j] });
  }
  for (let i = a.length - suf; i < a.length; i++) ops.push({ kind: "same", line: a[i] });
  let added = 0;
  let removed = 0;
  for (const o of ops) {
    if (o.kind === "add") added++;
    else if (o.kind === "del") removed++;
  }
  return { ops, added, removed };
}

// unifiedRows lays ops out as a unified diff's lines: hunks of the
// changes with contextLines around them under "@@ -a,b +c,d @@" heads
// (a new file is one hunk of added lines).
function unifiedRows(ops, isNew) {
  const rows = [];
  const changed = [];
  ops.forEach((o, k) => {
    if (o.kind !== "same") changed.push(k);
  });
  if (changed.length === 0) {
    return [{ kind: "hunk", text: "no change" }];
  }
  // Group changes whose context overlaps.
  const hunks = [];
  for (const k of changed) {
    const last = hunks[hunks.length - 1];
    if (last && k - last.end <= 2 * contextLines + 1) last.end = k;
    else hunks.push({ start: k, end: k });
  }
  // oldAt[k] and newAt[k]: the line numbers (from 1) of op k's sides.
  const oldAt = new Uint32Array(ops.length + 1);
  const newAt = new Uint32Array(ops.length + 1);
  let o = 1;
  let nn = 1;
  ops.forEach((op, k) => {
    oldAt[k] = o;
    newAt[k] = nn;
    if (op.kind !== "add") o++;
    if (op.kind !== "del") nn++;
  });
  for (const hk of hunks) {
    const from = Math.max(0, hk.start - contextLines);
    const to = Math.min(ops.length - 1, hk.end + contextLines);
    let oldCount = 0;
    let newCount = 0;
    for (let k = from; k <= to; k++) {
      if (ops[k].kind !== "add") oldCount++;
      if (ops[k].kind !== "del") newCount++;
    }
    const oldStart = oldCount === 0 ? oldAt[from] - 1 : oldAt[from];
    if (!isNew || hunks.length > 1) {
      rows.push({ kind: "hunk", text: `@@ -${oldStart},${oldCount} +${newAt[from]},${newCount} @@` });
    }
    for (let k = from; k <= to; k++) {
      const op = ops[k];
      const mark = op.kind === "add" ? "+" : op.kind === "del" ? "-" : " ";
      rows.push({ kind: op.kind, text: mark + op.line });
    }
  }
  return rows;
}

// planList draws a plan's entries ({content, priority, status}) as a
// checklist: done, running and pending told apart by mark and colour, the
// priority said.
export function planList(items) {
  const done = items.filter((p) => p.status === "completed").length;
  return h("div", { class: "entry plan" },
    h("div", { class: "who" }, "Plan", h("span", { class: "plan-count", text: ` · ${done} of ${items.length} done` })),
    h("ul", { class: "plan-items" }, items.map((p) => {
      const status = ["completed", "in_progress", "pending"].includes(p.status) ? p.status : "pending";
      const mark = status === "completed" ? "✓" : status === "in_progress" ? "▸" : "○";
      const said = status === "completed" ? "done" : status === "in_progress" ? "running" : "pending";
      return h("li", { class: "plan-item plan-" + status, data: { status } },
        h("span", { class: "mark", text: mark, attrs: { title: said } }),
        h("span", { class: "plan-text", text: text(p.content) }),
        p.priority ? h("span", { class: "priority priority-" + p.priority.replace(/[^a-z]/g, ""), text: p.priority }) : null);
    })));
}
