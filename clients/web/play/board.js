// Drawing the board, turned so that the viewer's own side is at the bottom, as at a real table.
//
// RULES §2: a card at position (r, c) held at seat k designates the board-frame block reached by
// turning (r, c) a quarter turn clockwise k times. Drawing the whole board turned the other way
// (k quarter turns counter-clockwise) puts that block at (r, c) on the viewer's screen, so every
// card in hand reads as the block it allows, in each neighborhood.

export const HOODS = ["Manhattan", "Cairo", "São Paulo", "Frankfurt", "Sydney", "Hong Kong"];
// Colors with a name and a shape each, so nothing depends on telling the fills apart.
export const COLORS = [
  { name: "Red", fill: "#d1495b", shape: "●" },
  { name: "Blue", fill: "#2e6fd8", shape: "■" },
  { name: "Green", fill: "#2a9d5c", shape: "▲" },
  { name: "Yellow", fill: "#f2c14e", shape: "◆" },
];
export const SPOTS = ["top left", "top", "top right", "left", "center", "right", "bottom left", "bottom", "bottom right"];

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
  if (withName) span.append(COLORS[color].name);
  else span.title = COLORS[color].name;
  return span;
}

// Board-frame global coordinates: neighborhoods 0 1 2 over 3 4 5 (RULES §9 [D11]), each 3x3.
function boardCell(n, b) {
  return [Math.floor(n / 3) * 3 + Math.floor(b / 3), (n % 3) * 3 + (b % 3)];
}

// Where block (n, b) appears for a viewer at `side`: {row, col} of its neighborhood on screen,
// and its position 0..8 inside it (which is the card position that designates it).
export function placeOf(n, b, side) {
  let [y, x] = boardCell(n, b);
  let height = 6;
  let width = 9;
  for (let turn = 0; turn < (4 - side) % 4; turn++) {
    // A quarter turn clockwise of the whole picture: (y, x) -> (x, height - 1 - y).
    [y, x] = [x, height - 1 - y];
    [height, width] = [width, height];
  }
  return { row: Math.floor(y / 3), col: Math.floor(x / 3), spot: (y % 3) * 3 + (x % 3) };
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

// The board, turned for `side`. `marks(n, b)` returns {legal, allowed, selected, why} for a
// block: legal (a build with the chosen piece), allowed (a card in hand designates it), selected.
export function drawBoard(container, view, side, marks, onBlock) {
  const turned = side % 2 === 1;
  const rows = turned ? 3 : 2;
  const cols = turned ? 2 : 3;
  container.style.setProperty("--hood-cols", String(cols));
  container.classList.toggle("turned", turned);
  const tallest = tallestKey(view.board);
  const monster = view.monster ? `${view.monster[0]}:${view.monster[1] * 3 + view.monster[2]}` : null;
  const hoods = [];
  view.board.forEach((blocks, n) => {
    const first = placeOf(n, 0, side);
    const box = el("section", "hood");
    box.dataset.neighborhood = String(n);
    box.style.gridRow = String(first.row + 1);
    box.style.gridColumn = String(first.col + 1);
    const majority = majorityOf(blocks);
    const title = el("h3", "", HOODS[n]);
    if (majority !== null) {
      box.classList.add("majority");
      box.style.setProperty("--owner", COLORS[majority].fill);
      title.append(" ", chip(majority, false));
      title.title = `${COLORS[majority].name} has the majority here`;
    }
    const grid = el("div", "blocks");
    const cells = [];
    blocks.forEach((building, b) => {
      const spot = placeOf(n, b, side).spot;
      const block = drawBlock(n, b, spot, building, `${n}:${b}` === tallest, `${n}:${b}` === monster);
      const mark = marks(n, b);
      if (mark.legal) block.classList.add("legal");
      else if (mark.allowed) block.classList.add("allowed");
      if (mark.selected) block.classList.add("chosen");
      if (mark.pointed) block.classList.add("pointed");
      if (mark.why) block.dataset.why = mark.why;
      block.addEventListener("click", () => onBlock(n, b));
      cells[spot] = block;
    });
    grid.append(...cells);
    box.append(title, grid);
    hoods.push(box);
  });
  container.style.gridTemplateRows = `repeat(${rows}, auto)`;
  container.replaceChildren(...hoods);
}

function drawBlock(n, b, spot, building, tallest, monster) {
  const block = el("button", "block");
  block.type = "button";
  block.dataset.n = String(n);
  block.dataset.b = String(b);
  block.dataset.spot = String(spot);
  const h = height(building);
  let label = `${HOODS[n]}, ${SPOTS[spot]}`;
  if (building.length) {
    const top = owner(building);
    block.classList.add("built");
    block.style.setProperty("--owner", COLORS[top].fill);
    // The stack: one segment per piece, in proportion, squeezed into the block however tall it
    // grows; the height is written in full beside it.
    const stack = el("span", "stack");
    stack.style.setProperty("--fill", String(Math.min(1, 0.35 + h / 16)));
    for (const [color, floors] of building) {
      const piece = el("span", `piece c${color}`);
      piece.style.flexGrow = String(floors);
      stack.append(piece);
    }
    const badge = el("span", "height", String(h));
    const who = el("span", `owner c${top}`, COLORS[top].shape);
    block.append(stack, badge, who);
    const floorsBy = [0, 0, 0, 0];
    for (const [color, floors] of building) floorsBy[color] += floors;
    const parts = floorsBy.map((f, c) => (f ? `${COLORS[c].name} ${f}` : "")).filter(Boolean);
    label += `: ${h} floors (${parts.join(", ")}), owner ${COLORS[top].name}`;
  } else {
    label += ": empty";
  }
  if (tallest) {
    // The crown goes on the height itself, in a gold badge: seen at any size.
    block.classList.add("tallest");
    const badge = block.querySelector(".height");
    badge.textContent = `♛${h}`;
    label += ", the tallest building";
  }
  if (monster) {
    block.classList.add("monster");
    block.append(el("span", "monster-mark", "M"));
    label += ", the monster is here";
  }
  block.dataset.label = label;
  block.title = label;
  block.setAttribute("aria-label", label);
  return block;
}

// A card in hand: a 3x3 grid with its position marked, as the holder sees it.
export function drawCard(position, { chosen = false, onClick, onHover } = {}) {
  const card = el("button", "card");
  card.type = "button";
  card.dataset.card = String(position);
  card.title = `card: the ${SPOTS[position]} block of any neighborhood`;
  if (chosen) card.classList.add("chosen");
  for (let i = 0; i < 9; i++) card.append(el("span", i === position ? "on" : ""));
  if (onClick) card.addEventListener("click", onClick);
  if (onHover) {
    card.addEventListener("mouseenter", () => onHover(position));
    card.addEventListener("mouseleave", () => onHover(null));
    card.addEventListener("focus", () => onHover(position));
    card.addEventListener("blur", () => onHover(null));
  }
  return card;
}
