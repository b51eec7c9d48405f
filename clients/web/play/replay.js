// Stepping through a finished game: its record (GET /v1/tables/{id}/record, public once the game
// is over), replayed by the service up to any move (POST /v1/replay with the first k moves), with
// back, forward and a jump to each round. Open to seats and spectators alike, and from a shared
// link (/play/?table=<id>#replay).

import * as api from "./api.js";
import { drawBoard, el } from "./board.js";
import { t } from "./i18n.js";
import { $, S, notice, seatName } from "./state.js";
import { render } from "./render.js";

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

async function stepTo(step) {
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

function button(id, label, step, disabled) {
  const b = el("button", "", label);
  b.id = id;
  b.disabled = disabled;
  b.addEventListener("click", () => stepTo(step));
  return b;
}

function roundPicker(replay) {
  const label = el("label", "", `${t("replay.jump")} `);
  const select = el("select");
  select.id = "replay-round";
  replay.starts.forEach((start, r) => select.append(new Option(t("status.roundN", { round: r + 1 }), String(start))));
  select.append(new Option(t("replay.end"), String(replay.record.moves.length)));
  const current = [...replay.starts, replay.record.moves.length].filter((s) => s <= replay.step).at(-1);
  select.value = String(current ?? 0);
  select.addEventListener("change", () => stepTo(Number(select.value)));
  label.append(select);
  return label;
}

// The replay in place of the table: the board at the current step, and the controls under it.
export function drawReplay() {
  const replay = S.replay;
  const state = replay.states.get(replay.step);
  const n = replay.record.moves.length;
  if (state) drawBoard($("board"), state, () => ({}), () => {});
  const box = el("div", "replay");
  const move = replay.record.moves[replay.step - 1];
  const where = t("replay.where", { step: replay.step, n, round: state?.round ?? "…" });
  const by = move?.player !== undefined ? ` · ${seatName(move.player)}` : "";
  const status = el("p", "", `${where}${by}`);
  status.id = "replay-status";
  const controls = el("div", "replay-controls");
  controls.append(
    button("replay-first", `⏮ ${t("replay.first")}`, 0, replay.step === 0),
    button("replay-back", `◀ ${t("replay.back")}`, replay.step - 1, replay.step === 0),
    button("replay-forward", `${t("replay.forward")} ▶`, replay.step + 1, replay.step === n),
    roundPicker(replay),
  );
  const leave = el("button", "quiet", t("replay.close"));
  leave.id = "close-replay";
  leave.addEventListener("click", closeReplay);
  controls.append(leave);
  box.append(el("h2", "", t("replay.title")), status, controls);
  $("action").replaceChildren(box);
  document.body.dataset.replayStep = String(replay.step);
}
