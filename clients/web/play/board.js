// What the board holds and how its places are named, the same way up for everyone at the
// table: neighborhoods 0 1 2 over 3 4 5 (RULES §9 [D11]), columns A to I and rows 1 to 6 on its
// edges, so every block has one name ("Cairo E2") for every seat, in the log and in the chat.
// Cards stay as their holder reads them from their own side of the board (RULES §2): `rotate`
// says which block a card designates from a seat. No drawing here (skyline.js draws).

import { t } from "./i18n.js";

export const HOODS = ["Manhattan", "Cairo", "São Paulo", "Frankfurt", "Sydney", "Hong Kong"];
// Colors with a name and a shape each, so nothing depends on telling the fills apart; `ink` is
// what reads on the fill (the shapes drawn on a floor).
export const COLORS = [
  { key: "red", fill: "#d1495b", ink: "#fff", shape: "circle" },
  { key: "blue", fill: "#2e6fd8", ink: "#fff", shape: "square" },
  { key: "green", fill: "#2a9d5c", ink: "#fff", shape: "triangle" },
  { key: "yellow", fill: "#f2c14e", ink: "#1a1a1a", shape: "diamond" },
];
export const colorName = (c) => t(`color.${COLORS[c].key}`);
export const spotName = (spot) => t(`spot.${spot}`);
const COLUMNS = "ABCDEFGHI";

// Board-frame coordinates of block b of neighborhood n: [row 0..5, column 0..8].
export function boardCell(n, b) {
  return [Math.floor(n / 3) * 3 + Math.floor(b / 3), (n % 3) * 3 + (b % 3)];
}
// The block at board-frame [row, column], as [n, b].
export function cellBlock(row, col) {
  return [Math.floor(row / 3) * 3 + Math.floor(col / 3), (row % 3) * 3 + (col % 3)];
}
// The block's one name: its neighborhood and its coordinates on the board's edges.
export function blockName(n, b) {
  const [row, col] = boardCell(n, b);
  return `${HOODS[n]} ${COLUMNS[col]}${row + 1}`;
}
export const columnName = (col) => COLUMNS[col];

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

// The board-frame position a card designates when held at `seatSide` (RULES §2).
export function rotate(card, seatSide) {
  let r = Math.floor(card / 3);
  let c = card % 3;
  for (let i = 0; i < seatSide; i++) [r, c] = [c, 2 - r];
  return r * 3 + c;
}
