// The prompt input of an ACP chat: Enter sends, Shift+Enter starts a new
// line (and Enter while an input method composes a word is the word's).
// The send button does what Enter does; while a turn runs, a cancel button
// stands beside it, and sending waits: a chat runs one turn at a time.

import { h, button } from "./dom.js";

export class Composer {
  // onSend(text) returns a promise that settles when the turn ends;
  // onCancel() cancels the running turn.
  constructor({ onSend, onCancel }) {
    this.onSend = onSend;
    this.running = false;
    this.input = h("textarea", {
      class: "composer-input",
      role: "composer",
      rows: 2,
      placeholder: "Write a prompt · Enter sends, Shift+Enter adds a line",
      attrs: { "aria-label": "Prompt", enterkeyhint: "send" },
      on: { keydown: (ev) => this.key(ev), beforeinput: (ev) => this.lineBreak(ev), keyup: () => { this.enterSent = false; }, input: () => this.grow() },
    });
    this.send = button("Send", { class: "primary", role: "send", on: { click: () => this.submit() } });
    this.cancel = button("Cancel turn", { class: "danger", role: "cancel", hidden: true, on: { click: onCancel } });
    this.error = h("p", { class: "inline-error", hidden: true, attrs: { role: "alert" } });
    this.element = h("div", { class: "composer" },
      h("div", { class: "composer-row" }, this.input, h("div", { class: "composer-actions" }, this.send, this.cancel)),
      this.error);
  }

  key(ev) {
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

  async submit() {
    const text = this.input.value.trim();
    if (text === "" || this.running) {
      return;
    }
    this.input.value = "";
    this.grow();
    this.showError("");
    this.setRunning(true);
    try {
      await this.onSend(text);
    } catch (e) {
      // The prompt did not run (a turn runs already, the chat failed to
      // start): the text comes back for another try.
      if (this.input.value === "") {
        this.input.value = text;
        this.grow();
      }
      this.showError(e && e.message ? e.message : String(e));
    }
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

  // reset empties the input, for another chat.
  reset() {
    this.input.value = "";
    this.grow();
    this.showError("");
  }

  focus() {
    this.input.focus({ preventScroll: true });
  }
}
