// The replay in place of the table: the board at the step shown, and the controls under it
// (the first move, back, forward, a jump to each round). Steps are asked for through the bus.

import { ask } from "./bus.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { el } from "./nodes.js";
import { drawBoard } from "./skyline.js";
import { $, S, seatName } from "./state.js";

function stepButton(id, parts, step, disabled) {
  const b = el("button", "with-icon");
  b.id = id;
  b.append(...parts);
  b.disabled = disabled;
  b.addEventListener("click", () => ask("replayStep", step));
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
  select.addEventListener("change", () => ask("replayStep", Number(select.value)));
  label.append(select);
  return label;
}

export function drawReplay() {
  const replay = S.replay;
  const state = replay.states.get(replay.step);
  const n = replay.record.moves.length;
  if (state) drawBoard($("board"), state);
  const box = el("div", "replay");
  const move = replay.record.moves[replay.step - 1];
  const where = t("replay.where", { step: replay.step, n, round: state?.round ?? "…" });
  const by = move?.player !== undefined ? ` · ${seatName(move.player)}` : "";
  const status = el("p", "", `${where}${by}`);
  status.id = "replay-status";
  const controls = el("div", "replay-controls");
  controls.append(
    stepButton("replay-first", [icon("first"), ` ${t("replay.first")}`], 0, replay.step === 0),
    stepButton("replay-back", [icon("back"), ` ${t("replay.back")}`], replay.step - 1, replay.step === 0),
    stepButton("replay-forward", [`${t("replay.forward")} `, icon("forward")], replay.step + 1, replay.step === n),
    roundPicker(replay),
  );
  const leave = el("button", "quiet", t("replay.close"));
  leave.id = "close-replay";
  leave.addEventListener("click", () => ask("closeReplay"));
  controls.append(leave);
  box.append(el("h2", "", t("replay.title")), status, controls);
  $("action").replaceChildren(box);
  document.body.dataset.replayStep = String(replay.step);
}
