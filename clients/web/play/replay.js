// Stepping through a finished game: its record (GET /v1/tables/{id}/record, public once the game
// is over), replayed by the service up to any move (POST /v1/replay with the first k moves).
// Open to seats and spectators alike, and from a shared link (/play/?table=<id>#replay).

import * as api from "./api.js";
import { t } from "./i18n.js";
import { notice } from "./nodes.js";
import { render } from "./render.js";
import { S } from "./state.js";

// The move index where each round begins: a run of selections opens a round (RULES §4).
function roundStarts(moves) {
  const starts = [];
  moves.forEach((move, i) => {
    if (move.type === "select" && (i === 0 || moves[i - 1].type !== "select")) starts.push(i);
  });
  return starts;
}

export async function openReplay() {
  const record = await api.call(`/tables/${encodeURIComponent(S.tableId)}/record`);
  S.replay = { record, step: record.moves.length, states: new Map(), starts: roundStarts(record.moves) };
  history.replaceState(null, "", `${location.pathname}${location.search}#replay`);
  await stepTo(record.moves.length);
}

export function closeReplay() {
  S.replay = null;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  render();
}

export async function stepTo(step) {
  const replay = S.replay;
  const n = replay.record.moves.length;
  replay.step = Math.max(0, Math.min(n, step));
  if (!replay.states.has(replay.step)) {
    try {
      const body = { setup: replay.record.setup, moves: replay.record.moves.slice(0, replay.step) };
      replay.states.set(replay.step, (await api.call("/replay", { body })).state);
    } catch (error) {
      notice(t("replay.failed", { error: error.message }));
      return;
    }
  }
  if (S.replay === replay) render();
}
