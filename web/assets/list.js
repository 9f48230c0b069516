// The chat list: a group per host, as the TUI's sidebar heads them (this
// machine first, then each [host.NAME] of the config in order), a row per
// chat with its name, the terminal title its harness set (when it set
// one), its harness and its status. A host whose link is being opened says
// so on its group; one that cannot be reached, or whose link ended, says
// why, with a Retry button. A chat that asks for its user stands out (a
// class and a badge), as the TUI's sidebar marks it. Rows are rebuilt from
// the store on each change: a list of chats is small, and a rebuilt row
// can hold no stale text.

import { h, fill, text, button } from "./dom.js";
import { localHost, chatKey, HostConnecting, HostDown } from "./store.js";

export class ChatList {
  // onOpen(key) is called when a row is chosen; onRetry(host) when a
  // host's Retry is.
  constructor(root, store, { onOpen, onRetry }) {
    this.root = root;
    this.store = store;
    this.onOpen = onOpen;
    this.onRetry = onRetry;
    this.selected = "";
    store.addEventListener("chats", () => this.render());
    store.addEventListener("states", () => this.render());
    store.addEventListener("config", () => this.render());
    store.addEventListener("hosts", () => this.render());
  }

  select(key) {
    this.selected = key;
    for (const row of this.root.querySelectorAll("[data-key]")) {
      const on = row.dataset.key === key;
      row.classList.toggle("selected", on);
      row.setAttribute("aria-current", on ? "true" : "false");
    }
  }

  render() {
    const groups = this.store.groups();
    if (groups.length === 1 && groups[0].chats.length === 0) {
      fill(this.root, h("p", { class: "empty", text: "No chats yet. Start one with New chat." }));
      return;
    }
    fill(this.root, groups.map((g) => this.group(g)));
  }

  group({ host, chats, link }) {
    const local = host === localHost;
    let state = "";
    if (link.state === HostConnecting) state = "connecting…";
    else if (link.state === HostDown) state = "down · retrying";
    const problem = link.state === HostDown
      ? h("div", { class: "host-problem", attrs: { role: "status" } },
        h("span", { class: "host-error", text: text(link.error) || "the link to the host ended" }),
        button("Retry", { class: "small", role: "host-retry", on: { click: () => this.onRetry(host) } }))
      : null;
    const empty = chats.length === 0 && link.state !== HostConnecting && link.state !== HostDown
      ? h("p", { class: "empty small", text: "No chats." }) : null;
    return h("section", { class: "host-group link-" + link.state, data: { host } },
      h("h2", { class: "host-name" },
        h("span", { class: "host-title" },
          h("span", { class: "host-label", text: host }),
          local ? h("span", { class: "host-note", text: "this machine" }) : null,
          state ? h("span", { class: "host-state", text: state }) : null),
        h("span", { class: "count", text: String(chats.length) })),
      problem,
      empty,
      chats.length > 0 ? h("ul", { class: "chat-rows" }, chats.map((c) => this.row(c))) : null);
  }

  row(chat) {
    const host = chat.host || localHost;
    const key = chatKey(host, chat.id);
    const status = this.store.status(key);
    const st = this.store.state(key);
    const name = text(chat.name) || text(chat.id);
    const title = text(st.Title).trim();
    const classes = ["chat-row", "status-" + status];
    if (status === "asking") {
      classes.push("asking");
    }
    if (chat.unread || st.Unread) {
      classes.push("unread");
    }
    if (key === this.selected) {
      classes.push("selected");
    }
    const open = () => this.onOpen(key);
    const li = h("li", {
      class: classes.join(" "),
      data: { chatId: chat.id, host, key },
      tabIndex: 0,
      attrs: { role: "button", "aria-current": key === this.selected ? "true" : "false" },
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
