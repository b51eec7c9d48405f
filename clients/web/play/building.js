// Building: picking a piece, choosing a block (the service's preview of the build, asked with
// the seat's token), the service's explanation of a refused block, and taking a choice back.

import * as api from "./api.js";
import { rotate, spotName } from "./board.js";
import { building, cardAllows, legalBuilds } from "./choices.js";
import { t } from "./i18n.js";
import { notice } from "./nodes.js";
import { render } from "./render.js";
import { $, S, side, whyText } from "./state.js";
import { play, strip } from "./actions.js";

// What-if questions (explanations, previews) go to the table itself with the seat token: the
// service answers them from this seat's own view, on its turn.
const seatAsk = (what, body) =>
  api.call(`/tables/${encodeURIComponent(S.tableId)}/${what}`, { body, bearer: S.seat?.seatToken });

export async function explain(n, b) {
  const piece = S.piece;
  const key = `${n}:${b}:${piece.color}:${piece.floors}`;
  if (S.why.has(key)) return S.why.get(key);
  const cards = S.table.view.hand.filter((card) => rotate(card, side()) === b);
  let text;
  if (!cards.length) {
    text = t("why.noCard");
  } else {
    const move = { type: "build", card: cards[0], neighborhood: n, floors: piece.floors, color: piece.color };
    try {
      const verdict = await seatAsk("validate", { move });
      text = verdict.legal ? t("why.legal") : whyText(verdict);
    } catch (error) {
      text = error.message;
    }
  }
  S.why.set(key, text);
  return text;
}

// A block your cards allow but the chosen piece cannot take: said beside the board and in the
// block's tooltip.
export async function showWhy(n, b) {
  if (!S.piece) return;
  const text = await explain(n, b);
  const block = $("board").querySelector(`.block[data-n="${n}"][data-b="${b}"]`);
  if (block) block.title = `${block.dataset.label}. ${text}`;
  $("why").textContent = text;
}

async function previewOf(move) {
  if (!S.seat?.seatToken) return null;
  const { preview } = await seatAsk("preview", { move: strip(move) });
  return preview;
}

// A piece picked; by keyboard, the focus goes on to the board's first lit block.
export function pickPiece(piece, byKeyboard = false) {
  const same = S.piece?.color === piece.color && S.piece?.floors === piece.floors;
  S.piece = piece;
  if (!same) S.target = null;
  $("why").textContent = "";
  notice("");
  render();
  if (byKeyboard) document.querySelector("#board .block[tabindex='0']")?.focus();
}

// A block pressed: a lit one opens the confirmation (its "Build here" focused) with the
// service's preview; pressed again by keyboard once chosen, it builds; any other says why not.
export async function onBlock(n, b, byKeyboard = false) {
  if (!building()) return;
  if (!S.piece) return notice(t("build.pickFirst"));
  const key = `${n}:${b}`;
  if (byKeyboard && S.target?.key === key) return play(S.target.move);
  const move = legalBuilds().get(key);
  if (!move) {
    notice(cardAllows(b) ? await explain(n, b) : t("build.noCard", { spot: spotName(b) }));
    return;
  }
  notice("");
  S.target = { key, move, preview: undefined };
  render();
  document.getElementById("confirm-build")?.focus();
  try {
    S.target.preview = await previewOf(move);
  } catch (error) {
    S.target.preview = { explanation: t("build.noPreview", { error: error.message }) };
  }
  if (S.target?.move === move) render();
}

// Escape takes back the last choice of a turn: the block chosen (the focus back on it), then
// the piece picked (the focus back on the pieces).
export function takeBack() {
  if (!S.table) return false;
  if (S.target) {
    const { key } = S.target;
    S.target = null;
    render();
    const [n, b] = key.split(":");
    document.querySelector(`#board .block[data-n="${n}"][data-b="${b}"]`)?.focus();
    return true;
  }
  if (S.piece) {
    S.piece = null;
    render();
    document.querySelector("#action .piece-button[tabindex='0']")?.focus();
    return true;
  }
  return false;
}
