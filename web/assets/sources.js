// A chat's sources: its folder, its added folders and its single files,
// shown as chips, and the input that makes a chip of a path. The input
// completes what is typed from the listing of the folder it names
// (_acpmux/listDirectory), and a small browser lists a folder to pick
// from. The page is never told the web roots: the browser starts at the
// chat's folder or at the path typed, and a path outside the roots comes
// back refused, with the server's reason, which names them. The folders
// are those of the chat's host: the listing is asked of its server.

import { h, fill, text, button, errorText, debounce } from "./dom.js";

// chipList is the chips of a chat's sources. items: {path, kind ("folder"
// or "file"), label, pending, onRemove?, onChoose?, chosen?}.
export function chipList(items) {
  return h("ul", { class: "chips", attrs: { "aria-label": "Sources" } }, items.map((it) =>
    h("li", {
      class: "chip chip-" + it.kind + (it.pending ? " pending" : "") + (it.chosen ? " chosen" : ""),
      role: "source",
      data: { kind: it.kind, path: it.path },
      title: it.pending ? "Waiting: the chat takes it at the end of its turn" : it.path,
    },
    h("span", { class: "chip-label", text: it.label }),
    // The path in an isolate, so that the chip's right-to-left box cuts
    // its start, not its end (the end names the folder).
    h("span", { class: "chip-path path" }, h("bdi", { text: it.path })),
    it.pending ? h("span", { class: "chip-pending", text: "pending" }) : null,
    it.onChoose && !it.chosen ? button("make it the chat's folder", { class: "chip-choose", on: { click: it.onChoose } }) : null,
    it.onRemove ? button("×", { class: "chip-remove", attrs: { "aria-label": "Remove " + it.path }, on: { click: it.onRemove } }) : null)));
}

// dirname and basename of an absolute path, as the input splits it.
export function splitPath(p) {
  const i = p.lastIndexOf("/");
  if (i < 0) return ["", p];
  return [i === 0 ? "/" : p.slice(0, i), p.slice(i + 1)];
}

function join(dir, name) {
  return dir.endsWith("/") ? dir + name : dir + "/" + name;
}

export class SourceInput {
  // base() is the folder a relative path and the browser start from ("" for
  // none); onAdd({path, kind}) makes the chip, and rejects with the
  // server's refusal, which is shown beside the input. call(method,
  // params) makes a call on the server of the host whose folders these are.
  constructor({ call, base, onAdd, label = "Add a folder or file" }) {
    this.call = call;
    this.base = base;
    this.onAdd = onAdd;
    this.cache = new Map(); // folder → its listing, for this input's life
    this.matches = [];
    this.active = -1;
    this.input = h("input", {
      class: "source-input path",
      role: "source-input",
      type: "text",
      placeholder: "/path/to/folder or file",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: false,
      attrs: { "aria-label": label, "aria-autocomplete": "list", enterkeyhint: "done" },
      on: { input: () => { this.showError(""); this.complete(); }, keydown: (ev) => this.key(ev), blur: () => setTimeout(() => this.closeList(), 150) },
    });
    this.list = h("ul", { class: "completions", hidden: true, attrs: { role: "listbox" } });
    this.hint = h("p", { class: "source-hint", hidden: true });
    this.error = h("p", { class: "inline-error", hidden: true, attrs: { role: "alert" } });
    this.browser = h("div", { class: "browser", hidden: true });
    this.addBtn = button("Add", { on: { click: () => this.add(this.resolve(this.input.value)) } });
    this.browseBtn = button("Browse", { on: { click: () => this.toggleBrowser() } });
    this.element = h("div", { class: "source-input-box" },
      h("div", { class: "source-row" }, h("div", { class: "source-field" }, this.input, this.list), this.addBtn, this.browseBtn),
      this.hint, this.error, this.browser);
    this.complete = debounce(this.complete.bind(this), 120);
  }

  // resolve makes a typed path absolute (from base) and drops a trailing
  // slash.
  resolve(v) {
    let p = v.trim();
    if (p === "") return "";
    if (!p.startsWith("/")) {
      const b = this.base();
      if (!b) return p;
      p = join(b, p);
    }
    return p.length > 1 ? p.replace(/\/+$/, "") : p;
  }

  async listing(dir) {
    if (this.cache.has(dir)) return this.cache.get(dir);
    const r = await this.call("_acpmux/listDirectory", { path: dir });
    const entries = Array.isArray(r && r.entries) ? r.entries : [];
    const l = { path: text(r && r.path) || dir, entries, truncated: !!(r && r.truncated) };
    this.cache.set(dir, l);
    return l;
  }

  async complete() {
    const v = this.input.value;
    if (v.trim() === "") {
      this.closeList();
      this.showHint("");
      return;
    }
    const abs = v.startsWith("/") ? v : (this.base() ? join(this.base(), v) : "");
    if (!abs) {
      this.showHint("Type an absolute path (one that starts with /).");
      return;
    }
    const [dir, prefix] = splitPath(abs);
    try {
      const l = await this.listing(dir);
      if (this.input.value !== v) return; // typed on meanwhile
      this.showHint("");
      this.dir = dir;
      this.matches = l.entries.filter((e) => e && text(e.name).startsWith(prefix) && (prefix.startsWith(".") || !text(e.name).startsWith("."))).slice(0, 100);
      this.active = -1;
      this.drawList();
    } catch (e) {
      if (this.input.value !== v) return;
      this.closeList();
      this.showHint(errorText(e));
    }
  }

  drawList() {
    const typed = this.input.value;
    const exact = this.matches.length === 1 && typed.endsWith("/" + this.matches[0].name);
    if (this.matches.length === 0 || exact) {
      this.closeList();
      return;
    }
    fill(this.list, this.matches.map((e, i) => h("li", {
      class: "completion" + (i === this.active ? " active" : "") + (e.dir ? " dir" : ""),
      attrs: { role: "option", "aria-selected": i === this.active ? "true" : "false" },
      on: { mousedown: (ev) => { ev.preventDefault(); this.take(e); } },
    }, text(e.name) + (e.dir ? "/" : ""))));
    this.list.hidden = false;
  }

  closeList() {
    this.list.hidden = true;
    this.matches = [];
    this.active = -1;
  }

  // take completes the input to an entry of the listing; a folder goes on
  // to list what it holds.
  take(e) {
    this.input.value = join(this.dir, text(e.name)) + (e.dir ? "/" : "");
    this.closeList();
    this.input.focus();
    if (e.dir) this.complete();
  }

  key(ev) {
    const open = !this.list.hidden && this.matches.length > 0;
    switch (ev.key) {
      case "ArrowDown":
      case "ArrowUp":
        if (open) {
          ev.preventDefault();
          const n = this.matches.length;
          if (ev.key === "ArrowDown") {
            this.active = this.active < 0 ? 0 : (this.active + 1) % n;
          } else {
            this.active = this.active <= 0 ? n - 1 : this.active - 1;
          }
          this.drawList();
        }
        return;
      case "Tab":
        if (open && !ev.shiftKey) {
          ev.preventDefault();
          if (this.active >= 0) {
            this.take(this.matches[this.active]);
          } else if (this.matches.length === 1) {
            this.take(this.matches[0]);
          } else {
            // Several: as far as they agree.
            const names = this.matches.map((m) => text(m.name));
            let common = names[0];
            for (const n of names) while (!n.startsWith(common)) common = common.slice(0, -1);
            this.input.value = join(this.dir, common);
            this.complete();
          }
        }
        return;
      case "Enter":
        ev.preventDefault();
        if (open && this.active >= 0) {
          this.take(this.matches[this.active]);
        } else {
          this.closeList();
          this.add(this.resolve(this.input.value));
        }
        return;
      case "Escape":
        this.closeList();
    }
  }

  // kindOf says whether path is a folder or a file, from its folder's
  // listing; when that folder may not be listed (a root itself, or a path
  // outside the roots), from the path's own listing, whose refusal then
  // names the path the user gave.
  async kindOf(path) {
    let l = null;
    if (path !== "/") {
      try {
        l = await this.listing(splitPath(path)[0]);
      } catch {
        l = null;
      }
    }
    if (l === null) {
      await this.listing(path);
      return "folder";
    }
    const name = splitPath(path)[1];
    const e = l.entries.find((x) => x && x.name === name);
    if (!e) throw new Error(`${path}: no such file or folder`);
    return e.dir ? "folder" : "file";
  }

  // reset empties the input, for another chat.
  reset() {
    this.input.value = "";
    this.cache.clear();
    this.closeList();
    this.showError("");
    this.showHint("");
    this.browser.hidden = true;
    this.browseBtn.classList.remove("on");
  }

  async add(path) {
    if (!path) return;
    if (!path.startsWith("/")) {
      this.showError("Type an absolute path (one that starts with /).");
      return;
    }
    this.addBtn.disabled = true;
    this.showError("");
    try {
      this.cache.clear(); // the folder may have changed since it was listed
      const kind = await this.kindOf(path);
      await this.onAdd({ path, kind });
      this.input.value = "";
      this.showHint("");
      if (!this.browser.hidden) this.browse(this.browsing);
    } catch (e) {
      this.showError(errorText(e));
    } finally {
      this.addBtn.disabled = false;
    }
  }

  // showError shows a refusal; a hint the completion left (why a folder
  // could not be listed) would only repeat it, and goes.
  showError(msg) {
    this.error.textContent = msg;
    this.error.hidden = msg === "";
    if (msg !== "") this.showHint("");
  }

  showHint(msg) {
    this.hint.textContent = msg;
    this.hint.hidden = msg === "";
  }

  toggleBrowser() {
    if (!this.browser.hidden) {
      this.browser.hidden = true;
      this.browseBtn.classList.remove("on");
      return;
    }
    const typed = this.resolve(this.input.value);
    const start = typed.startsWith("/") ? (this.input.value.trim().endsWith("/") ? typed : splitPath(typed)[0]) : this.base();
    this.browser.hidden = false;
    this.browseBtn.classList.add("on");
    if (!start) {
      fill(this.browser, h("p", { class: "source-hint", text: "Type a folder's path above, then Browse lists it." }));
      return;
    }
    this.browse(start);
  }

  // browse lists a folder: its folders to go into, and an Add for it and
  // for each entry.
  async browse(dir) {
    this.browsing = dir;
    fill(this.browser, h("p", { class: "dim", text: "Listing " + dir + "…" }));
    let l;
    try {
      this.cache.delete(dir);
      l = await this.listing(dir);
    } catch (e) {
      fill(this.browser, h("div", { class: "browser-head" }, h("span", { class: "path", text: dir })),
        h("p", { class: "inline-error", text: errorText(e) }),
        dir !== "/" ? button("Up", { on: { click: () => this.browse(splitPath(dir)[0]) } }) : null);
      return;
    }
    const here = l.path;
    const rows = l.entries.filter((e) => e && !text(e.name).startsWith(".")).map((e) => {
      const p = join(here, text(e.name));
      return h("li", { class: "browser-entry" + (e.dir ? " dir" : "") },
        e.dir
          ? button(text(e.name) + "/", { class: "link", on: { click: () => this.browse(p) } })
          : h("span", { class: "path", text: text(e.name) }),
        button("Add", { class: "small", on: { click: () => this.add(p) } }));
    });
    fill(this.browser,
      h("div", { class: "browser-head" },
        here !== "/" ? button("↑ Up", { on: { click: () => this.browse(splitPath(here)[0]) } }) : null,
        h("span", { class: "path", text: here }),
        button("Add this folder", { class: "small", on: { click: () => this.add(here) } })),
      rows.length > 0 ? h("ul", { class: "browser-list" }, rows) : h("p", { class: "dim", text: "Empty folder" }),
      l.truncated ? h("p", { class: "dim", text: "More entries than shown." }) : null);
  }
}
