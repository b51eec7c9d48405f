// The board as a skyline: six neighborhoods of nine blocks, coordinates on the top and left
// edges, and every building drawn as its stacked floors, each piece in its owner's color with
// the color's shape on it, the building's owner on a badge and its height in figures; the
// tallest crowned, the monster marked, the last build ringed and its piece dropping in (not
// with reduced motion: style.css). Screen readers read each block's label: its name, height,
// floors by color, owner and marks.

import { COLORS, HOODS, blockName, boardCell, cellBlock, colorName, columnName, height, majorityOf, owner, tallestKey } from "./board.js";
import { t } from "./i18n.js";
import { chip, el } from "./nodes.js";
import { icon, shape, svg } from "./icons.js";

// The drawing's frame (a 48 x 48 block): the front face of a tower, its side going back to the
// right, the ground line and the room a tower may take, in the middle band; the marks keep to
// the side bands (x < 10.5 and x > 34.5), so none ever covers a tower.
const FRONT = [11, 27];
const DEPTH = [7, 5];
const GROUND = 46.5;
const ROOM = 39;
const FLOOR_MAX = 6.5;

// The coordinates on the board's top edge (A..I) and left edge (1..6).
function edges() {
  const out = [el("span", "edge corner")];
  for (let h = 0; h < 3; h++) {
    const top = el("div", "edge top");
    top.style.gridColumn = String(h + 2);
    for (let c = 0; c < 3; c++) top.append(el("span", "", columnName(h * 3 + c)));
    out.push(top);
  }
  for (let h = 0; h < 2; h++) {
    const left = el("div", "edge left");
    left.style.gridRow = String(h + 2);
    for (let r = 0; r < 3; r++) left.append(el("span", "", String(h * 3 + r + 1)));
    out.push(left);
  }
  for (const edge of out) edge.setAttribute("aria-hidden", "true");
  return out;
}

// The board. `marks(n, b)` returns {legal, allowed, pointed, selected, why} for a block;
// `last` is the last build's block ("n:b"), `dropped` the block whose top piece drops in now;
// `onBlock(n, b, byKeyboard)` is called when a block is pressed.
export function drawBoard(container, view, { marks = () => ({}), onBlock = () => {}, last = null, dropped = null } = {}) {
  const tallest = tallestKey(view.board);
  const monster = view.monster ? `${view.monster[0]}:${view.monster[1] * 3 + view.monster[2]}` : null;
  const hoods = view.board.map((blocks, n) => {
    const box = el("section", "hood");
    box.dataset.neighborhood = String(n);
    box.style.gridRow = String(Math.floor(n / 3) + 2);
    box.style.gridColumn = String((n % 3) + 2);
    const majority = majorityOf(blocks);
    const title = el("h3", "", HOODS[n]);
    if (majority !== null) {
      box.classList.add("majority");
      box.style.setProperty("--owner", COLORS[majority].fill);
      title.append(" ", chip(majority, false));
      title.title = t("board.majority", { color: colorName(majority) });
    }
    const grid = el("div", "blocks");
    blocks.forEach((building, b) => {
      const key = `${n}:${b}`;
      const flags = { tallest: key === tallest, monster: key === monster, last: key === last, dropped: key === dropped };
      const block = drawBlock(n, b, building, flags);
      const mark = marks(n, b);
      if (mark.legal) block.classList.add("legal");
      else if (mark.allowed) block.classList.add("allowed");
      if (mark.selected) block.classList.add("chosen");
      if (mark.pointed) block.classList.add("pointed");
      if (mark.why) block.dataset.why = mark.why;
      block.addEventListener("click", (event) => onBlock(n, b, event.detail === 0));
      grid.append(block);
    });
    box.append(title, grid);
    return box;
  });
  container.setAttribute("role", "group");
  container.setAttribute("aria-label", t("board.label"));
  const focused = document.activeElement?.closest?.("#board .block");
  const focusKey = focused ? `${focused.dataset.n}:${focused.dataset.b}` : null;
  container.replaceChildren(...edges(), ...hoods);
  rovingFocus(container, focusKey);
}

// One block in the tab order (the focused one, the chosen one, a lit one or the first); arrow
// keys move across the whole 6 x 9 board; Enter or Space press the block (a button).
function rovingFocus(container, focusKey) {
  const blocks = [...container.querySelectorAll(".block")];
  const at = (key) => blocks.find((b) => `${b.dataset.n}:${b.dataset.b}` === key);
  const current = at(focusKey) ?? container.querySelector(".block.chosen, .block.legal") ?? blocks[0];
  for (const block of blocks) block.tabIndex = block === current ? 0 : -1;
  if (focusKey && current) current.focus();
  if (container.dataset.keys) return;
  container.dataset.keys = "on";
  container.addEventListener("keydown", (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = moves[event.key];
    const block = event.target.closest(".block");
    if (!step || !block) return;
    event.preventDefault();
    const [row, col] = boardCell(Number(block.dataset.n), Number(block.dataset.b));
    const [n, b] = cellBlock(Math.min(5, Math.max(0, row + step[0])), Math.min(8, Math.max(0, col + step[1])));
    const next = container.querySelector(`.block[data-n="${n}"][data-b="${b}"]`);
    for (const other of container.querySelectorAll(".block")) other.tabIndex = other === next ? 0 : -1;
    next?.focus();
  });
}

function blockLabel(n, b, building) {
  const name = blockName(n, b);
  if (!building.length) return t("block.empty", { name });
  const floorsBy = [0, 0, 0, 0];
  for (const [color, floors] of building) floorsBy[color] += floors;
  const parts = floorsBy.map((f, c) => (f ? `${colorName(c)} ${f}` : "")).filter(Boolean);
  return t("block.built", { name, floors: t("floors", { n: height(building) }), parts: parts.join(", "), owner: colorName(owner(building)) });
}

// One piece of a tower: its front and side faces from `bottom` up `rise` units, its floors'
// lines, its color's shape on the front when there is room for it.
function drawPiece(color, floors, bottom, unit) {
  const [left, right] = FRONT;
  const [dx, dy] = DEPTH;
  const rise = floors * unit;
  const top = bottom - rise;
  const { fill, ink } = COLORS[color];
  const g = svg("g", { class: `piece c${color}` });
  const side = [[right, bottom], [right + dx, bottom - dy], [right + dx, top - dy], [right, top]];
  const pts = (list) => list.map((p) => p.join(",")).join(" ");
  g.append(
    svg("rect", { x: left, y: top, width: right - left, height: rise, fill }),
    svg("polygon", { points: pts(side), fill }),
    svg("polygon", { points: pts(side), fill: "#000", "fill-opacity": 0.3 }),
  );
  if (unit >= 1.8) {
    for (let k = 1; k < floors; k++) {
      const y = bottom - k * unit;
      g.append(svg("path", { d: `M${left} ${y}H${right}l${dx} ${-dy}`, stroke: "#000", "stroke-opacity": 0.25, "stroke-width": 0.5, fill: "none" }));
    }
  }
  g.append(svg("path", { d: `M${left} ${top}H${right}l${dx} ${-dy}`, stroke: "#1a1a1a", "stroke-width": 0.8, fill: "none" }));
  if (rise >= 5.5) g.append(shape(COLORS[color].shape, (left + right) / 2, bottom - rise / 2, Math.min(3.6, rise / 2 - 1), { fill: ink, class: "floor-shape" }));
  return g;
}

// A building as a tower of its pieces, the first at the bottom, scaled to fit the block.
function drawTower(building, dropped) {
  const h = height(building);
  const unit = Math.min(FLOOR_MAX, ROOM / h);
  const [left, right] = FRONT;
  const [dx, dy] = DEPTH;
  const tower = svg("g", { class: "tower-stack" });
  let bottom = GROUND;
  building.forEach(([color, floors], i) => {
    const piece = drawPiece(color, floors, bottom, unit);
    if (dropped && i === building.length - 1) piece.classList.add("drop");
    tower.append(piece);
    bottom -= floors * unit;
  });
  const top = bottom;
  const roof = [[left, top], [right, top], [right + dx, top - dy], [left + dx, top - dy]];
  const roofColor = COLORS[owner(building)].fill;
  const points = roof.map((p) => p.join(",")).join(" ");
  tower.append(svg("polygon", { points, fill: roofColor, class: "roof" }), svg("polygon", { points, fill: "#fff", "fill-opacity": 0.35 }));
  const outline = `M${left} ${GROUND}V${top}l${dx} ${-dy}H${right + dx}V${GROUND - dy}L${right} ${GROUND}H${left}`;
  tower.append(svg("path", { d: outline, fill: "none", stroke: "#1a1a1a", "stroke-width": 0.9, "stroke-linejoin": "round" }));
  return tower;
}

// The marks around a tower, each in a corner of the side bands: the crown top left, the
// monster bottom left, the owner's badge top right, the height bottom right.
function drawMarks(picture, building, { tallest, monster }) {
  if (tallest) {
    const crown = svg("g", { class: "crown" });
    crown.append(svg("rect", { x: 0.5, y: 0.5, width: 10, height: 9.5, rx: 2.2, fill: "#ffe9a8", stroke: "#7a5a00", "stroke-width": 0.7 }));
    const path = icon("crown").firstChild;
    path.setAttribute("transform", "translate(1.2 0.6) scale(0.54)");
    path.setAttribute("fill", "#5c4300");
    crown.append(path);
    picture.append(crown);
  }
  if (monster) {
    const mark = svg("g", { class: "monster-mark" });
    mark.append(svg("circle", { cx: 5.3, cy: 41.8, r: 4.9, fill: "#6a2c91", stroke: "#fff", "stroke-width": 0.8 }));
    const letter = svg("text", { x: 5.3, y: 44.4, "text-anchor": "middle", "font-size": 7, "font-weight": 700, fill: "#fff" });
    letter.textContent = "M";
    mark.append(letter);
    picture.append(mark);
  }
  if (!building.length) return;
  const top = owner(building);
  const badge = svg("g", { class: `owner c${top}` });
  badge.append(svg("rect", { x: 37, y: 0.6, width: 10.4, height: 10.4, rx: 2.2, fill: COLORS[top].fill, stroke: "#1a1a1a", "stroke-width": 0.9 }));
  badge.append(shape(COLORS[top].shape, 42.2, 5.8, 3.1, { fill: COLORS[top].ink }));
  const figure = svg("g", { class: "height" });
  const h = String(height(building));
  const width = 2.6 + h.length * 5.2;
  figure.append(svg("rect", { x: 47.5 - width, y: 37.5, width, height: 10, rx: 2.2, fill: tallest ? "#7a5a00" : "#fff", stroke: "#1a1a1a", "stroke-width": 0.6 }));
  const text = svg("text", { x: 46.2, y: 45.6, "text-anchor": "end", "font-size": 9.2, "font-weight": 800, fill: tallest ? "#fff" : "#22252b" });
  text.textContent = h;
  figure.append(text);
  picture.append(badge, figure);
}

function drawBlock(n, b, building, { tallest, monster, last, dropped }) {
  const block = el("button", "block");
  block.type = "button";
  block.dataset.n = String(n);
  block.dataset.b = String(b);
  block.dataset.spot = String(b);
  block.dataset.name = blockName(n, b);
  let label = blockLabel(n, b, building);
  const picture = svg("svg", { class: "lot", viewBox: "0 0 48 48", "aria-hidden": "true", focusable: "false" });
  if (building.length) {
    block.classList.add("built");
    block.style.setProperty("--owner", COLORS[owner(building)].fill);
    block.dataset.height = String(height(building));
    picture.append(drawTower(building, dropped));
  }
  drawMarks(picture, building, { tallest, monster });
  block.append(picture);
  if (tallest) {
    block.classList.add("tallest");
    label += t("block.tallest");
  }
  if (monster) {
    block.classList.add("monster");
    label += t("block.monster");
  }
  if (last) {
    block.classList.add("last");
    label += t("block.last");
  }
  block.dataset.label = label;
  block.title = label;
  block.setAttribute("aria-label", label);
  return block;
}

// A card in hand: a 3x3 grid with its position marked, as the holder sees it from their seat.
export function drawCard(position, { chosen = false, onClick, onHover, label } = {}) {
  const card = el("button", "card");
  card.type = "button";
  card.dataset.card = String(position);
  card.title = label ?? t("card.label", { spot: t(`spot.${position}`) });
  card.setAttribute("aria-label", card.title);
  if (chosen) card.classList.add("chosen");
  for (let i = 0; i < 9; i++) {
    const dot = el("span", i === position ? "on" : "");
    dot.setAttribute("aria-hidden", "true");
    card.append(dot);
  }
  if (onClick) card.addEventListener("click", onClick);
  if (onHover) {
    card.addEventListener("mouseenter", () => onHover(position));
    card.addEventListener("mouseleave", () => onHover(null));
    card.addEventListener("focus", () => onHover(position));
    card.addEventListener("blur", () => onHover(null));
  }
  return card;
}
