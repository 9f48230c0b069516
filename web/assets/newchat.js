// The new-chat form: a harness from the config's table, the chat's
// sources as chips (the folder chosen as the chat's own, the other
// folders, the single files), and a name. Each chip is checked by the
// server as it is added (_acpmux/validate): a refusal shows beside the
// input and no chip is made. Create asks _acpmux/createAndStart, which
// checks the whole again; what it refuses shows above the button.

import { h, fill, text, button, errorText } from "./dom.js";
import { chipList, SourceInput } from "./sources.js";

export class NewChatForm {
  // base() is where the browser starts (the chat shown's folder);
  // size() the terminal size to start the harness at; onCreated(chat) is
  // told of a chat made (started or not); onCancel() closes the form.
  constructor({ rpc, store, base, size, onCreated, onCancel }) {
    this.rpc = rpc;
    this.store = store;
    this.size = size;
    this.onCreated = onCreated;
    this.sources = []; // {path, kind}
    this.cwd = "";
    this.harness = h("select", { class: "harness-select", attrs: { "aria-label": "Harness" } });
    this.name = h("input", { type: "text", class: "name-input", placeholder: "Made from the folder when left empty", maxLength: 200, attrs: { "aria-label": "Name" } });
    this.chips = h("div", { class: "chips-box" });
    this.input = new SourceInput({
      rpc,
      base: () => this.cwd || base(),
      onAdd: (s) => this.addSource(s),
      label: "Add a folder or file to the new chat",
    });
    this.error = h("p", { class: "inline-error", hidden: true, attrs: { role: "alert" } });
    this.create = button("Create and start", { class: "primary", role: "create", on: { click: () => this.submit() } });
    this.element = h("form", { class: "new-chat", on: { submit: (ev) => ev.preventDefault() } },
      h("div", { class: "form-head" }, h("h2", { text: "New chat" }), button("Cancel", { class: "quiet", on: { click: onCancel } })),
      h("label", { class: "field" }, h("span", { class: "field-label", text: "Harness" }), this.harness),
      h("div", { class: "field" }, h("span", { class: "field-label", text: "Folders and files" }),
        h("p", { class: "dim", text: "The first folder is the chat's own; without one, the chat gets an empty folder of its own." }),
        this.chips, this.input.element),
      h("label", { class: "field" }, h("span", { class: "field-label", text: "Name" }), this.name),
      this.error,
      h("div", { class: "form-actions" }, this.create));
    store.addEventListener("config", () => this.fillHarnesses());
  }

  reset() {
    this.sources = [];
    this.cwd = "";
    this.name.value = "";
    this.input.reset();
    this.showError("");
    this.fillHarnesses();
    this.drawChips();
  }

  // fillHarnesses offers the config's harnesses, the default first
  // chosen; one not installed is shown but cannot be picked.
  fillHarnesses() {
    const cfg = this.store.config;
    const keep = this.harness.value;
    fill(this.harness, (cfg.harnesses || []).map((x) => h("option", {
      value: text(x.name),
      disabled: x.installed === false,
      text: text(x.name) + (x.transport === "acp" ? " · ACP" : "") + (x.installed === false ? " (not installed)" : ""),
    })));
    this.harness.value = keep || text(cfg.defaultHarness);
    if (!this.harness.value && this.harness.options.length > 0) {
      this.harness.selectedIndex = 0;
    }
  }

  // addSource checks one path with the server and makes its chip; the
  // first folder becomes the chat's folder.
  async addSource({ path, kind }) {
    const params = kind === "folder" ? { additionalDirectories: [path] } : { additionalFiles: [path] };
    const r = await this.rpc.call("_acpmux/validate", params);
    const canon = kind === "folder" ? (r.additionalDirectories || [])[0] : (r.additionalFiles || [])[0];
    const p = text(canon) || path;
    if (this.sources.some((s) => s.path === p)) {
      return;
    }
    this.sources.push({ path: p, kind });
    if (kind === "folder" && !this.cwd) {
      this.cwd = p;
    }
    this.drawChips();
  }

  drawChips() {
    const items = this.sources.map((s) => ({
      path: s.path,
      kind: s.kind,
      label: s.kind === "file" ? "file" : s.path === this.cwd ? "chat's folder" : "folder",
      chosen: s.path === this.cwd,
      onChoose: s.kind === "folder" ? () => { this.cwd = s.path; this.drawChips(); } : null,
      onRemove: () => {
        this.sources = this.sources.filter((x) => x !== s);
        if (this.cwd === s.path) {
          const next = this.sources.find((x) => x.kind === "folder");
          this.cwd = next ? next.path : "";
        }
        this.drawChips();
      },
    }));
    fill(this.chips, items.length > 0 ? chipList(items) : h("p", { class: "dim", text: "No folder or file yet." }));
  }

  showError(msg) {
    this.error.textContent = msg;
    this.error.hidden = msg === "";
  }

  async submit() {
    const { cols, rows } = this.size();
    const params = {
      harness: this.harness.value || undefined,
      name: this.name.value.trim() || undefined,
      cwd: this.cwd || undefined,
      additionalDirectories: this.sources.filter((s) => s.kind === "folder" && s.path !== this.cwd).map((s) => s.path),
      additionalFiles: this.sources.filter((s) => s.kind === "file").map((s) => s.path),
      cols: cols || undefined,
      rows: rows || undefined,
    };
    this.create.disabled = true;
    this.showError("");
    try {
      const chat = await this.rpc.call("_acpmux/createAndStart", params);
      this.onCreated(chat, "");
    } catch (e) {
      const made = e && e.data && e.data.created;
      if (made && made.id) {
        // Made, but its harness did not start: open it, saying why.
        this.onCreated(made, errorText(e));
      } else {
        this.showError(errorText(e));
      }
    } finally {
      this.create.disabled = false;
    }
  }
}
