// The composer's list of completions: the agent's slash commands after a
// / at the start of the prompt, the chat's files after an @. It is an
// ARIA listbox the prompt input controls (aria-controls,
// aria-activedescendant): the keyboard stays in the input, arrows move the
// active option, a click takes one. What it shows is text it was given.
//
// The commands are ranked here, as the TUI's composer ranks them: those
// whose names start with what is typed first, in the agent's order, then
// those it matches fuzzily, best first. The files come ranked from the
// server (_acpmux/files, internal/mention: the TUI's own ranking).

import { h, fill } from "./dom.js";
import { cleanLine } from "./markdown.js";

let lists = 0;

export class CompletionList {
  // onPick(item) takes an option; items are {label, desc}.
  constructor({ onPick }) {
    this.onPick = onPick;
    this.id = "completion-" + ++lists;
    this.items = [];
    this.active = 0;
    this.element = h("ul", { class: "completions composer-completions", role: "completions", hidden: true, id: this.id, attrs: { role: "listbox", "aria-label": "Completions" } });
  }

  get open() {
    return !this.element.hidden && this.items.length > 0;
  }

  // show draws items under a heading (and a note after them, when there
  // is one); none closes the list but for the note.
  show(heading, items, note = "") {
    const same = this.items.length === items.length && this.items.every((it, i) => it.label === items[i].label);
    this.items = items;
    if (!same) this.active = 0;
    this.active = Math.min(this.active, Math.max(items.length - 1, 0));
    if (items.length === 0 && note === "") {
      this.close();
      return;
    }
    fill(this.element,
      h("li", { class: "completion-head", text: heading, attrs: { role: "presentation" } }),
      items.map((it, i) => h("li", {
        class: "completion" + (i === this.active ? " active" : ""),
        id: this.id + "-" + i,
        role: "completion",
        attrs: { role: "option", "aria-selected": i === this.active ? "true" : "false" },
        // mousedown, not click: the input keeps the focus and the caret.
        on: { mousedown: (ev) => { ev.preventDefault(); this.onPick(it); } },
      },
      h("span", { class: "completion-label", text: it.label }),
      it.desc ? h("span", { class: "completion-desc", text: it.desc }) : null)),
      note ? h("li", { class: "completion-note", text: note, attrs: { role: "presentation" } }) : null);
    this.element.hidden = false;
    this.scroll();
  }

  close() {
    this.element.hidden = true;
    this.items = [];
    this.active = 0;
    this.element.replaceChildren();
  }

  // move moves the active option by delta, round the ends.
  move(delta) {
    const n = this.items.length;
    if (n === 0) return;
    this.active = (this.active + delta + n) % n;
    for (const [i, el] of [...this.element.querySelectorAll(".completion")].entries()) {
      el.classList.toggle("active", i === this.active);
      el.setAttribute("aria-selected", i === this.active ? "true" : "false");
    }
    this.scroll();
  }

  scroll() {
    const el = this.element.querySelector(".completion.active");
    if (el) el.scrollIntoView({ block: "nearest" });
  }

  // activeId is the active option's id, for aria-activedescendant ("" when
  // closed).
  activeId() {
    return this.open ? this.id + "-" + this.active : "";
  }

  picked() {
    return this.items[this.active];
  }
}

// cleanCommands are the agent's commands (a chat's state's Commands)
// cleaned again where they enter the page: names, descriptions and
// hints of one line, nameless ones dropped.
export function cleanCommands(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((c) => c && typeof c === "object" && cleanLine(c.name).trim() !== "").slice(0, 256)
    .map((c) => ({ name: cleanLine(c.name), description: cleanLine(c.description), hint: cleanLine(c.hint) }));
}

// rankCommands offers the commands whose names start with query first,
// in the agent's order, then those it matches fuzzily, best first.
export function rankCommands(cmds, query) {
  const q = query.toLowerCase();
  const head = [];
  const fuzzy = [];
  for (const c of cmds) {
    const name = c.name.toLowerCase();
    if (name.startsWith(q)) {
      head.push(c);
    } else {
      const s = fuzzyScore(q, name);
      if (s >= 0) fuzzy.push({ c, s });
    }
  }
  fuzzy.sort((a, b) => b.s - a.s); // stable: the agent's order among equals
  return head.concat(fuzzy.map((f) => f.c));
}

// fuzzyScore scores a command's name (folded) for q (folded): -1 when q's
// characters do not appear in it in order; else higher for runs of them
// and for characters that start a word. Command names are short: this is
// the files' matcher (internal/mention) without its path rules.
export function fuzzyScore(q, name) {
  let score = 0;
  let prev = -2;
  let at = 0;
  for (const ch of q) {
    const i = name.indexOf(ch, at);
    if (i < 0) return -1;
    score += 1;
    if (i === prev + 1) score += 4;
    if (i === 0 || /[^\p{L}\p{N}]/u.test(name[i - 1])) score += 6;
    prev = i;
    at = i + 1;
  }
  return score;
}
