// The chat list: a group per host, a row per chat with its name, the
// terminal title its harness set (when it set one), its harness and its
// status. A chat that asks for its user stands out (a class and a badge),
// as the TUI's sidebar marks it. Rows are rebuilt from the store on each
// change: a list of chats is small, and a rebuilt row can hold no stale
// text.

import { h, fill, text } from "./dom.js";
import { localHost } from "./store.js";

export class ChatList {
  // onOpen(id) is called when a row is chosen.
  constructor(root, store, onOpen) {
    this.root = root;
    this.store = store;
    this.onOpen = onOpen;
    this.selected = "";
    store.addEventListener("chats", () => this.render());
    store.addEventListener("states", () => this.render());
    store.addEventListener("config", () => this.render());
  }

  select(id) {
    this.selected = id;
    for (const row of this.root.querySelectorAll("[data-chat-id]")) {
      const on = row.dataset.chatId === id;
      row.classList.toggle("selected", on);
      row.setAttribute("aria-current", on ? "true" : "false");
    }
  }

  render() {
    const groups = this.store.groups();
    if (groups.length === 0) {
      fill(this.root, h("p", { class: "empty", text: "No chats yet. Start one with New chat." }));
      return;
    }
    fill(this.root, groups.map((g) => this.group(g)));
  }

  group({ host, chats }) {
    const title = host === localHost ? "This machine" : host;
    return h("section", { class: "host-group", data: { host } },
      h("h2", { class: "host-name" }, title, h("span", { class: "count", text: String(chats.length) })),
      h("ul", { class: "chat-rows" }, chats.map((c) => this.row(c))));
  }

  row(chat) {
    const status = this.store.status(chat.id);
    const st = this.store.state(chat.id);
    const name = text(chat.name) || text(chat.id);
    const title = text(st.Title).trim();
    const classes = ["chat-row", "status-" + status];
    if (status === "asking") {
      classes.push("asking");
    }
    if (chat.unread || st.Unread) {
      classes.push("unread");
    }
    if (chat.id === this.selected) {
      classes.push("selected");
    }
    const open = () => this.onOpen(chat.id);
    const li = h("li", {
      class: classes.join(" "),
      data: { chatId: chat.id },
      tabIndex: 0,
      attrs: { role: "button", "aria-current": chat.id === this.selected ? "true" : "false" },
      on: {
        click: open,
        keydown: (ev) => {
          if (ev.key === "Enter" || ev.key === " ") {
            ev.preventDefault();
            open();
          }
        },
      },
    },
    h("span", { class: "dot", attrs: { "aria-hidden": "true" } }),
    h("span", { class: "row-main" },
      h("span", { class: "row-name", text: name }),
      title && title !== name ? h("span", { class: "row-title", text: title }) : null),
    h("span", { class: "row-meta" },
      h("span", { class: "row-harness", text: text(chat.harness) }),
      status === "asking"
        ? h("span", { class: "badge asking-badge", text: "asks you" })
        : h("span", { class: "row-status", text: chat.broken ? "broken" : status })));
    return li;
  }
}
