// The prompt input of an ACP chat: Enter sends, Shift+Enter starts a new
// line (and Enter while an input method composes a word is the word's).
// The send button does what Enter does; while a turn runs, a cancel button
// stands beside it, and sending waits: a chat runs one turn at a time.
//
// As the TUI's composer does, it offers the agent's slash commands after a
// / at the start of the prompt and the chat's files after an @ at the
// start of a word (completion.js): arrows choose, Tab or Enter complete,
// Escape closes the list, a click takes an option. A command completes to
// "/name " (its input hint shown under the input); a file becomes an
// @name chip, and goes with the prompt as a resource_link (its file://
// URI) as long as its @name stays in the text.

import { h, fill, button, text, errorText } from "./dom.js";
import { cleanLine } from "./markdown.js";
import { CompletionList, cleanCommands, rankCommands } from "./completion.js";

// maxLinks is the most links a prompt carries (proto.MaxPromptLinks).
const maxLinks = 64;

// filesWait is how long typing after an @ must pause before the files
// are asked for: one call for a word typed fast.
const filesWait = 60;

export class Composer {
  // onSend(text, links) returns a promise that settles when the turn
  // ends; onCancel() cancels the running turn; files(query) answers the
  // chat's files for query (_acpmux/files).
  constructor({ onSend, onCancel, files }) {
    this.onSend = onSend;
    this.files = files;
    this.running = false;
    this.commands = [];
    this.commandsKey = "";
    this.chips = []; // {token, path, uri, name}
    this.tok = null; // the token the list completes: {kind, start, query}
    this.dismissed = ""; // the token Escape closed, until it changes
    this.hint = null; // {text, for}: a completed command's input hint
    this.fileSeq = 0;
    this.fileTimer = 0;
    this.list = new CompletionList({ onPick: (it) => this.pick(it) });
    this.input = h("textarea", {
      class: "composer-input",
      role: "composer",
      rows: 2,
      placeholder: "Write a prompt · / commands, @ files · Enter sends, Shift+Enter adds a line",
      attrs: {
        "aria-label": "Prompt", enterkeyhint: "send",
        "aria-autocomplete": "list", "aria-haspopup": "listbox", "aria-controls": this.list.id, "aria-expanded": "false",
      },
      on: {
        keydown: (ev) => this.key(ev),
        beforeinput: (ev) => this.lineBreak(ev),
        keyup: (ev) => { this.enterSent = false; if (caretKeys.has(ev.key)) this.update(); },
        input: () => { this.grow(); this.edited(); },
        click: () => this.update(),
        blur: () => this.closeList(),
      },
    });
    this.send = button("Send", { class: "primary", role: "send", on: { click: () => this.submit() } });
    this.cancel = button("Cancel turn", { class: "danger", role: "cancel", hidden: true, on: { click: onCancel } });
    this.error = h("p", { class: "inline-error", hidden: true, attrs: { role: "alert" } });
    this.chipsEl = h("ul", { class: "chips composer-chips", hidden: true, attrs: { "aria-label": "Files sent with the prompt" } });
    this.hintEl = h("p", { class: "composer-hint", role: "command-hint", hidden: true });
    this.element = h("div", { class: "composer" },
      this.chipsEl,
      h("div", { class: "composer-row" },
        h("div", { class: "composer-field" }, this.input, this.list.element),
        h("div", { class: "composer-actions" }, this.send, this.cancel)),
      this.hintEl, this.error);
  }

  key(ev) {
    if (!this.list.element.hidden) {
      const plain = !ev.shiftKey && !ev.altKey && !ev.ctrlKey && !ev.metaKey;
      switch (ev.key) {
        case "ArrowDown":
        case "ArrowUp":
          if (this.list.open) {
            ev.preventDefault();
            this.list.move(ev.key === "ArrowDown" ? 1 : -1);
            this.aria();
            return;
          }
          break;
        case "Tab":
          if (this.list.open && plain) {
            ev.preventDefault();
            this.pick(this.list.picked());
            return;
          }
          break;
        case "Enter":
          if (this.list.open && plain && !ev.isComposing && ev.keyCode !== 229) {
            ev.preventDefault();
            this.enterSent = true;
            this.pick(this.list.picked());
            return;
          }
          break;
        case "Escape":
          ev.preventDefault();
          ev.stopPropagation();
          this.dismissed = tokenKey(this.tok);
          this.closeList();
          return;
      }
    }
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing && ev.keyCode !== 229) {
      ev.preventDefault();
      this.enterSent = true;
      this.submit();
    }
  }

  // lineBreak drops the line break of an Enter that sent: a browser
  // inserts none after keydown's preventDefault, but a tool that types
  // each key as keydown then a character event does.
  lineBreak(ev) {
    const isBreak = ev.inputType === "insertLineBreak" || ev.inputType === "insertParagraph" ||
      (ev.inputType === "insertText" && (ev.data === "\n" || ev.data === "\r"));
    if (this.enterSent && isBreak) {
      ev.preventDefault();
    }
    this.enterSent = false;
  }

  // grow fits the input to its text, up to the height the CSS allows.
  grow() {
    this.input.style.height = "auto";
    this.input.style.height = this.input.scrollHeight + "px";
  }

  // edited follows a change of the text: the chips whose tokens are gone
  // are dropped, the hint goes once the text is not the command alone,
  // and the list follows the token at the caret.
  edited() {
    const v = this.input.value;
    const kept = this.chips.filter((c) => v.includes(c.token));
    if (kept.length !== this.chips.length) {
      this.chips = kept;
      this.drawChips();
    }
    this.drawHint();
    this.update();
  }

  // token finds what the list offers for the text before the caret: a /
  // at the very start of the prompt with no space after it, or an @ at
  // the start of a word.
  token() {
    const caret = this.input.selectionStart;
    if (caret !== this.input.selectionEnd) return null;
    const before = this.input.value.slice(0, caret);
    if (before.startsWith("/") && !/\s/.test(before)) {
      return { kind: "commands", start: 0, query: before.slice(1) };
    }
    const m = /(?:^|\s)@(\S*)$/.exec(before);
    if (m) {
      return { kind: "files", start: caret - m[1].length - 1, query: m[1] };
    }
    return null;
  }

  // update opens, filters or closes the list for the token at the caret.
  update() {
    const tok = this.token();
    if (!tok || tokenKey(tok) === this.dismissed) {
      this.closeList();
      return;
    }
    this.dismissed = "";
    const same = this.tok && tokenKey(this.tok) === tokenKey(tok) && !this.list.element.hidden;
    this.tok = tok;
    if (same) return;
    if (tok.kind === "commands") {
      this.showCommands();
    } else {
      this.askFiles(tok);
    }
  }

  showCommands() {
    const items = rankCommands(this.commands, this.tok.query).map((c) => ({
      label: "/" + c.name, desc: c.description, insert: "/" + c.name + " ", hint: c.hint,
    }));
    this.list.show("Commands of the agent", items);
    this.aria();
  }

  // askFiles asks the chat's server for the files matching the token's
  // query, once typing pauses; an answer for a token no longer typed is
  // dropped.
  askFiles(tok) {
    const seq = ++this.fileSeq;
    clearTimeout(this.fileTimer);
    this.fileTimer = setTimeout(async () => {
      let r;
      try {
        r = await this.files(tok.query);
      } catch (e) {
        r = { files: [], note: "The files could not be listed: " + errorText(e) };
      }
      if (seq !== this.fileSeq) return;
      const files = Array.isArray(r && r.files) ? r.files : [];
      const items = files.filter((f) => f && typeof f === "object" && text(f.path) !== "" && text(f.uri) !== "").map((f) => {
        const name = cleanLine(f.name) || cleanLine(f.path);
        return { label: name, desc: f.own ? "chat file" : "", path: cleanLine(f.path), uri: cleanLine(f.uri), name };
      });
      const note = cleanLine(r && r.note) || (items.length === 0 ? "No file of the chat matches “" + cleanLine(tok.query) + "”" : "");
      this.list.show("Files of the chat", items, note);
      this.aria();
    }, filesWait);
  }

  closeList() {
    this.fileSeq++;
    clearTimeout(this.fileTimer);
    this.tok = null;
    this.list.close();
    this.aria();
  }

  aria() {
    this.input.setAttribute("aria-expanded", this.list.open ? "true" : "false");
    const id = this.list.activeId();
    if (id) {
      this.input.setAttribute("aria-activedescendant", id);
    } else {
      this.input.removeAttribute("aria-activedescendant");
    }
  }

  // pick replaces the token at the caret with the chosen option: a
  // command's "/name ", or a file's chip "@name " whose link is kept.
  pick(it) {
    const tok = this.tok || this.token();
    if (!it || !tok) return;
    const v = this.input.value;
    const caret = this.input.selectionStart;
    let insert = it.insert;
    if (tok.kind === "files") {
      const token = this.chipToken(it);
      this.chips.push({ token, path: it.path, uri: it.uri, name: it.name });
      insert = token + " ";
    }
    this.input.value = v.slice(0, tok.start) + insert + v.slice(caret);
    const at = tok.start + insert.length;
    this.input.setSelectionRange(at, at);
    this.hint = tok.kind === "commands" && it.hint ? { text: it.hint, for: insert } : null;
    this.dismissed = "";
    this.closeList();
    this.drawChips();
    this.drawHint();
    this.grow();
    this.input.focus({ preventScroll: true });
  }

  // chipToken is a file chip's token: @ and its base name, or its name in
  // the chat when another chip has that base name for another file.
  chipToken(it) {
    const base = it.path.slice(it.path.lastIndexOf("/") + 1);
    const token = "@" + base;
    if (this.chips.some((c) => c.token === token && c.path !== it.path)) {
      return "@" + it.name;
    }
    return token;
  }

  drawChips() {
    fill(this.chipsEl, this.chips.map((c) => h("li", { class: "chip chip-file", role: "chip", data: { path: c.path }, title: c.path },
      h("span", { class: "chip-path path" }, h("bdi", { text: c.token })),
      button("×", { class: "chip-remove", attrs: { "aria-label": "Remove " + c.token }, on: { click: () => this.removeChip(c) } }))));
    this.chipsEl.hidden = this.chips.length === 0;
  }

  // removeChip takes a chip's token out of the text, and so the chip.
  removeChip(c) {
    const v = this.input.value;
    const i = v.indexOf(c.token);
    if (i >= 0) {
      const end = v[i + c.token.length] === " " ? i + c.token.length + 1 : i + c.token.length;
      this.input.value = v.slice(0, i) + v.slice(end);
    }
    this.chips = this.chips.filter((x) => x !== c && this.input.value.includes(x.token));
    this.drawChips();
    this.grow();
    this.focus();
  }

  drawHint() {
    const on = this.hint && this.input.value === this.hint.for;
    this.hintEl.textContent = on ? this.hint.for.trim() + " " + this.hint.text : "";
    this.hintEl.hidden = !on;
  }

  // links are the links of the chips whose tokens text holds, each file
  // once, at most maxLinks.
  links(text) {
    const seen = new Set();
    const out = [];
    for (const c of this.chips) {
      if (seen.has(c.uri) || !text.includes(c.token) || out.length >= maxLinks) continue;
      seen.add(c.uri);
      out.push({ uri: c.uri, name: c.name });
    }
    return out;
  }

  async submit() {
    const text = this.input.value.trim();
    if (text === "" || this.running) {
      return;
    }
    const links = this.links(text);
    const chips = this.chips;
    this.input.value = "";
    this.chips = [];
    this.hint = null;
    this.closeList();
    this.drawChips();
    this.drawHint();
    this.grow();
    this.showError("");
    this.setRunning(true);
    try {
      await this.onSend(text, links);
    } catch (e) {
      // The prompt did not run (a turn runs already, the chat failed to
      // start): the text and its chips come back for another try.
      if (this.input.value === "") {
        this.input.value = text;
        this.chips = chips;
        this.drawChips();
        this.grow();
      }
      this.showError(e && e.message ? e.message : String(e));
    }
  }

  // setCommands takes the agent's slash commands (the chat's state's
  // Commands); an open list of commands shows the new ones.
  setCommands(list) {
    const key = JSON.stringify(list || []);
    if (key === this.commandsKey) return;
    this.commandsKey = key;
    this.commands = cleanCommands(list);
    if (this.tok && this.tok.kind === "commands") this.showCommands();
  }

  showError(msg) {
    this.error.textContent = msg;
    this.error.hidden = msg === "";
  }

  // setRunning says whether a turn runs (the chat's state says so, or
  // this page's prompt is under way).
  setRunning(on) {
    this.running = on;
    this.send.disabled = on;
    this.cancel.hidden = !on;
    this.element.classList.toggle("running", on);
  }

  // reset empties the input, its chips and its list, for another chat.
  reset() {
    this.input.value = "";
    this.chips = [];
    this.hint = null;
    this.dismissed = "";
    this.closeList();
    this.drawChips();
    this.drawHint();
    this.grow();
    this.showError("");
    this.setCommands([]);
  }

  focus() {
    this.input.focus({ preventScroll: true });
  }
}

// caretKeys move the caret without changing the text: the list follows.
const caretKeys = new Set(["ArrowLeft", "ArrowRight", "Home", "End"]);

// tokenKey names a token, for dismissed.
function tokenKey(tok) {
  return tok ? tok.kind + ":" + tok.start + ":" + tok.query : "";
}
