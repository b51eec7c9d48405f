// Drawing the board, the same way up for everyone at the table: neighborhoods 0 1 2 over 3 4 5
// (RULES §9 [D11]), columns A to I and rows 1 to 6 printed on its edges, so every block has one
// name ("Cairo E2") for every seat, in the log and in the chat. Cards stay as their holder
// reads them from their own side of the board (RULES §2): `rotate` in state.js says which
// block a card designates from a seat.

import { t } from "./i18n.js";

export const HOODS = ["Manhattan", "Cairo", "São Paulo", "Frankfurt", "Sydney", "Hong Kong"];
// Colors with a name and a shape each, so nothing depends on telling the fills apart.
export const COLORS = [
  { key: "red", fill: "#d1495b", shape: "●" },
  { key: "blue", fill: "#2e6fd8", shape: "■" },
  { key: "green", fill: "#2a9d5c", shape: "▲" },
  { key: "yellow", fill: "#f2c14e", shape: "◆" },
];
export const colorName = (c) => t(`color.${COLORS[c].key}`);
export const spotName = (spot) => t(`spot.${spot}`);
const COLUMNS = "ABCDEFGHI";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// A color chip: the shape in the color, then its name.
export function chip(color, withName = true) {
  const span = el("span", "chip");
  const shape = el("span", `shape c${color}`, COLORS[color].shape);
  shape.setAttribute("aria-hidden", "true");
  span.append(shape);
  if (withName) span.append(colorName(color));
  else {
    span.title = colorName(color);
    span.append(el("span", "sr-only", colorName(color)));
  }
  return span;
}

// Board-frame coordinates of block b of neighborhood n: [row 0..5, column 0..8].
export function boardCell(n, b) {
  return [Math.floor(n / 3) * 3 + Math.floor(b / 3), (n % 3) * 3 + (b % 3)];
}
// The block's one name: its neighborhood and its coordinates on the board's edges.
export function blockName(n, b) {
  const [row, col] = boardCell(n, b);
  return `${HOODS[n]} ${COLUMNS[col]}${row + 1}`;
}

export const height = (building) => building.reduce((sum, [, floors]) => sum + floors, 0);
export const owner = (building) => (building.length ? building[building.length - 1][0] : null);

// The one tallest building (RULES §7.3: a tie means nobody's), as "n:b", or null.
export function tallestKey(board) {
  let best = 0;
  let where = null;
  let tie = false;
  board.forEach((blocks, n) =>
    blocks.forEach((building, b) => {
      const h = height(building);
      if (h > best) [best, where, tie] = [h, `${n}:${b}`, false];
      else if (h === best && h > 0) tie = true;
    }),
  );
  return tie ? null : where;
}

// Each neighborhood's majority color (most buildings owned, alone), or null.
export function majorityOf(blocks) {
  const counts = [0, 0, 0, 0];
  for (const building of blocks) if (building.length) counts[owner(building)] += 1;
  const best = Math.max(...counts);
  return best > 0 && counts.filter((k) => k === best).length === 1 ? counts.indexOf(best) : null;
}

// The coordinates on the board's top edge (A..I) and left edge (1..6).
function edges() {
  const out = [el("span", "edge corner")];
  for (let h = 0; h < 3; h++) {
    const top = el("div", "edge top");
    top.style.gridColumn = String(h + 2);
    for (let c = 0; c < 3; c++) top.append(el("span", "", COLUMNS[h * 3 + c]));
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

// The board. `marks(n, b)` returns {legal, allowed, pointed, selected, why} for a block: legal
// (a build with the chosen piece), allowed (a card in hand designates it), pointed (the card
// under the pointer does), selected (the block clicked). `last` is the last move's "n:b".
export function drawBoard(container, view, marks, onBlock, last = null) {
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
      const block = drawBlock(n, b, building, { tallest: key === tallest, monster: key === monster, last: key === last });
      const mark = marks(n, b);
      if (mark.legal) block.classList.add("legal");
      else if (mark.allowed) block.classList.add("allowed");
      if (mark.selected) block.classList.add("chosen");
      if (mark.pointed) block.classList.add("pointed");
      if (mark.why) block.dataset.why = mark.why;
      block.addEventListener("click", () => onBlock(n, b));
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

// One block in the tab order (the focused one, a lit one or the first); arrow keys move across
// the whole 6 x 9 board, Enter or Space press the block (a button).
function rovingFocus(container, focusKey) {
  const blocks = [...container.querySelectorAll(".block")];
  const at = (key) => blocks.find((b) => `${b.dataset.n}:${b.dataset.b}` === key);
  const current = at(focusKey) ?? container.querySelector(".block.legal") ?? blocks[0];
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
    const [r, c] = [Math.min(5, Math.max(0, row + step[0])), Math.min(8, Math.max(0, col + step[1]))];
    const n = Math.floor(r / 3) * 3 + Math.floor(c / 3);
    const b = (r % 3) * 3 + (c % 3);
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

function drawBlock(n, b, building, { tallest, monster, last }) {
  const block = el("button", "block");
  block.type = "button";
  block.dataset.n = String(n);
  block.dataset.b = String(b);
  block.dataset.spot = String(b);
  block.dataset.name = blockName(n, b);
  let label = blockLabel(n, b, building);
  if (building.length) {
    const top = owner(building);
    block.classList.add("built");
    block.style.setProperty("--owner", COLORS[top].fill);
    // The stack: one segment per piece, in proportion, squeezed into the block's left side
    // however tall it grows; the height, the owner and the crown share the right side.
    const h = height(building);
    const stack = el("span", "stack");
    stack.style.setProperty("--fill", String(Math.min(1, 0.35 + h / 16)));
    for (const [color, floors] of building) {
      const piece = el("span", `piece c${color}`);
      piece.style.flexGrow = String(floors);
      stack.append(piece);
    }
    block.append(stack, el("span", "height", String(h)), el("span", `owner c${top}`, COLORS[top].shape));
  }
  if (tallest) {
    block.classList.add("tallest");
    block.append(el("span", "crown", "♛"));
    label += t("block.tallest");
  }
  if (monster) {
    block.classList.add("monster");
    block.append(el("span", "monster-mark", "M"));
    label += t("block.monster");
  }
  if (last) {
    block.classList.add("last");
    label += t("block.last");
  }
  for (const child of block.children) child.setAttribute("aria-hidden", "true");
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
  card.title = label ?? t("card.label", { spot: spotName(position) });
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
