// What the page holds (the table as this seat may see it, the seat, the choices being made) and
// how it names things: one label per player, color and block everywhere on the page.

import { COLORS, blockName, chip, colorName, el } from "./board.js";
import { t } from "./i18n.js";

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
  log: { version: 0, lines: [], last: null }, // last: the last move's block, "n:b"
  recap: null, // the round record shown in the recap, until closed
  replay: null, // {record, step, states}: stepping through a finished game's record
  stream: null,
  busy: false,
  timer: null,
};

// -- names: one label per player everywhere ------------------------------------------------
export function seatName(index) {
  const seat = S.table?.seats[index];
  if (seat?.name) return seat.name;
  return t(seat?.kind === "bot" ? "name.bot" : "name.seat", { n: index + 1 });
}
export const me = () => (S.table?.view?.player ?? null);
export function playerColors(player) {
  return S.table?.view?.rules.colors[player] ?? [];
}
// "Ada ●" as a node: the name, then the player's color chips (shape + name on hover).
export function who(player, { chips = true } = {}) {
  const span = el("span", "who");
  span.append(el("b", "", seatName(player)));
  if (player === me()) span.append(el("span", "you", ` ${t("you")}`));
  if (chips) for (const c of playerColors(player)) span.append(" ", chip(c, false));
  return span;
}
export function whoText(player) {
  const colors = playerColors(player).map(colorText);
  return `${seatName(player)}${player === me() ? ` ${t("you")}` : ""}${colors.length ? ` (${colors.join(", ")})` : ""}`;
}
export const colorText = (c) => `${COLORS[c].shape} ${colorName(c)}`;
export function side() {
  const view = S.table?.view;
  if (!view) return 0;
  return view.player === null || view.player === undefined ? 0 : view.rules.seats[view.player];
}
// A block [n, r, c] by its one name, the same for every seat.
export const blockText = ([n, r, c]) => blockName(n, r * 3 + c);
// Counts of 1..4-floor pieces: "one 1-floor piece, two 4-floor pieces".
export const piecesText = (pieces) =>
  pieces
    .map((k, i) => (k ? t("pieces", { k, floors: i + 1 }) : ""))
    .filter(Boolean)
    .join(", ");

// A notice stays until the table changes after it (a move, a join, a chat line), or is replaced.
export function notice(text) {
  const box = $("notice");
  box.textContent = text || "";
  box.hidden = !text;
  S.noticeAt = S.table?.version ?? 0;
}
export function clearStaleNotice(version) {
  if (version > (S.noticeAt ?? 0) && !$("notice").hidden) notice("");
}

// The board-frame position a card designates when held at `seatSide` (RULES §2).
export function rotate(card, seatSide) {
  let r = Math.floor(card / 3);
  let c = card % 3;
  for (let i = 0; i < seatSide; i++) [r, c] = [c, 2 - r];
  return r * 3 + c;
}

export const bearer = () => S.seat?.seatToken || S.host || null;
