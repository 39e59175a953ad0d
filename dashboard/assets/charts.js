// charts.js: the few charts the dashboard draws, as plain SVG (no library,
// no network). Every chart also states its figures as text: in its
// aria-label, and in a legend or labels people can read and tests can check.
"use strict";

const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmt(n) {
    return Number.isInteger(n) ? String(n) : n.toFixed(1);
  }

  // bars draws labelled horizontal bars, one per row {label, value, cls, key}.
  function bars(rows, title) {
    const rowH = 38, width = 340;
    const max = Math.max(1, ...rows.map(r => r.value));
    const root = svg("svg", { viewBox: `0 0 ${width} ${rows.length * rowH + 4}`, role: "img", class: "chart bars",
      "aria-label": title + ": " + rows.map(r => `${r.label} ${fmt(r.value)}`).join(", ") });
    rows.forEach((r, i) => {
      const y = i * rowH + 2;
      const w = Math.max(2, (width - 44) * r.value / max);
      const g = svg("g", {});
      g.appendChild(svg("title", {}, `${r.label}: ${fmt(r.value)}`));
      g.appendChild(svg("text", { x: 0, y: y + 12, class: "label" }, r.label.length > 48 ? r.label.slice(0, 47) + "…" : r.label));
      g.appendChild(svg("rect", { x: 0, y: y + 17, width: w, height: 16, rx: 3, class: "bar " + (r.cls || "") }));
      g.appendChild(svg("text", { x: w + 6, y: y + 30, class: "value", "data-figure": r.key || r.label }, fmt(r.value)));
      root.appendChild(g);
    });
    return root;
  }

  // stack draws one bar split by parts {label, value, cls}: a mix.
  function stack(parts, title) {
    const width = 600, height = 34;
    const total = parts.reduce((s, p) => s + p.value, 0);
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart stack", preserveAspectRatio: "none",
      "aria-label": title + ": " + parts.map(p => `${p.label} ${fmt(p.value)}`).join(", ") });
    let x = 0;
    for (const p of parts) {
      if (p.value <= 0) continue;
      const w = width * p.value / total;
      const r = svg("rect", { x, y: 0, width: w, height, class: "seg " + p.cls });
      r.appendChild(svg("title", {}, `${p.label}: ${fmt(p.value)} (${Math.round(100 * p.value / total)} %)`));
      root.appendChild(r);
      x += w;
    }
    if (total === 0) root.appendChild(svg("rect", { x: 0, y: 0, width, height, class: "seg none" }));
    return root;
  }

  // ring draws a rate (0..1) as a donut with the percentage in its middle.
  function ring(rate, title) {
    const r = 40, c = 2 * Math.PI * r;
    const root = svg("svg", { viewBox: "0 0 100 100", role: "img", class: "chart ring", "aria-label": `${title}: ${rate === null ? "no retries yet" : Math.round(rate * 100) + " %"}` });
    root.appendChild(svg("circle", { cx: 50, cy: 50, r, class: "track" }));
    if (rate !== null) {
      root.appendChild(svg("circle", { cx: 50, cy: 50, r, class: "fill", "stroke-dasharray": `${c * rate} ${c}`, transform: "rotate(-90 50 50)" }));
    }
    root.appendChild(svg("text", { x: 50, y: 56, "text-anchor": "middle", class: "ring-label" }, rate === null ? "–" : Math.round(rate * 100) + "%"));
    return root;
  }

  // lines draws series {label, cls, points: [[time ms, value]]} over time;
  // each point's dot carries its time and value (data-t, data-value).
  function lines(series, title) {
    const width = 340, height = 160, padL = 26, padB = 20;
    const all = series.flatMap(s => s.points);
    const t0 = Math.min(...all.map(p => p[0])), t1 = Math.max(...all.map(p => p[0]));
    const vmax = Math.max(1, ...all.map(p => p[1]));
    const X = t => padL + (t1 === t0 ? (width - padL) / 2 : (width - padL - 8) * (t - t0) / (t1 - t0));
    const Y = v => (height - padB) - (height - padB - 8) * v / vmax;
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart lines",
      "aria-label": title + ": " + series.map(s => `${s.label} ${fmt(s.points.length ? s.points[s.points.length - 1][1] : 0)}`).join(", ") });
    root.appendChild(svg("line", { x1: padL, y1: Y(0), x2: width, y2: Y(0), class: "axis" }));
    root.appendChild(svg("text", { x: padL - 6, y: Y(vmax) + 4, "text-anchor": "end", class: "tick" }, fmt(vmax)));
    root.appendChild(svg("text", { x: padL - 6, y: Y(0) + 4, "text-anchor": "end", class: "tick" }, "0"));
    const time = t => new Date(t).toLocaleTimeString();
    root.appendChild(svg("text", { x: padL, y: height - 4, class: "tick" }, time(t0)));
    root.appendChild(svg("text", { x: width, y: height - 4, "text-anchor": "end", class: "tick" }, time(t1)));
    for (const s of series) {
      if (s.points.length === 0) continue;
      const pts = s.points.map(p => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
      const pl = svg("polyline", { points: pts, class: "line " + s.cls });
      pl.appendChild(svg("title", {}, s.label));
      root.appendChild(pl);
      const r = s.points.length > 40 ? 1.2 : 2.5;
      for (const p of s.points) root.appendChild(svg("circle", { cx: X(p[0]), cy: Y(p[1]), r, class: "dot " + s.cls, "data-t": p[0], "data-value": p[1] }));
    }
    return root;
  }

  return { bars, stack, ring, lines };
})();
