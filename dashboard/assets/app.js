// app.js: the dashboard's pages, each a function of the route that reads
// the HTTP API (contract section 6) with the token kept in sessionStorage.
"use strict";

const TOKEN_KEY = "agentgate.token";
const FINAL = new Set(["completed", "refused", "failed"]);
const STATUSES = ["pending", "retry_requested", "completed", "refused", "failed"];
let timers = [];

// ---------- the API ----------

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error;
    this.details = (body && body.details) || [];
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)) });
  } catch (e) {
    throw new ApiError(0, { error: "network", message: "the gateway could not be reached (" + e.message + ")" });
  }
  const text = await res.text();
  let data = text;
  if ((res.headers.get("Content-Type") || "").includes("json")) {
    try { data = JSON.parse(text); } catch (e) { /* shown as text */ }
  }
  if (!res.ok) throw new ApiError(res.status, typeof data === "object" ? data : { message: `HTTP ${res.status}: ${text.slice(0, 200)}` });
  return data;
}

// ---------- building the page ----------

function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const main = () => document.getElementById("main");

function show(...nodes) {
  const m = main();
  m.replaceChildren(...nodes);
}

function loading(what) { return h("p", { class: "state loading", role: "status" }, "Loading " + what + "…"); }
function empty(what) { return h("p", { class: "state empty" }, what); }

function errorBox(err, what) {
  const box = h("div", { class: "state error", role: "alert" },
    h("strong", {}, (what ? what + " failed: " : "") + (err.status ? `${err.status} ${err.code || ""} ` : "")),
    err.message);
  if (err.status === 401 || err.status === 403) {
    box.appendChild(h("p", {}, "Enter an API token above (a write token to change things)."));
  }
  return box;
}

function toast(msg) {
  const t = document.getElementById("toast");
  t.textContent = msg;
  t.classList.add("on");
  setTimeout(() => t.classList.remove("on"), 4000);
}

function badge(status) { return h("span", { class: "badge s-" + status }, status.replace("_", " ")); }
function when(ts) { return ts ? new Date(ts).toLocaleString() : "–"; }
function every(ms, fn) { timers.push(setInterval(fn, ms)); }

function table(head, rows, caption) {
  // Each cell names its column, so that a phone can show rows as cards.
  for (const row of rows) [...row.children].forEach((cell, i) => cell.setAttribute("data-label", head[i] || ""));
  return h("div", { class: "scroll" }, h("table", {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, head.map(c => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows)));
}

// code shows a JSON value laid out, with marks: [{path, cls, note}] at their lines.
function code(value, marks, label) {
  const lay = Layout.lay(value);
  const notes = new Map();
  for (const m of marks || []) {
    const n = Layout.nearest(lay, m.path);
    if (!n) continue;
    // A mark whose path is gone (a stripped member) marks its parent's first line only.
    const last = n.path === m.path ? n.range[1] : n.range[0];
    for (let i = n.range[0]; i <= last; i++) {
      const list = notes.get(i) || [];
      if (i === n.range[0]) list.push(m);
      else list.push({ cls: m.cls, cont: true });
      notes.set(i, list);
    }
  }
  const pre = h("pre", { class: "code", tabindex: "0", "aria-label": label || "JSON" });
  lay.lines.forEach((line, i) => {
    const list = notes.get(i);
    const row = h("span", { class: "ln" + (list ? " " + list.map(m => m.cls).join(" ") : "") }, line);
    const heads = (list || []).filter(m => !m.cont);
    if (heads.length) {
      row.setAttribute("data-path", heads[0].path);
      row.appendChild(h("span", { class: "note" }, heads.map(m => m.note).join("; ")));
    }
    pre.appendChild(row);
  });
  return pre;
}

// ---------- routing ----------

const routes = [
  [/^#\/agents\/new$/, () => agentPage(null, "general")],
  [/^#\/agents\/([^/]+)(?:\/([a-z-]+))?$/, (m) => agentPage(decodeURIComponent(m[1]), m[2] || "general")],
  [/^#\/agents$/, agentsPage],
  [/^#\/runs\/(.+)$/, (m) => runPage(decodeURIComponent(m[1]))],
  [/^#\/runs(?:\?(.*))?$/, (m) => runsPage(new URLSearchParams(m[1] || ""))],
  [/^#\/dlq\/(\d+)$/, (m) => letterPage(Number(m[1]))],
  [/^#\/dlq(?:\?(.*))?$/, (m) => dlqPage(new URLSearchParams(m[1] || ""))],
  [/^#\/drift(?:\/([^/]+))?$/, (m) => driftPage(m[1] ? decodeURIComponent(m[1]) : "")],
];

function route() {
  timers.forEach(clearInterval);
  timers = [];
  const hash = location.hash || "#/agents";
  const page = hash.split(/[/?]/)[1];
  document.querySelectorAll("[data-nav]").forEach(a => {
    if (a.dataset.nav === page) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  });
  for (const [re, fn] of routes) {
    const m = hash.match(re);
    if (m) { fn(m); return; }
  }
  show(h("h1", {}, "Not found"), empty("No page " + hash + ". Choose one above."));
}

async function agentNames() {
  const list = await api("GET", "/v1/agents");
  return list.map(b => b.name).sort();
}

// ---------- Agents ----------

async function agentsPage() {
  document.title = "Agents · agentgate";
  show(h("h1", {}, "Agents"), loading("agents"));
  let list;
  try { list = await api("GET", "/v1/agents"); } catch (e) { show(h("h1", {}, "Agents"), errorBox(e, "Listing agents")); return; }
  list.sort((a, b) => a.name.localeCompare(b.name));
  const head = h("div", { class: "bar" }, h("h1", {}, "Agents"), h("a", { class: "button", href: "#/agents/new" }, "New agent"));
  if (list.length === 0) { show(head, empty("No agents yet. Create one with New agent, or put blueprints in the --config folder.")); return; }
  show(head, table(["Agent", "Description", "Output", "Retries"], list.map(b => h("tr", {},
    h("td", {}, h("a", { href: "#/agents/" + encodeURIComponent(b.name) }, b.name)),
    h("td", {}, b.description || ""),
    h("td", { class: "mono" }, typeof b.output_schema === "string" ? b.output_schema : b.output_schema ? "inline schema" : (b.reply || "free text")),
    h("td", { class: "num" }, b.max_retries ?? 1)))));
}

const TABS = [["general", "General"], ["input", "Input Schema"], ["output", "Output Schema"], ["prompt", "Prompt"]];

const NEW_AGENT = {
  name: "", description: "", max_retries: 1, extra_fields: "strip", coerce: true, system_prompt: "",
  output_schema: { type: "object", required: ["summary"], additionalProperties: false, properties: { summary: { type: "string" } } },
};

async function agentPage(name, tab) {
  document.title = (name || "New agent") + " · agentgate";
  const title = h("h1", {}, name ? "Agent " : "New agent", name ? h("span", { class: "mono" }, name) : null);
  show(title, loading("the agent"));
  let bp = structuredClone(NEW_AGENT);
  if (name) {
    try { bp = await api("GET", "/v1/agents/" + encodeURIComponent(name)); } catch (e) { show(title, errorBox(e, "Reading the agent")); return; }
  }
  const tablist = h("div", { role: "tablist", class: "tabs", "aria-label": "Agent" });
  const panel = h("section", { role: "tabpanel", id: "panel", tabindex: "-1" });
  TABS.forEach(([id, label]) => {
    const selected = id === tab;
    const b = h("button", { role: "tab", id: "tab-" + id, "aria-selected": String(selected), "aria-controls": "panel", tabindex: selected ? "0" : "-1",
      disabled: !name && id === "prompt" ? true : undefined,
      onclick: () => { location.hash = name ? `#/agents/${encodeURIComponent(name)}/${id}` : "#/agents/new"; } }, label);
    tablist.appendChild(b);
  });
  tablist.addEventListener("keydown", (ev) => {
    const tabs = [...tablist.querySelectorAll("[role=tab]:not([disabled])")];
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (ev.key === "ArrowRight") j = (i + 1) % tabs.length;
    if (ev.key === "ArrowLeft") j = (i - 1 + tabs.length) % tabs.length;
    if (ev.key === "Home") j = 0;
    if (ev.key === "End") j = tabs.length - 1;
    if (j !== null) { ev.preventDefault(); tabs[j].focus(); tabs[j].click(); }
  });
  panel.setAttribute("aria-labelledby", "tab-" + tab);
  show(h("p", { class: "crumbs" }, h("a", { href: "#/agents" }, "Agents"), " / ", name || "new"), title, tablist, panel);
  if (!name) tab = "general";
  if (tab === "general") generalTab(panel, bp, name);
  else if (tab === "input") inputTab(panel, bp, name);
  else if (tab === "output") outputTab(panel, bp, name);
  else if (tab === "prompt") promptTab(panel, name);
  const sel = tablist.querySelector("[aria-selected=true]");
  if (sel && document.activeElement === document.body) sel.focus();
}

// editor is a JSON text area with line numbers, and the place where lint
// findings and save errors are shown at their lines.
function editor(value, label, id) {
  const text = typeof value === "string" ? value : Layout.lay(value).lines.join("\n");
  const gutter = h("pre", { class: "gutter", "aria-hidden": "true" });
  const area = h("textarea", { id, class: "json", spellcheck: "false", "aria-label": label, autocapitalize: "off", wrap: "off" });
  area.value = text;
  const findings = h("div", { class: "findings", "aria-live": "polite" });
  const ed = { area, findings, marked: new Map() };
  ed.number = () => {
    const n = area.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: n }, (_, i) => h("span", { class: ed.marked.has(i) ? "g " + ed.marked.get(i) : "g" }, String(i + 1))));
    gutter.scrollTop = area.scrollTop;
  };
  area.addEventListener("input", () => { ed.marked.clear(); ed.number(); });
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  area.addEventListener("keydown", (ev) => {
    // Tab indents; Escape leaves the editor, so the keyboard is never trapped.
    if (ev.key === "Tab" && !ev.shiftKey && !ev.ctrlKey && !ev.metaKey && !ed.escaped) {
      ev.preventDefault();
      area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end");
    }
    ed.escaped = ev.key === "Escape";
  });
  ed.node = h("div", {}, h("div", { class: "editor" }, gutter, area),
    h("p", { class: "hint" }, "Tab indents; press Escape then Tab to leave the editor."), findings);
  ed.parse = () => {
    try { return { value: JSON.parse(area.value) }; } catch (e) {
      const m = /position (\d+)/.exec(e.message);
      const line = m ? area.value.slice(0, Number(m[1])).split("\n").length : null;
      return { error: e.message, line };
    }
  };
  ed.goto = (line) => {
    const lines = area.value.split("\n");
    const start = lines.slice(0, line).reduce((s, l) => s + l.length + 1, 0);
    area.focus();
    area.setSelectionRange(start, start + (lines[line] || "").length);
    area.scrollTop = Math.max(0, (line - 3) * 20);
  };
  // show lists findings [{severity, path, message, line}] and marks their lines.
  ed.show = (title, items, cls) => {
    ed.marked.clear();
    for (const f of items) if (f.line !== null && f.line !== undefined) ed.marked.set(f.line, f.severity);
    ed.number();
    findings.replaceChildren(h("div", { class: "panel " + (cls || "") },
      h("h3", {}, title),
      items.length ? h("ul", { class: "finding-list" }, items.map(f => h("li", { class: "f-" + f.severity },
        f.line !== null && f.line !== undefined
          ? h("button", { class: "link", onclick: () => ed.goto(f.line) }, `Line ${f.line + 1}`)
          : h("span", { class: "muted" }, "—"),
        " ", h("span", { class: "sev" }, f.severity), " ",
        f.path ? h("code", {}, f.path) : null, f.path ? " " : null, f.message))) : null));
  };
  // at finds the line of a JSONPath (or of one in the message) in the text
  // as the user wrote it.
  ed.at = (path, message) => {
    const where = Layout.locate(area.value);
    if (!where) return null;
    if (!path && message) {
      const ptr = /(?:^|[\s'"(])(\/(?:properties|items|\$defs|definitions|required|type|enum|allOf|anyOf|oneOf)[^\s'",)]*)/.exec(message);
      const jp = /(\$(?:\.[A-Za-z_][\w]*|\[\d+\]|\['[^']*'\])+)/.exec(message);
      if (jp) path = jp[1]; else if (ptr) path = Layout.pointerToPath(ptr[1]);
    }
    // A blueprint's findings name the member they are in ("output_schema:
    // ... $.properties.n"): try the path under that member too, and keep
    // the deepest place found.
    const candidates = [path || "$"];
    const member = message && /^([A-Za-z_]\w*):/.exec(message);
    if (member && path && path.startsWith("$")) candidates.unshift(Layout.member("$", member[1]) + path.slice(1));
    if (member) candidates.push(Layout.member("$", member[1]));
    let best = null;
    for (const c of candidates) {
      let segs = Layout.split(c);
      while (true) {
        const p = "$" + segs.join("");
        if (where.has(p)) { if (!best || p.length > best.length) best = p; break; }
        if (segs.length === 0) break;
        segs = segs.slice(0, -1);
      }
    }
    return best === null ? null : where.get(best);
  };
  ed.number();
  return ed;
}

async function runLint(ed, kind, docOf) {
  const parsed = ed.parse();
  if (parsed.error) {
    ed.show("Not JSON", [{ severity: "error", message: parsed.error, line: parsed.line === null ? null : parsed.line - 1 }], "bad");
    return false;
  }
  ed.findings.replaceChildren(loading("the lint report"));
  let r;
  try { r = await api("POST", "/v1/lint", { kind, document: docOf(parsed.value) }); } catch (e) { ed.findings.replaceChildren(errorBox(e, "Validating")); return false; }
  const items = r.findings.map(f => ({ severity: f.severity, path: f.path, message: f.message, line: ed.at(f.path, f.message) }));
  if (items.length === 0) ed.show("Valid: the meta-schema check and lint found nothing", [], "good");
  else ed.show(`${r.errors} error${r.errors === 1 ? "" : "s"}, ${r.warnings} warning${r.warnings === 1 ? "" : "s"}`, items, r.errors ? "bad" : "warn");
  return r.errors === 0;
}

function showSaveError(ed, e, what) {
  if (e.details && e.details.length) {
    const items = e.details.map(d => typeof d === "string" ? { severity: "error", message: d, line: null }
      : { severity: d.breaking === false ? "warning" : "error", path: d.path,
          message: [d.against ? `against ${d.against}` : "", d.direction || "", d.keyword ? `(${d.keyword})` : "", d.message || d.error || JSON.stringify(d)].filter(Boolean).join(" "),
          line: ed.at(schemaPathOf(d.path, d.keyword), d.message) });
    ed.show(`${what} refused (${e.status} ${e.code}): ${e.message}`, items, "bad");
  } else {
    ed.findings.replaceChildren(errorBox(e, what));
  }
}

// schemaPathOf turns the path of a breaking change, which is a place in the
// output documents ($.comments[*].line), into the place in the schema that
// describes it ($.properties.comments.items.properties.line), and a required
// change into its required list.
function schemaPathOf(path, keyword) {
  if (!path || !path.startsWith("$")) return path;
  let p = "$";
  for (const seg of Layout.split(path)) {
    if (seg.startsWith("[") && !seg.startsWith("['")) p += ".items";
    else p = Layout.member(Layout.member(p, "properties"), seg.startsWith(".") ? seg.slice(1) : seg.slice(2, -2));
  }
  if (keyword === "required") {
    const segs = Layout.split(p);
    if (segs.length >= 2) return "$" + segs.slice(0, -2).join("") + ".required";
  }
  if (keyword && keyword !== "required" && /^[a-zA-Z]+$/.test(keyword)) return Layout.member(p, keyword);
  return p;
}

function actions(...buttons) { return h("div", { class: "actions" }, buttons); }

function generalTab(panel, bp, name) {
  if (!name) panel.appendChild(h("p", { class: "muted" }, "Write the blueprint (contract section 5); Validate Schema checks it, Create agent registers it."));
  else panel.appendChild(h("dl", { class: "facts" },
    h("dt", {}, "Description"), h("dd", {}, bp.description || "–"),
    h("dt", {}, "Output schema"), h("dd", { class: "mono" }, typeof bp.output_schema === "string" ? bp.output_schema : bp.output_schema ? "inline" : "none"),
    h("dt", {}, "Attempts allowed"), h("dd", {}, String((bp.max_retries ?? 1) + 1)),
    h("dt", {}, "Extra fields"), h("dd", {}, bp.extra_fields || "–")));
  const ed = editor(bp, "Blueprint JSON", "blueprint");
  const save = async () => {
    const parsed = ed.parse();
    if (parsed.error) { ed.show("Not JSON", [{ severity: "error", message: parsed.error, line: parsed.line === null ? null : parsed.line - 1 }], "bad"); return; }
    const doc = parsed.value;
    try {
      const r = name ? await api("PUT", "/v1/agents/" + encodeURIComponent(name), doc) : await api("POST", "/v1/agents", doc);
      toast(`Saved ${r.name}, revision ${r.revision}`);
      if (!name) location.hash = "#/agents/" + encodeURIComponent(r.name);
      else ed.show(`Saved: revision ${r.revision}`, [], "good");
    } catch (e) { showSaveError(ed, e, "Saving"); }
  };
  panel.append(h("h2", {}, "Blueprint"), ed.node,
    actions(h("button", { class: "primary", id: "save-agent", onclick: save }, name ? "Save" : "Create agent"),
      h("button", { id: "validate-agent", onclick: () => runLint(ed, "blueprint", v => v) }, "Validate Schema")));
}

function inputTab(panel, bp, name) {
  panel.appendChild(h("p", { class: "muted" }, "parameters_schema: what the agent is called with (JSON Schema). Saving writes the whole blueprint."));
  const ed = editor(bp.parameters_schema || {}, "Input schema JSON", "input-schema");
  const save = async () => {
    const parsed = ed.parse();
    if (parsed.error) { ed.show("Not JSON", [{ severity: "error", message: parsed.error, line: parsed.line - 1 }], "bad"); return; }
    const doc = structuredClone(bp);
    if (Object.keys(parsed.value).length) doc.parameters_schema = parsed.value; else delete doc.parameters_schema;
    try { const r = await api("PUT", "/v1/agents/" + encodeURIComponent(name), doc); ed.show(`Saved: revision ${r.revision}`, [], "good"); bp.parameters_schema = parsed.value; }
    catch (e) { showSaveError(ed, e, "Saving"); }
  };
  panel.append(ed.node, actions(h("button", { class: "primary", onclick: save }, "Save"),
    h("button", { onclick: () => runLint(ed, "blueprint", v => Object.assign(structuredClone(bp), { parameters_schema: v })) }, "Validate Schema")));
}

async function outputTab(panel, bp, name) {
  const ref = bp.output_schema;
  if (!ref) { panel.appendChild(empty("This agent has no output schema (" + (bp.reply || "free text") + "). Add one on the General tab.")); return; }
  if (typeof ref !== "string") {
    panel.appendChild(h("p", { class: "muted" }, "An inline schema: saving writes the whole blueprint."));
    const ed = editor(ref, "Output schema JSON", "output-schema");
    const save = async () => {
      const parsed = ed.parse();
      if (parsed.error) { ed.show("Not JSON", [{ severity: "error", message: parsed.error, line: parsed.line - 1 }], "bad"); return; }
      try { const r = await api("PUT", "/v1/agents/" + encodeURIComponent(name), Object.assign(structuredClone(bp), { output_schema: parsed.value })); ed.show(`Saved: revision ${r.revision}`, [], "good"); }
      catch (e) { showSaveError(ed, e, "Saving"); }
    };
    panel.append(ed.node, actions(h("button", { class: "primary", id: "save-schema", onclick: save }, "Save"),
      h("button", { id: "validate-schema", onclick: () => runLint(ed, "blueprint", v => Object.assign(structuredClone(bp), { output_schema: v })) }, "Validate Schema")));
    return;
  }
  const status = loading("the schema " + ref);
  panel.appendChild(status);
  let doc;
  try { doc = await api("GET", "/v1/schemas/" + encodeURIComponent(ref)); } catch (e) { status.replaceWith(errorBox(e, "Reading the schema")); return; }
  const cut = ref.lastIndexOf("/");
  const schemaName = ref.slice(0, cut), version = ref.slice(cut + 1);
  status.replaceWith(h("p", { class: "muted" }, "Version ", h("code", {}, version), " of ", h("code", {}, schemaName),
    ". Saving registers the document as a new version (change its $id's version), checked under the name's compatibility level; point the blueprint at it on the General tab."));
  const ed = editor(doc, "Output schema JSON", "output-schema");
  const save = async () => {
    const parsed = ed.parse();
    if (parsed.error) { ed.show("Not JSON", [{ severity: "error", message: parsed.error, line: parsed.line - 1 }], "bad"); return; }
    const id = parsed.value.$id || "";
    const n = id.slice(0, id.lastIndexOf("/")) || schemaName;
    try {
      const r = await api("POST", "/v1/schemas/" + encodeURIComponent(n) + "/versions", parsed.value);
      ed.show(`Registered version ${r.version || ""}`, [], "good");
    } catch (e) { showSaveError(ed, e, "Registering"); }
  };
  panel.append(ed.node, actions(h("button", { class: "primary", id: "save-schema", onclick: save }, "Save as new version"),
    h("button", { id: "validate-schema", onclick: () => runLint(ed, "schema", v => v) }, "Validate Schema")));
}

async function promptTab(panel, name) {
  panel.appendChild(loading("the prompt"));
  try {
    const text = await api("GET", "/v1/agents/" + encodeURIComponent(name) + "/prompt");
    panel.replaceChildren(h("p", { class: "muted" }, "The system prompt as the model gets it, with the output schema as the model sees it."),
      h("pre", { class: "prompt", tabindex: "0", "aria-label": "System prompt" }, text));
  } catch (e) { panel.replaceChildren(errorBox(e, "Reading the prompt")); }
}

// ---------- Runs ----------

async function filterForm(params, base, extra) {
  const agent = h("select", { id: "f-agent", name: "agent" }, h("option", { value: "" }, "all agents"));
  try { (await agentNames()).forEach(n => agent.appendChild(h("option", { value: n, selected: params.get("agent") === n }, n))); } catch (e) { /* the list below reports the API error */ }
  const form = h("form", { class: "filters", role: "search" },
    h("label", { for: "f-agent" }, "Agent"), agent, extra ? extra.map(x => x) : null,
    h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams(new FormData(form));
    for (const [k, v] of [...q]) if (!v) q.delete(k);
    location.hash = base + (q.toString() ? "?" + q : "");
  });
  return form;
}

async function runsPage(params) {
  document.title = "Runs · agentgate";
  const status = h("select", { id: "f-status", name: "status" }, h("option", { value: "" }, "any status"),
    STATUSES.map(s => h("option", { value: s, selected: params.get("status") === s }, s.replace("_", " "))));
  const form = await filterForm(params, "#/runs", [h("label", { for: "f-status" }, "Status"), status]);
  const live = h("button", { type: "button", id: "live", "aria-pressed": "true", class: "toggle" }, "Live");
  const body = h("div", {}, loading("runs"));
  const more = h("div", { class: "more" });
  show(h("div", { class: "bar" }, h("h1", {}, "Runs"), live), form, body, more);
  const q = new URLSearchParams();
  if (params.get("agent")) q.set("agent", params.get("agent"));
  if (params.get("status")) q.set("status", params.get("status"));
  let pages = 1;
  const load = async () => {
    let runs = [], cursor = "", next = "";
    try {
      for (let i = 0; i < pages; i++) {
        const p = new URLSearchParams(q);
        if (cursor) p.set("cursor", cursor);
        const page = await api("GET", "/v1/runs?" + p);
        runs = runs.concat(page.runs);
        next = page.next || "";
        if (!next) break;
        cursor = next;
      }
    } catch (e) { body.replaceChildren(errorBox(e, "Listing runs")); return; }
    if (runs.length === 0) body.replaceChildren(empty("No runs" + (q.toString() ? " match these filters" : " yet") + ". Waiting for outputs…"));
    else body.replaceChildren(table(["Run", "Agent", "Status", "Attempts", "Updated"], runs.map(r => h("tr", { "data-run": r.run_id },
      h("td", { class: "mono" }, h("a", { href: "#/runs/" + encodeURIComponent(r.run_id) }, r.run_id)),
      h("td", {}, r.agent_id), h("td", {}, badge(r.status)), h("td", { class: "num" }, r.attempts), h("td", {}, when(r.updated_at))))));
    more.replaceChildren(...(next ? [h("button", { id: "more", onclick: () => { pages++; load(); } }, "Load more")] : []));
  };
  live.addEventListener("click", () => live.setAttribute("aria-pressed", live.getAttribute("aria-pressed") === "true" ? "false" : "true"));
  await load();
  every(2000, () => { if (live.getAttribute("aria-pressed") === "true") load(); });
}

function violationMarks(violations) {
  return (violations || []).map(v => ({ path: v.path, cls: "m-violation", note: `${v.keyword}: ${v.message}` }));
}

function normalizationMarks(norms) {
  return (norms || []).map(n => {
    let path = n.path, note = n.op;
    if (n.op === "rename") { path = Layout.member(n.path, n.to); note = `renamed from "${n.from}"`; }
    else if (n.op === "strip" || n.op === "drop") { note = `${n.op}: ${n.path}`; path = n.path; }
    else if (n.op === "coerce") note = `coerced ${JSON.stringify(n.from)} → ${JSON.stringify(n.to)}`;
    else if (n.detail) note = `${n.op}: ${n.detail}`;
    return { path, cls: "m-norm m-" + n.op, note };
  });
}

// parseOutput finds the JSON document in a raw output, as far as a browser
// can: the whole text, or a fenced block, or the outermost braces.
function parseOutput(raw) {
  if (typeof raw !== "string") return { ok: false };
  const tries = [raw, (/```(?:json)?\s*([\s\S]*?)```/.exec(raw) || [])[1], raw.slice(raw.indexOf("{"), raw.lastIndexOf("}") + 1)];
  for (const t of tries) {
    if (!t) continue;
    try { return { ok: true, value: JSON.parse(t) }; } catch (e) { /* next */ }
  }
  return { ok: false };
}

function attemptView(o, allowed) {
  const kind = o.event_type;
  const head = h("h3", {}, `Attempt ${o.attempt}${allowed ? " of " + allowed : ""}: `,
    badge(kind === "result" ? "valid" : kind === "retry_requested" ? "retry" : kind === "refusal" ? "refused" : kind));
  const box = h("article", { class: "attempt a-" + kind, "data-attempt": o.attempt, "data-outcome": kind }, head, h("p", { class: "muted" }, when(o.timestamp), o.schema_id ? " · " : "", o.schema_id ? h("code", {}, o.schema_id) : null));
  const validation = o.error && o.error.violations ? o.error : o.validation;
  if (kind === "result") {
    if (o.result_data !== undefined && o.result_data !== null) {
      box.append(h("h4", {}, "result_data"), code(o.result_data, normalizationMarks(o.normalizations), "result_data"));
    } else if (o.result_text) box.append(h("h4", {}, "result_text"), h("pre", { class: "prompt" }, o.result_text));
    box.append(h("h4", {}, `Normalizations (${(o.normalizations || []).length})`),
      (o.normalizations || []).length ? table(["Op", "Path", "From", "To", "Detail"], o.normalizations.map(n => h("tr", { class: "n-" + n.op },
        h("td", {}, n.op), h("td", { class: "mono" }, n.path), h("td", { class: "mono" }, n.from === undefined ? "" : JSON.stringify(n.from)),
        h("td", { class: "mono" }, n.to === undefined ? "" : JSON.stringify(n.to)), h("td", {}, n.detail || "")))) : empty("None: the output was valid as sent."));
  }
  if (kind === "refusal") box.append(h("p", { class: "reason" }, h("strong", {}, "Refused"), o.detection ? ` (detected by ${o.detection})` : "", ": ", o.refusal || ""));
  if (kind === "failed" && o.error) box.append(h("p", { class: "reason" }, h("strong", {}, o.error.type), ": ", o.error.message));
  if (validation && validation.violations) {
    box.append(h("h4", {}, `Violations (${validation.violations.length})`),
      table(["Path", "Keyword", "Message"], validation.violations.map(v => h("tr", {}, h("td", { class: "mono" }, v.path), h("td", {}, v.keyword), h("td", {}, v.message)))));
    const parsed = parseOutput(validation.raw_output);
    box.append(h("h4", {}, "The output, each violation at its path"));
    if (parsed.ok) box.append(code(parsed.value, violationMarks(validation.violations), "Output with violations"));
    else box.append(h("pre", { class: "prompt" }, validation.raw_output || "(no raw output kept)"));
  }
  if (o.retry_prompt) box.append(h("details", {}, h("summary", {}, "Retry prompt sent to the model"), h("pre", { class: "prompt" }, o.retry_prompt)));
  return box;
}

async function runPage(id) {
  document.title = "Run " + id + " · agentgate";
  const title = h("h1", {}, "Run ", h("span", { class: "mono" }, id));
  show(h("p", { class: "crumbs" }, h("a", { href: "#/runs" }, "Runs"), " / ", id), title, loading("the run"));
  const summary = h("div", { id: "run-summary" });
  const list = h("div", { id: "attempts" });
  let drawn = "";
  const load = async () => {
    let st, at, allowed = null;
    try {
      st = await api("GET", "/v1/runs/" + encodeURIComponent(id));
      at = await api("GET", "/v1/runs/" + encodeURIComponent(id) + "/attempts");
    } catch (e) { main().replaceChildren(title, errorBox(e, "Reading the run")); return true; }
    try { const bp = await api("GET", "/v1/agents/" + encodeURIComponent(st.agent_id)); allowed = (bp.max_retries ?? 1) + 1; } catch (e) { /* unknown agent */ }
    const key = JSON.stringify([st.status, st.attempts, at.attempts.length]);
    if (key === drawn) return FINAL.has(st.status);
    drawn = key;
    const exhausted = st.status === "failed" && allowed && st.attempts >= allowed;
    summary.replaceChildren(h("dl", { class: "facts" },
      h("dt", {}, "Status"), h("dd", { id: "run-status" }, badge(st.status), FINAL.has(st.status) ? null : h("span", { class: "muted" }, " (watching for the next attempt…)")),
      h("dt", {}, "Agent"), h("dd", {}, h("a", { href: "#/agents/" + encodeURIComponent(st.agent_id) }, st.agent_id)),
      h("dt", {}, "Attempts"), h("dd", { id: "run-attempts" }, allowed ? `Retry attempts: ${Math.max(0, st.attempts - 1)}/${allowed - 1}${exhausted ? " exhausted" : ""} (attempts ${st.attempts} of ${allowed})` : String(st.attempts)),
      h("dt", {}, "Updated"), h("dd", {}, when(st.updated_at))));
    list.replaceChildren(...(at.attempts.length ? at.attempts.map(a => attemptView(a.outcome, allowed)) : [empty("No outcome published yet.")]));
    main().replaceChildren(h("p", { class: "crumbs" }, h("a", { href: "#/runs" }, "Runs"), " / ", id), title, summary, h("h2", {}, "Attempts"), list);
    return FINAL.has(st.status);
  };
  const done = await load();
  if (!done) every(1500, load);
}

// ---------- Dead letters ----------

// The dead-letter list reads at most DLQ_PAGES pages of DLQ_PAGE letters;
// a bulk replay replays the newest BULK_MAX of them.
const DLQ_PAGE = 1000, DLQ_PAGES = 10, BULK_MAX = 1000;

async function dlqPage(params) {
  document.title = "Dead letters · agentgate";
  const form = await filterForm(params, "#/dlq");
  const body = h("div", {}, loading("dead letters"));
  const agent = params.get("agent") || "";
  // Disabled until the letters are listed and the click replays them: an
  // early click would otherwise do nothing.
  const bulk = agent ? h("button", { id: "replay-all", class: "primary", disabled: true }, `Replay every dead letter of ${agent}`) : h("p", { class: "muted" }, "Filter by an agent to replay its dead letters together.");
  const report = h("div", { "aria-live": "polite" });
  show(h("h1", {}, "Dead letters"), form, h("div", { class: "actions" }, bulk), report, body);
  // The API pages oldest first: read its pages to the end, at most
  // DLQ_PAGES of them, and show the newest first.
  const letters = [];
  let after = 0, more = true;
  try {
    for (let i = 0; i < DLQ_PAGES && more; i++) {
      const q = new URLSearchParams({ limit: String(DLQ_PAGE) });
      if (agent) q.set("agent", agent);
      if (after) q.set("after", String(after));
      const page = await api("GET", "/v1/dlq?" + q);
      letters.push(...page.dead_letters);
      more = page.more && page.dead_letters.length > 0;
      if (page.dead_letters.length) after = page.dead_letters[page.dead_letters.length - 1].seq;
    }
  } catch (e) { body.replaceChildren(errorBox(e, "Listing dead letters")); return; }
  letters.reverse();
  if (letters.length === 0) { body.replaceChildren(empty("No dead letters" + (agent ? " for " + agent : "") + ".")); if (agent) bulk.disabled = true; return; }
  body.replaceChildren(table(["Seq", "Agent", "Run", "Type", "Reason", "When"], letters.map(l => {
    const d = l.dead_letter;
    return h("tr", { "data-seq": l.seq },
      h("td", { class: "num" }, h("a", { href: "#/dlq/" + l.seq }, "#" + l.seq)), h("td", {}, d.agent_id || "–"), h("td", { class: "mono" }, d.run_id || "–"),
      h("td", {}, h("span", { class: "badge s-failed" }, d.error ? d.error.type : "?")), h("td", {}, d.error ? d.error.message : ""), h("td", {}, when(d.timestamp)));
  }), more ? `The oldest ${letters.length} dead letters, newest first; later ones follow #${after} (agentgate dlq list shows them all)` : "Newest first"));
  if (agent) {
    bulk.addEventListener("click", async () => {
      bulk.disabled = true;
      const rows = [];
      const now = new Map(); // run -> its status since the replay
      const draw = () => report.replaceChildren(table(["Seq", "Result", "Run", "Run now"], rows.map(([s, res, run]) => h("tr", { "data-replayed": s },
        h("td", {}, "#" + s), h("td", {}, res),
        h("td", { class: "mono" }, run ? h("a", { href: "#/runs/" + encodeURIComponent(run) }, run) : "–"),
        h("td", {}, res === "replayed" ? (now.has(run) ? badge(now.get(run)) : h("span", { class: "muted" }, "waiting…")) : "–"))),
        `Replayed ${rows.filter(r => r[1] === "replayed").length} of ${todo.length}` + (todo.length < letters.length ? ` (the newest ${BULK_MAX}; replay again for more)` : "")));
      // Bounded: the newest BULK_MAX, one request at a time.
      const todo = letters.slice(0, BULK_MAX);
      for (const l of todo) {
        try { const r = await api("POST", `/v1/dlq/${l.seq}/replay`, ""); rows.push([l.seq, "replayed", r.run_id, Date.now()]); }
        catch (e) { rows.push([l.seq, `${e.status} ${e.code}: ${e.message}`, l.dead_letter.run_id]); }
        draw();
      }
      bulk.disabled = false;
      // Show each replayed run's new status as it arrives: one sweep at a
      // time, and a run that has reached a final status since its replay
      // is not asked again.
      let sweeping = false;
      every(1500, async () => {
        if (sweeping) return;
        sweeping = true;
        try {
          for (const [, res, run, at] of rows) {
            if (res !== "replayed" || FINAL.has(now.get(run))) continue;
            try {
              const st = await api("GET", "/v1/runs/" + encodeURIComponent(run));
              if (Date.parse(st.updated_at) >= at - 1000 || st.status !== "failed") now.set(run, st.status);
            } catch (e) { /* the link still leads to the run */ }
          }
          draw();
        } finally { sweeping = false; }
      });
    });
    bulk.disabled = false;
  }
}

async function letterPage(seq) {
  document.title = "Dead letter " + seq + " · agentgate";
  const title = h("h1", {}, "Dead letter #" + seq);
  show(h("p", { class: "crumbs" }, h("a", { href: "#/dlq" }, "Dead letters"), " / #" + seq), title, loading("the dead letter"));
  let l;
  try { l = await api("GET", "/v1/dlq/" + seq); } catch (e) { main().replaceChildren(title, errorBox(e, "Reading the dead letter")); return; }
  const d = l.dead_letter;
  const raw = d.raw || {};
  const payload = raw.payload !== undefined ? raw.payload : raw.payload_base64 !== undefined ? "(base64) " + raw.payload_base64 : "(not kept)";
  const outcome = h("div", { id: "replay-outcome", "aria-live": "polite" });
  const replay = h("button", { class: "primary", id: "replay" }, "Replay");
  replay.addEventListener("click", async () => {
    replay.disabled = true;
    outcome.replaceChildren(loading("the replay"));
    let r;
    try { r = await api("POST", `/v1/dlq/${seq}/replay`, ""); } catch (e) { outcome.replaceChildren(errorBox(e, "Replaying")); replay.disabled = false; return; }
    outcome.replaceChildren(h("p", { class: "state loading" }, `Replayed as raw #${r.stream_seq} on ${r.subject}; waiting for the new outcome of run ${r.run_id}…`));
    const started = Date.now();
    const poll = async () => {
      let st;
      try { st = await api("GET", "/v1/runs/" + encodeURIComponent(r.run_id)); } catch (e) { return; }
      const o = st.outcome || {};
      if (o.timestamp && new Date(o.timestamp).getTime() >= new Date(d.timestamp).getTime() && (st.status !== "failed" || o.attempt > d.attempt || Date.parse(st.updated_at) > Date.parse(d.timestamp) + 1)) {
        timers.forEach(clearInterval);
        timers = [];
        outcome.replaceChildren(h("div", { class: "panel " + (st.status === "completed" ? "good" : "bad"), id: "new-outcome" }, h("h3", {}, "New outcome: ", badge(st.status)),
          h("p", {}, h("a", { href: "#/runs/" + encodeURIComponent(r.run_id) }, "Open run " + r.run_id)), attemptView(o, null)));
      } else if (Date.now() - started > 60000) {
        outcome.replaceChildren(h("p", { class: "state error" }, "No new outcome within a minute: is the gateway processing? Open the run to keep watching."));
        timers.forEach(clearInterval);
      }
    };
    every(1000, poll);
  });
  main().replaceChildren(h("p", { class: "crumbs" }, h("a", { href: "#/dlq" }, "Dead letters"), " / #" + seq), title,
    h("dl", { class: "facts" },
      h("dt", {}, "Type"), h("dd", {}, h("span", { class: "badge s-failed" }, d.error ? d.error.type : "?")),
      h("dt", {}, "Reason"), h("dd", {}, d.error ? d.error.message : "–"),
      h("dt", {}, "Agent"), h("dd", {}, d.agent_id || "–"),
      h("dt", {}, "Run"), h("dd", {}, d.run_id ? h("a", { href: "#/runs/" + encodeURIComponent(d.run_id) }, d.run_id) : "–"),
      h("dt", {}, "Attempt"), h("dd", {}, String(d.attempt ?? "–")),
      h("dt", {}, "When"), h("dd", {}, when(d.timestamp))),
    actions(replay), outcome,
    d.error && d.error.validation_errors && d.error.validation_errors.length ? h("section", {}, h("h2", {}, "Validation errors"), h("ul", {}, d.error.validation_errors.map(v => h("li", { class: "mono" }, v)))) : null,
    h("h2", {}, "Raw output"), h("pre", { class: "prompt", id: "raw-output", tabindex: "0" }, typeof payload === "string" ? payload : JSON.stringify(payload, null, 2)),
    h("h2", {}, "Headers"), table(["Header", "Value"], Object.entries(raw.headers || {}).map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", { class: "mono" }, Array.isArray(v) ? v.join(", ") : String(v))))),
    h("details", {}, h("summary", {}, "The whole dead letter (JSON)"), code(d, [], "Dead letter")));
}

// ---------- Drift ----------

const OUTCOMES = [["valid", "valid", "o-valid"], ["retry", "retry", "o-retry"], ["refused", "refused", "o-refused"], ["dlq", "dead letter", "o-dlq"]];

// counts are an outcomes map's figures, every outcome present.
function counts(outcomes) {
  return Object.fromEntries(OUTCOMES.map(([k]) => [k, (outcomes || {})[k] || 0]));
}

async function driftPage(agent) {
  document.title = "Drift · agentgate";
  let names = [];
  try { names = await agentNames(); } catch (e) { show(h("h1", {}, "Drift"), errorBox(e, "Listing agents")); return; }
  if (!agent && names.length) { location.replace("#/drift/" + encodeURIComponent(names[0])); return; }
  const pick = h("select", { id: "drift-agent", "aria-label": "Agent" }, names.map(n => h("option", { value: n, selected: n === agent }, n)));
  pick.addEventListener("change", () => { location.hash = "#/drift/" + encodeURIComponent(pick.value); });
  const body = h("div", { id: "drift" }, loading("the drift of " + agent));
  show(h("div", { class: "bar" }, h("h1", {}, "Drift"), h("label", { class: "inline" }, "Agent ", pick)), body);
  if (!agent) { body.replaceChildren(empty("No agents.")); return; }
  // The readings this page took since the gateway's last sample: the
  // chart is the gateway's history (kept across reloads), then these.
  const live = [];
  const load = async () => {
    let d;
    try { d = await api("GET", "/v1/drift?agent=" + encodeURIComponent(agent)); } catch (e) { body.replaceChildren(errorBox(e, "Reading the drift")); return; }
    const kept = (d.history || []).map(p => ({ t: Date.parse(p.t), c: counts(p.outcomes) })).filter(p => !Number.isNaN(p.t));
    const lastT = kept.length ? kept[kept.length - 1].t : -Infinity;
    while (live.length && live[0].t <= lastT) live.shift();
    const c = counts(d.outcomes);
    live.push({ t: Math.max(Date.now(), lastT + 1), c });
    while (live.length > 240) live.shift();
    const hist = kept.concat(live);
    const total = OUTCOMES.reduce((s, [k]) => s + c[k], 0);
    const retried = Object.values(d.retries).reduce((s, v) => s + v, 0);
    const rate = retried ? (d.retries.valid || 0) / retried : null;
    const card = (title, ...kids) => h("section", { class: "card" }, h("h2", {}, title), ...kids);
    const rows = (list, key) => list.map(r => ({ label: (r.keyword ? r.keyword + " " : "") + r.path, value: r.count, key: key + ":" + (r.keyword ? r.keyword + " " : "") + r.path, cls: key }));
    const legendItem = ([k, label, cls]) => h("li", {}, h("span", { class: "swatch " + cls }), `${label} `, h("strong", { "data-metric": "outcomes." + k }, String(c[k])),
      total ? h("span", { class: "muted" }, ` (${Math.round(100 * c[k] / total)} %)`) : null);
    body.replaceChildren(
      h("p", { class: "muted", id: "drift-note" }, `Totals since the gateway started, from /metrics (${total} outcomes); the line chart shows the ${kept.length} samples the gateway keeps` +
        (kept.length ? ` (since ${new Date(kept[0].t).toLocaleTimeString()})` : "") + `, then this page's readings.`),
      h("div", { class: "grid" },
        card("Outcome mix", Charts.stack(OUTCOMES.map(([k, label, cls]) => ({ label, value: c[k], cls })), "Outcome mix"),
          h("ul", { class: "legend" }, OUTCOMES.map(legendItem))),
        card("Retry success rate", h("div", { class: "ring-row" }, Charts.ring(rate, "Retry success rate"),
          h("p", {}, h("strong", { "data-metric": "retries.valid" }, String(d.retries.valid || 0)), " valid of ",
            h("strong", { "data-metric": "retries.total" }, String(retried)), " attempts after the first"))),
        card("Outcomes over time", hist.length > 1 ? Charts.lines(OUTCOMES.map(([k, label, cls]) => ({ label, cls, points: hist.map(s => [s.t, s.c[k]]) })), "Outcomes over time")
          : empty("One sample so far; the chart fills in as outcomes arrive."),
          hist.length > 1 ? h("ul", { class: "legend" }, OUTCOMES.map(([, label, cls]) => h("li", {}, h("span", { class: "swatch " + cls }), label))) : null),
        card("Top aliases renamed", d.renamed.length ? Charts.bars(rows(d.renamed, "renamed"), "Renamed") : empty("No renames.")),
        card("Fields stripped", d.stripped.length ? Charts.bars(rows(d.stripped, "stripped"), "Stripped") : empty("Nothing stripped.")),
        card("Violations by keyword and path", d.violations.length ? Charts.bars(rows(d.violations, "violation"), "Violations") : empty("No violations."))));
  };
  await load();
  every(5000, load);
}

// ---------- start ----------

function initToken() {
  const form = document.getElementById("token-form");
  const input = document.getElementById("token");
  const state = document.getElementById("token-state");
  const say = () => { state.textContent = sessionStorage.getItem(TOKEN_KEY) ? "token set" : "no token"; };
  input.value = sessionStorage.getItem(TOKEN_KEY) || "";
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (input.value.trim()) sessionStorage.setItem(TOKEN_KEY, input.value.trim()); else sessionStorage.removeItem(TOKEN_KEY);
    say();
    route();
  });
  say();
}

window.addEventListener("hashchange", () => { route(); main().focus({ preventScroll: true }); });
initToken();
route();
