// The page's symbols, drawn in SVG: the colors' shapes and a few icons. No symbol comes from a
// font the browser may lack (a system with few fonts showed empty boxes for them).

import { COLORS } from "./board.js";

const NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// A color's shape centered on (x, y), `r` from center to edge: circle, square, triangle, diamond.
export function shape(kind, x, y, r, attrs = {}) {
  if (kind === "circle") return svg("circle", { cx: x, cy: y, r, ...attrs });
  if (kind === "square") return svg("rect", { x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, ...attrs });
  const points =
    kind === "triangle"
      ? [[x, y - r * 1.05], [x + r * 1.1, y + r * 0.85], [x - r * 1.1, y + r * 0.85]]
      : [[x, y - r * 1.2], [x + r, y], [x, y + r * 1.2], [x - r, y]];
  return svg("polygon", { points: points.map((p) => p.map((v) => v.toFixed(2)).join(",")).join(" "), ...attrs });
}

// A color's shape in its fill, outlined: the chip beside a name, the owner's badge.
export function shapeIcon(color) {
  const icon = svg("svg", { class: `shape c${color}`, viewBox: "0 0 12 12", width: 12, height: 12, "aria-hidden": "true", focusable: "false" });
  icon.append(shape(COLORS[color].shape, 6, 6, 4.6, { fill: COLORS[color].fill, stroke: "#1a1a1a", "stroke-width": 1 }));
  return icon;
}

const PATHS = {
  first: "M3 3h2.2v10H3zM13 3v10L6.2 8z",
  back: "M11.5 3v10L4.5 8z",
  forward: "M4.5 3v10l7-5z",
  crown: "M2 13h12v1.6H2zM2 12 1 4.5l3.8 3L8 2l3.2 5.5 3.8-3L14 12z",
  star: "M8 1.5l1.9 4.3 4.6.4-3.5 3 1.1 4.6L8 11.4l-4.1 2.4 1.1-4.6-3.5-3 4.6-.4z",
  more: "M2 7h2.6v2.6H2zM6.7 7h2.6v2.6H6.7zM11.4 7H14v2.6h-2.6z",
  live: "M8 3.5a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9z",
  waiting: "M8 3.5a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9zm0 1.6a2.9 2.9 0 1 0 0 5.8 2.9 2.9 0 0 0 0-5.8z",
};

// An icon (the replay's steps, the tallest's crown, a majority's star...), hidden from screen
// readers: the text beside it says what it means.
export function icon(name, className = "") {
  const node = svg("svg", { class: `icon ${name} ${className}`.trim(), viewBox: "0 0 16 16", "aria-hidden": "true", focusable: "false" });
  node.append(svg("path", { d: PATHS[name], fill: "currentColor", "fill-rule": "evenodd" }));
  return node;
}
