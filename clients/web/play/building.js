// Building: the legal blocks of the chosen piece, the service's explanation of a refused
// block and its preview of a build, asked with the seat's token.

import * as api from "./api.js";
import { spotName } from "./board.js";
import { t } from "./i18n.js";
import { $, S, blockText, colorText, me, notice, rotate, side } from "./state.js";
import { render } from "./render.js";
import { strip } from "./actions.js";

// What-if questions (explanations, previews) go to the table itself with the seat token: the
// service answers them from this seat's own view, on its turn.
export const seatAsk = (what, body) =>
  api.call(`/tables/${encodeURIComponent(S.tableId)}/${what}`, { body, bearer: S.seat?.seatToken });

export async function explain(n, b) {
  const piece = S.piece;
  const key = `${n}:${b}:${piece.color}:${piece.floors}`;
  if (S.why.has(key)) return S.why.get(key);
  const view = S.table.view;
  const cards = view.hand.filter((card) => rotate(card, side()) === b);
  let text;
  if (!cards.length) {
    text = t("why.noCard");
  } else {
    const move = { type: "build", card: cards[0], neighborhood: n, floors: piece.floors, color: piece.color };
    try {
      const verdict = await seatAsk("validate", { move });
      text = verdict.legal ? t("why.legal") : humane(verdict.message);
    } catch (error) {
      text = error.message;
    }
  }
  S.why.set(key, text);
  return text;
}

// The service's explanations name colors and blocks by number ("color 2", "[0, 1, 0]"): say
// them as the page does everywhere else (● Red, "Cairo E2", the same for every seat).
export function humane(text) {
  return String(text ?? "")
    .replace(/\bcolor (\d)\b/g, (_, c) => colorText(Number(c)))
    .replace(/\[(\d), (\d), (\d)\]/g, (_, n, r, c) => blockText([Number(n), Number(r), Number(c)]))
    .replace(/\bneighborhood \d \(([^)]+)\)/g, "$1")
    .replace(/\b1 (building|floor|piece|point)s\b/g, "1 $1");
}

export async function previewOf(move) {
  if (!S.seat?.seatToken) return null;
  const { preview } = await seatAsk("preview", { move: strip(move) });
  return preview;
}

// The legal builds of the chosen piece, by block ("n:b").
export function legalBuilds() {
  const out = new Map();
  if (!S.piece || !S.table) return out;
  for (const move of S.table.moves) {
    if (move.type !== "build" || move.floors !== S.piece.floors) continue;
    if (move.color !== undefined && move.color !== null && move.color !== S.piece.color) continue;
    const key = `${move.block[0]}:${move.block[1] * 3 + move.block[2]}`;
    if (!out.has(key)) out.set(key, move);
  }
  return out;
}

export async function onBlock(n, b) {
  const table = S.table;
  if (!table.moves.length || table.view.phase !== "build") return;
  if (!S.piece) return notice(t("build.pickFirst"));
  const key = `${n}:${b}`;
  const move = legalBuilds().get(key);
  if (!move) {
    const allowed = table.view.hand.some((card) => rotate(card, side()) === b);
    notice(allowed ? await explain(n, b) : t("build.noCard", { spot: spotName(b) }));
    return;
  }
  notice("");
  S.target = { key, move, preview: undefined };
  render();
  try {
    S.target.preview = await previewOf(move);
  } catch (error) {
    S.target.preview = { explanation: t("build.noPreview", { error: error.message }) };
  }
  if (S.target?.move === move) render();
}

// A block your cards allow but the chosen piece cannot take: hovering (or focusing) it asks the
// service why, and says it beside the board and in the block's tooltip.
export function explainOnHover() {
  if (!S.piece) return;
  for (const block of $("board").querySelectorAll(".block.allowed")) {
    const show = async () => {
      const text = await explain(Number(block.dataset.n), Number(block.dataset.b));
      block.title = `${block.dataset.label}. ${text}`;
      $("why").textContent = text;
    };
    block.addEventListener("mouseenter", show);
    block.addEventListener("focus", show);
  }
}

// How the board marks block (n, b) for this seat now (see drawBoard).
export function marks(n, b) {
  const key = `${n}:${b}`;
  const view = S.table.view;
  const mine = S.table.moves.length > 0 && view.phase === "build";
  // The card under the pointer shows its blocks, whoever's turn it is.
  const pointed = S.hoverCard !== null && me() !== null && rotate(S.hoverCard, side()) === b;
  const out = { legal: false, allowed: false, pointed, selected: S.target?.key === key, why: "" };
  if (!mine) return out;
  out.allowed = view.hand.some((card) => rotate(card, side()) === b);
  if (S.piece) {
    out.legal = legalBuilds().has(key);
    out.why = S.why.get(`${key}:${S.piece.color}:${S.piece.floors}`) ?? "";
  }
  return out;
}
