// Telling the user that a chat asks for them while they look elsewhere:
// the tab's title counts the chats that ask ("(2) acpmux"), and, once the
// user allowed it with the "Notify me" button (a browser asks for that
// permission only on a click, never on load), a chat that starts asking
// while the page is hidden shows a browser notification.

import { text } from "./dom.js";

const baseTitle = "acpmux";

export class Notifier {
  // open(id) opens a chat (a click on its notification).
  constructor({ store, buttonEl, open }) {
    this.store = store;
    this.buttonEl = buttonEl;
    this.open = open;
    this.supported = typeof window.Notification === "function";
    buttonEl.addEventListener("click", () => this.ask());
    this.showButton();
    store.addEventListener("states", (ev) => {
      this.title();
      this.changed(ev.detail.changed);
    });
    store.addEventListener("chats", () => this.title());
  }

  showButton() {
    this.buttonEl.hidden = !this.supported || Notification.permission !== "default";
  }

  async ask() {
    if (!this.supported) return;
    try {
      await Notification.requestPermission();
    } catch {
      // An old browser's callback form: nothing more to do here.
    }
    this.showButton();
  }

  title() {
    const n = this.store.asking();
    document.title = n > 0 ? `(${n}) ${baseTitle}` : baseTitle;
  }

  // changed hears the chats whose status changed.
  changed(list) {
    if (!this.supported || Notification.permission !== "granted" || !document.hidden) {
      return;
    }
    for (const { id, after } of list || []) {
      if (after !== "asking") continue;
      const chat = this.store.chats.get(id);
      const name = text(chat && chat.name) || id;
      const perm = this.store.state(id).Permission;
      try {
        // Notification takes its title and body as text.
        const n = new Notification(name + " asks you", {
          body: perm && perm.Title ? text(perm.Title) : "It waits for your answer.",
          tag: "acpmux-" + id, // a second ask of one chat replaces the first
        });
        n.addEventListener("click", () => {
          window.focus();
          this.open(id);
          n.close();
        });
      } catch {
        // Some browsers (Android Chrome) make notifications only from a
        // service worker: the title still counts.
      }
    }
  }
}
