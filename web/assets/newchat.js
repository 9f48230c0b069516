// The new-chat form: the host to make it on (this machine, or a
// [host.NAME] of the config), a harness from that host's table, the
// chat's sources as chips (the folder chosen as the chat's own, the other
// folders, the single files, all of that host), and a name. Each chip is
// checked by the host's server as it is added (_acpmux/validate): a
// refusal shows beside the input and no chip is made. Create asks
// _acpmux/createAndStart, which checks the whole again; what it refuses
// shows above the button.

import { h, fill, text, button, errorText } from "./dom.js";
import { chipList, SourceInput } from "./sources.js";
import { localHost } from "./store.js";

export class NewChatForm {
  // callFor(host, method, params) makes a call on a host's server;
  // base(host) is where the browser starts on that host (the chat shown's
  // folder); size() the terminal size to start the harness at;
  // onCreated(host, chat, why) is told of a chat made (started or not);
  // onCancel() closes the form.
  constructor({ callFor, store, base, size, onCreated, onCancel }) {
    this.callFor = callFor;
    this.store = store;
    this.size = size;
    this.onCreated = onCreated;
    this.sources = []; // {path, kind}
    this.cwd = "";
    this.host = h("select", { class: "host-select", role: "host-select", attrs: { "aria-label": "Host" }, on: { change: () => this.hostChanged() } });
    this.hostField = h("label", { class: "field" }, h("span", { class: "field-label", text: "Host" }), this.host);
    this.harness = h("select", { class: "harness-select", role: "harness-select", attrs: { "aria-label": "Harness" } });
    this.harnessNote = h("p", { class: "source-hint", hidden: true });
    this.name = h("input", { type: "text", class: "name-input", placeholder: "Made from the folder when left empty", maxLength: 200, attrs: { "aria-label": "Name" } });
    this.chips = h("div", { class: "chips-box" });
    this.input = new SourceInput({
      call: (method, params) => this.call(method, params),
      base: () => this.cwd || base(this.chosenHost()),
      onAdd: (s) => this.addSource(s),
      label: "Add a folder or file to the new chat",
    });
    this.error = h("p", { class: "inline-error", hidden: true, attrs: { role: "alert" } });
    this.create = button("Create and start", { class: "primary", role: "create", on: { click: () => this.submit() } });
    this.element = h("form", { class: "new-chat", on: { submit: (ev) => ev.preventDefault() } },
      h("div", { class: "form-head" }, h("h2", { text: "New chat" }), button("Cancel", { class: "quiet", on: { click: onCancel } })),
      this.hostField,
      h("label", { class: "field" }, h("span", { class: "field-label", text: "Harness" }), this.harness),
      this.harnessNote,
      h("div", { class: "field" }, h("span", { class: "field-label", text: "Folders and files" }),
        h("p", { class: "dim", text: "The first folder is the chat's own; without one, the chat gets an empty folder of its own." }),
        this.chips, this.input.element),
      h("label", { class: "field" }, h("span", { class: "field-label", text: "Name" }), this.name),
      this.error,
      h("div", { class: "form-actions" }, this.create));
    store.addEventListener("config", (ev) => {
      if (!ev.detail || !ev.detail.host || ev.detail.host === localHost) this.fillHosts();
      this.fillHarnesses();
    });
  }

  // chosenHost is the host the chat is made on.
  chosenHost() {
    return this.host.value || localHost;
  }

  call(method, params = {}) {
    return this.callFor(this.chosenHost(), method, params);
  }

  // reset empties the form; host, when given, is chosen (the host of the
  // chat shown, or of the group the form was opened from).
  reset(host) {
    const before = this.chosenHost();
    this.fillHosts();
    if (host && [...this.host.options].some((o) => o.value === host)) {
      this.host.value = host;
    }
    this.clearSources();
    this.name.value = "";
    if (this.chosenHost() !== before) {
      this.harness.value = ""; // another host's table: its default
    }
    this.fillHarnesses();
    this.loadHostConfig();
  }

  clearSources() {
    this.sources = [];
    this.cwd = "";
    this.input.reset();
    this.showError("");
    this.drawChips();
  }

  // fillHosts offers this machine and the configured hosts.
  fillHosts() {
    const keep = this.host.value;
    const hosts = this.store.hosts();
    fill(this.host, hosts.map((name) => h("option", {
      value: name,
      text: name === localHost ? "local (this machine)" : name,
    })));
    this.host.value = hosts.includes(keep) ? keep : localHost;
    this.hostField.hidden = hosts.length < 2;
  }

  // hostChanged starts again on another host: its own harnesses, and its
  // folders (the chips of the last host's are dropped).
  hostChanged() {
    this.clearSources();
    this.harness.value = "";
    this.fillHarnesses();
    this.loadHostConfig();
  }

  // loadHostConfig asks a host for its harness table when the page has
  // none yet (its link is being opened, or is down): the call opens it.
  async loadHostConfig() {
    const host = this.chosenHost();
    if (host === localHost || (this.store.configOf(host).harnesses || []).length > 0) {
      return;
    }
    this.showNote("Asking " + host + " for its harnesses…");
    try {
      const cfg = await this.callFor(host, "_acpmux/config", {});
      this.store.setConfig(host, cfg);
      if (host === this.chosenHost()) this.showNote("");
    } catch (e) {
      if (host === this.chosenHost()) this.showNote("Host " + host + " unreachable: " + errorText(e));
    }
  }

  showNote(msg) {
    this.harnessNote.textContent = msg;
    this.harnessNote.hidden = msg === "";
  }

  // fillHarnesses offers the chosen host's harnesses, its default first
  // chosen; one not installed is shown but cannot be picked.
  fillHarnesses() {
    const cfg = this.store.configOf(this.chosenHost());
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

  // addSource checks one path with the host's server and makes its chip;
  // the first folder becomes the chat's folder.
  async addSource({ path, kind }) {
    const params = kind === "folder" ? { additionalDirectories: [path] } : { additionalFiles: [path] };
    const r = await this.call("_acpmux/validate", params);
    const canon = kind === "folder" ? ((r && r.additionalDirectories) || [])[0] : ((r && r.additionalFiles) || [])[0];
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
    const host = this.chosenHost();
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
      const chat = await this.callFor(host, "_acpmux/createAndStart", params);
      this.onCreated(host, chat, "");
    } catch (e) {
      const made = e && e.data && e.data.created;
      if (made && made.id) {
        // Made, but its harness did not start: open it, saying why.
        this.onCreated(host, made, errorText(e));
      } else {
        this.showError(errorText(e));
      }
    } finally {
      this.create.disabled = false;
    }
  }
}
