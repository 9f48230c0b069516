// What a phone's keyboard lacks for a terminal: a field whose text goes to
// the harness as it is typed (an input method's word once it is composed),
// and buttons for the keys a terminal needs that a phone keyboard has not.
// Shown on touch screens and narrow windows only (app.css); on a desktop
// the terminal element takes the keys itself.

import { h } from "./dom.js";
import { keyBytes } from "./keys.js";

// keys are the buttons: bytes, or a key to encode when pressed (the cursor
// keys send other bytes in application cursor mode).
const keys = [
  ["Esc", "\x1b"], ["Tab", "\t"], ["^C", "\x03"], ["^D", "\x04"],
  ["↑", { key: "ArrowUp" }], ["↓", { key: "ArrowDown" }], ["←", { key: "ArrowLeft" }], ["→", { key: "ArrowRight" }],
  ["⌫", "\x7f"], ["⏎", "\r"],
];

// touchKeys makes the bar; write(bytes) sends to the harness, modes() is
// its terminal's modes now.
export function touchKeys({ write, modes }) {
  const field = h("input", {
    class: "term-input",
    type: "text",
    placeholder: "Type to the terminal",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: false,
    attrs: { "aria-label": "Type to the terminal", enterkeyhint: "send", autocorrect: "off" },
  });
  let composing = false;
  const flush = () => {
    if (field.value !== "") {
      write(field.value);
      field.value = "";
    }
  };
  field.addEventListener("compositionstart", () => { composing = true; });
  field.addEventListener("compositionend", () => { composing = false; flush(); });
  field.addEventListener("input", () => { if (!composing) flush(); });
  field.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      flush();
      write("\r");
    } else if (ev.key === "Backspace" && field.value === "") {
      ev.preventDefault();
      write("\x7f");
    }
  });
  const send = (b) => () => write(typeof b === "string" ? b : keyBytes(b, modes()));
  return h("div", { class: "keybar" }, field,
    h("div", { class: "keybar-keys" }, keys.map(([label, b]) =>
      h("button", { type: "button", class: "key", text: label, attrs: { "aria-label": "Send " + label }, on: { click: send(b) } }))));
}
