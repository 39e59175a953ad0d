// json.js: JSON laid out line by line with the line range of every JSONPath
// (contract section 4: $, .name, ['odd key'], [i]), so that violations,
// normalizations and lint findings can be shown where they happened.
"use strict";

const Layout = (() => {
  const ident = /^[A-Za-z_][A-Za-z0-9_]*$/;

  function member(parent, key) {
    return ident.test(key) ? parent + "." + key : parent + "['" + key.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "']";
  }

  // lay returns {lines: [string], at: Map(path -> [first, last])}, lines
  // numbered from 0.
  function lay(value) {
    const lines = [];
    const at = new Map();
    function emit(v, path, depth, prefix, suffix) {
      const ind = "  ".repeat(depth);
      const first = lines.length;
      if (Array.isArray(v) && v.length > 0) {
        lines.push(ind + prefix + "[");
        v.forEach((x, i) => emit(x, path + "[" + i + "]", depth + 1, "", i < v.length - 1 ? "," : ""));
        lines.push(ind + "]" + suffix);
      } else if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0) {
        lines.push(ind + prefix + "{");
        const keys = Object.keys(v);
        keys.forEach((k, i) => emit(v[k], member(path, k), depth + 1, JSON.stringify(k) + ": ", i < keys.length - 1 ? "," : ""));
        lines.push(ind + "}" + suffix);
      } else {
        lines.push(ind + prefix + JSON.stringify(v) + suffix);
      }
      at.set(path, [first, lines.length - 1]);
    }
    emit(value, "$", 0, "", "");
    return { lines, at };
  }

  // split cuts a JSONPath into its segments: "$.a['b c'][2]" -> [".a", "['b c']", "[2]"].
  function split(path) {
    const out = [];
    const re = /\.[A-Za-z_][A-Za-z0-9_]*|\['(?:[^'\\]|\\.)*'\]|\[\d+\]|\.[^.[]+/g;
    let m;
    while ((m = re.exec(path.slice(1))) !== null) out.push(m[0]);
    return out;
  }

  // nearest is the range of path, or of its nearest ancestor laid out.
  function nearest(layout, path) {
    if (!path) return null;
    let segs = split(path);
    while (true) {
      const p = "$" + segs.join("");
      if (layout.at.has(p)) return { path: p, range: layout.at.get(p) };
      if (segs.length === 0) return null;
      segs = segs.slice(0, -1);
    }
  }

  // pointerToPath turns a JSON pointer (/properties/a/0) into a JSONPath.
  function pointerToPath(ptr) {
    let p = "$";
    for (const raw of ptr.split("/").slice(1)) {
      const s = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      p = /^\d+$/.test(s) ? p + "[" + s + "]" : member(p, s);
    }
    return p;
  }

  // locate parses JSON text as written and returns the line (from 0) where
  // each JSONPath starts: a member at its key. null when it is not JSON.
  function locate(text) {
    const at = new Map();
    let i = 0, line = 0;
    const ws = () => {
      while (i < text.length && " \t\r\n".includes(text[i])) { if (text[i] === "\n") line++; i++; }
    };
    const str = () => {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const raw = text.slice(i, j + 1);
      i = j + 1;
      return JSON.parse(raw);
    };
    const value = (path, startLine) => {
      ws();
      if (!at.has(path)) at.set(path, startLine === undefined ? line : startLine);
      const c = text[i];
      if (c === "{") {
        i++; ws();
        if (text[i] === "}") { i++; return; }
        while (i < text.length) {
          ws();
          const keyLine = line;
          const k = str();
          ws(); i++; // the colon
          value(member(path, k), keyLine);
          ws();
          if (text[i++] === "}") return;
        }
      } else if (c === "[") {
        i++; ws();
        if (text[i] === "]") { i++; return; }
        for (let n = 0; i < text.length; n++) {
          value(path + "[" + n + "]");
          ws();
          if (text[i++] === "]") return;
        }
      } else if (c === '"') {
        str();
      } else {
        while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
      }
    };
    try { JSON.parse(text); } catch (e) { return null; }
    value("$");
    return at;
  }

  return { lay, member, split, nearest, pointerToPath, locate };
})();
