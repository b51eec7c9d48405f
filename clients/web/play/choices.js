// What this seat may do on its turn, read from the service's legal moves: the blocks the chosen
// piece may take, and how the board marks each block. Nothing here decides a rule.

import { rotate } from "./board.js";
import { S, me, side } from "./state.js";

// The legal builds of the chosen piece, by block ("n:b").
export function legalBuilds(piece = S.piece) {
  const out = new Map();
  if (!piece || !S.table) return out;
  for (const move of S.table.moves) {
    if (move.type !== "build" || move.floors !== piece.floors) continue;
    if (move.color !== undefined && move.color !== null && move.color !== piece.color) continue;
    const key = `${move.block[0]}:${move.block[1] * 3 + move.block[2]}`;
    if (!out.has(key)) out.set(key, move);
  }
  return out;
}

export const building = () => Boolean(S.table?.moves.length) && S.table.view?.phase === "build";
// Whether a card in this seat's hand designates block b of any neighborhood.
export const cardAllows = (b) => (S.table?.view?.hand ?? []).some((card) => rotate(card, side()) === b);

// How the board marks block (n, b) for this seat now: legal (a build with the chosen piece),
// allowed (a card in hand designates it), pointed (the card under the pointer does), selected
// (the block chosen), why (the service's word on a refused block).
export function marks(n, b) {
  const key = `${n}:${b}`;
  const pointed = S.hoverCard !== null && me() !== null && rotate(S.hoverCard, side()) === b;
  const out = { legal: false, allowed: false, pointed, selected: S.target?.key === key, why: "" };
  if (!building()) return out;
  out.allowed = cardAllows(b);
  if (S.piece) {
    out.legal = legalBuilds().has(key);
    out.why = S.why.get(`${key}:${S.piece.color}:${S.piece.floors}`) ?? "";
  }
  return out;
}
