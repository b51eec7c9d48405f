// What the page holds (the table as this seat may see it, the seat, the choices being made) and
// how it names things: one label per player, color and block everywhere on the page, and one
// text per situation, which the status line, the waiting panel and the chat's commands share.

import { COLORS, HOODS, blockName, colorName } from "./board.js";
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
  target: null, // {key, move, preview}: the block chosen, waiting for confirmation
  hoverCard: null,
  why: new Map(), // "n:b:color:floors" -> the service's explanation of a refused block
  // lines: "What happened"; last: the last build's block ("n:b"); lastMove: who built what there
  log: { version: 0, lines: [], last: null, lastMove: null },
  dropped: null, // the block whose top piece has just been placed ("n:b"): it drops in once
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
// The player who plays `color` (the owner of a building), or null.
export function playerOf(color) {
  const colors = S.table?.view?.rules.colors ?? [];
  const found = colors.findIndex((cs) => cs.includes(color));
  return found < 0 ? null : found;
}
export function whoText(player) {
  const colors = playerColors(player).map(colorName);
  return `${seatName(player)}${player === me() ? ` ${t("you")}` : ""}${colors.length ? ` (${colors.join(", ")})` : ""}`;
}
export const colorText = (c) => colorName(c);
export const shapeOf = (c) => COLORS[c].shape;
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

// The service's explanations name colors and blocks by number ("color 2", "[0, 1, 0]"): say
// them as the page does everywhere else (Red, "Cairo E2", the same for every seat).
export function humane(text) {
  return String(text ?? "")
    .replace(/\bcolor (\d)\b/g, (_, c) => colorText(Number(c)))
    .replace(/\[(\d), (\d), (\d)\]/g, (_, n, r, c) => blockText([Number(n), Number(r), Number(c)]))
    .replace(/\bneighborhood \d \(([^)]+)\)/g, "$1")
    .replace(/\b1 (building|floor|piece|point)s\b/g, "1 $1");
}

// A refused block, a majority or the tallest bonus won or lost, in the page's language: from the
// service's fields (a rule's reason and numbers, a change's colors and counts), since its own
// explanation is English. A reason without a text of its own falls back on that explanation.
export function whyText(verdict) {
  const key = `why.${verdict.reason}`;
  const text = t(key, verdict.numbers ?? {});
  return text === key ? humane(verdict.message) : text;
}

export function majorityText(m) {
  if (!Array.isArray(m.counts)) return humane(m.explanation);
  const who = colorText(m.color);
  const hood = HOODS[m.neighborhood];
  const mine = m.counts[m.color];
  if (m.change === "won") {
    const second = Math.max(0, ...m.counts.filter((_, c) => c !== m.color));
    return t("preview.majorityWon", { who, hood, mine, second });
  }
  if (m.winner === null || m.winner === undefined) {
    return t("preview.majorityTied", { who, hood, n: Math.max(...m.counts) });
  }
  return t("preview.majorityLost", { who, hood, mine, winner: colorText(m.winner), theirs: m.counts[m.winner] });
}

export function tallestText(o) {
  const slots = { who: colorText(o.color), height: o.height };
  if (o.change === "gained") return t("preview.tallestGained", slots);
  if (o.change === "cancelled") return t("preview.tallestCancelled", slots);
  return t("preview.tallestLost", { ...slots, owner: colorText(o.owner) });
}

export const bearer = () => S.seat?.seatToken || S.host || null;

// -- situations: what the page offers this person now, said once ------------------------------
const seatedCount = (table) => table.seats.filter((s) => s.kind !== "open").length;
export const joinable = (table) => table.seats.some((s) => s.kind === "open" && !s.keptFor);

// The situation of a waiting table for this page: "canStart", "needOne" (seated or host, alone
// so far), "canJoin" (a seat is free) or "full" (nothing to take: watch).
export function waitingSituation(table = S.table) {
  if (bearer()) return seatedCount(table) >= 2 ? "canStart" : "needOne";
  return joinable(table) ? "canJoin" : "full";
}
// Its text: the status line, the waiting panel and the chat's /join and /start say the same.
// The buttons are named as they read on the page.
export const situationText = (situation) => t(`wait.${situation}`, { start: t("start.button"), join: t("join.button") });

// The last build, said in the status line: "Bo built 2 floors on Cairo E3 and took it from Ann".
export function lastMoveText(last = S.log.lastMove) {
  if (!last || !S.table?.view) return "";
  const you = last.player === me();
  const who = you ? t("last.you") : seatName(last.player);
  if (last.forfeit) return t("last.forfeit", { who, you, floors: last.floors });
  const slots = { who, you, floors: t("floors", { n: last.floors }), block: blockText(last.block) };
  const from = last.from === null || last.from === undefined ? null : playerOf(last.from);
  if (from === null || from === last.player) return t("last.built", slots);
  const fromYou = from === me();
  return t("last.took", { ...slots, fromYou, from: fromYou ? t("last.fromYou") : seatName(from) });
}
