// What the page holds (the table as this seat may see it, the seat, the choices being made) and
// how it names things: one label per player, color and block everywhere on the page.

import { COLORS, HOODS, SPOTS, chip, el, placeOf } from "./board.js";

export const $ = (id) => document.getElementById(id);
export const params = new URLSearchParams(location.search);

export const S = {
  rules: null,
  tableId: params.get("table"),
  table: null,
  seat: null, // {seatToken, name}
  host: null,
  pick: [0, 0, 0, 0], // the selection being put together (counts of 1..4-floor pieces)
  pickColor: null,
  piece: null, // {color, floors}: the piece chosen to build (or forfeit)
  target: null, // {key, move, preview, error}: the block clicked, waiting for confirmation
  hoverCard: null,
  why: new Map(), // "n:b:color:floors" -> the service's explanation of a refused block
  log: { version: 0, lines: [] },
  stream: null,
  busy: false,
  timer: null,
};

// -- names: one label per player everywhere ------------------------------------------------
export function seatName(index) {
  const seat = S.table?.seats[index];
  if (!seat) return `Seat ${index + 1}`;
  if (seat.name) return seat.name;
  return seat.kind === "bot" ? `Bot ${index + 1}` : `Seat ${index + 1}`;
}
export const me = () => (S.table?.view?.player ?? null);
export function playerColors(player) {
  return S.table?.view?.rules.colors[player] ?? [];
}
// "Ada ●" as a node: the name, then the player's color chips (shape + name on hover).
export function who(player, { chips = true } = {}) {
  const span = el("span", "who");
  span.append(el("b", "", seatName(player)));
  if (player === me()) span.append(el("span", "you", " (you)"));
  if (chips) for (const c of playerColors(player)) span.append(" ", chip(c, false));
  return span;
}
export function whoText(player) {
  const colors = playerColors(player).map((c) => `${COLORS[c].shape} ${COLORS[c].name}`);
  return `${seatName(player)}${player === me() ? " (you)" : ""}${colors.length ? ` (${colors.join(", ")})` : ""}`;
}
export const colorText = (c) => `${COLORS[c].shape} ${COLORS[c].name}`;
export function side() {
  const view = S.table?.view;
  if (!view) return 0;
  return view.player === null || view.player === undefined ? 0 : view.rules.seats[view.player];
}
export const blockText = ([n, r, c]) => `${HOODS[n]} ${SPOTS[placeOf(n, r * 3 + c, side()).spot]}`;
export const piecesText = (pieces) =>
  pieces.map((k, i) => (k ? `${k}×${i + 1}` : "")).filter(Boolean).join(" ") + " floors";

export function notice(text) {
  const box = $("notice");
  box.textContent = text || "";
  box.hidden = !text;
}

// The board-frame position a card designates when held at `seatSide` (RULES §2).
export function rotate(card, seatSide) {
  let r = Math.floor(card / 3);
  let c = card % 3;
  for (let i = 0; i < seatSide; i++) [r, c] = [c, 2 - r];
  return r * 3 + c;
}

export const bearer = () => S.seat?.seatToken || S.host || null;
