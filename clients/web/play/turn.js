// Under the board on your turn: choose the round's pieces, pick a piece and a block and confirm
// (with the service's preview), or give up a piece when nothing can be built. What the person
// asks for goes up through the bus (bus.js); nothing here changes the table.

import { colorName, spotName } from "./board.js";
import { ask } from "./bus.js";
import { legalBuilds } from "./choices.js";
import { t } from "./i18n.js";
import { chip, el } from "./nodes.js";
import { drawCard } from "./skyline.js";
import { $, S, blockText, colorText, majorityText, me, playerColors, seatName, tallestText } from "./state.js";

export function drawAction() {
  const box = $("action");
  const { table } = S;
  const view = table.view;
  if (!table.moves.length) {
    box.replaceChildren();
    return;
  }
  if (view.phase === "select") return drawSelect(box);
  const builds = table.moves.filter((m) => m.type === "build");
  if (!builds.length) return drawForfeit(box);
  const title = el("h2", "", t("turn.pick"));
  title.id = "pieces-title";
  box.replaceChildren(title, drawPieces(view));
  if (S.target) box.append(confirmPanel());
  else if (S.piece) {
    const n = legalBuilds().size;
    box.append(el("p", "hint", n ? t("turn.highlighted", { n }) : t("turn.noBlock")));
  }
}

// The pieces to build with, one radio group: arrows move between them and pick the one they
// reach (its blocks light up); Enter (or a click) picks it and goes on to the board.
function drawPieces(view) {
  const pieces = el("div", "pieces");
  pieces.setAttribute("role", "radiogroup");
  pieces.setAttribute("aria-labelledby", "pieces-title");
  const buttons = [];
  for (const c of playerColors(me())) {
    for (let f = 1; f <= 4; f++) {
      const count = view.selected[c][f - 1];
      if (!count) continue;
      const button = el("button", "piece-button");
      button.type = "button";
      button.setAttribute("role", "radio");
      button.dataset.color = String(c);
      button.dataset.floors = String(f);
      button.append(chip(c), el("span", "floors", t("floors", { n: f })), el("span", "count", t("turn.count", { n: count })));
      button.append(tower(c, f));
      const chosen = S.piece?.color === c && S.piece?.floors === f;
      button.classList.toggle("chosen", chosen);
      button.setAttribute("aria-checked", String(chosen));
      button.addEventListener("click", (event) => ask("piece", { color: c, floors: f }, event.detail === 0));
      buttons.push(button);
    }
  }
  const current = buttons.find((b) => b.classList.contains("chosen")) ?? buttons[0];
  for (const b of buttons) b.tabIndex = b === current ? 0 : -1;
  pieces.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    const at = buttons.indexOf(event.target);
    if (!step || at < 0) return;
    event.preventDefault();
    const next = buttons[(at + step + buttons.length) % buttons.length];
    next.focus();
    ask("piece", { color: Number(next.dataset.color), floors: Number(next.dataset.floors) }, false);
  });
  pieces.append(...buttons);
  return pieces;
}

export function tower(color, floors) {
  const stack = el("span", `tower c${color}`);
  stack.style.setProperty("--floors", String(floors));
  stack.setAttribute("aria-hidden", "true");
  return stack;
}

// The block chosen, waiting for a yes: the question and its two buttons first (so that "Build
// here" stays in reach however long the preview), then what the build would change.
export function confirmPanel() {
  const { move, preview } = S.target;
  const panel = el("div", "confirm");
  panel.dataset.preview = preview === undefined ? "pending" : "ready";
  const question = el("p", "question", t("turn.confirm", { floors: t("floors", { n: move.floors }), color: colorText(move.color ?? playerColors(me())[0]), block: blockText(move.block) }));
  const yes = el("button", "primary", t("turn.build"));
  yes.id = "confirm-build";
  yes.addEventListener("click", () => ask("build", move));
  const no = el("button", "quiet", t("cancel"));
  no.id = "cancel-build";
  no.addEventListener("click", () => ask("cancel"));
  const row = el("div", "confirm-row");
  row.append(question, yes, no);
  panel.append(row);
  if (preview === undefined) panel.append(el("p", "hint", t("turn.asking")));
  else if (preview === null) panel.append(el("p", "hint", t("turn.noPreview")));
  else {
    const deltas = el("p", "deltas");
    deltas.append(`${t("turn.ifNow")} `);
    const parts = S.table.view.rules.colors.map((cs, p) => {
      const d = cs.reduce((s, c) => s + (preview.deltas?.[c] ?? 0), 0);
      return el("span", d > 0 ? "up" : d < 0 ? "down" : "", `${seatName(p)} ${d > 0 ? "+" : ""}${d}`);
    });
    parts.forEach((part, i) => deltas.append(i ? ", " : "", part));
    panel.append(deltas);
    for (const o of preview.takeovers ?? []) panel.append(el("p", "hint", t("turn.takeover", { from: colorText(o.ownerBefore), before: o.heightBefore, after: o.heightAfter })));
    for (const m of preview.majorities ?? []) panel.append(el("p", "hint", majorityText(m)));
    for (const o of preview.tallest ?? []) panel.append(el("p", "hint", tallestText(o)));
  }
  return panel;
}

export function drawSelect(box) {
  const view = S.table.view;
  const moves = S.table.moves.filter((m) => m.type === "select");
  const colors = [...new Set(moves.map((m) => m.color))];
  if (!colors.includes(S.pickColor)) S.pickColor = colors[0];
  const options = moves.filter((m) => m.color === S.pickColor);
  const need = view.rules.piecesPerRound;
  const chosen = S.pick.reduce((s, k) => s + k, 0);
  const fits = (pick) => options.some((m) => m.pieces.every((k, i) => k >= pick[i]));
  const exact = options.find((m) => m.pieces.every((k, i) => k === S.pick[i]));
  box.replaceChildren();
  const head = el("h2", "");
  head.append(`${t("turn.choose", { n: need })} `, chip(S.pickColor), ` (${t("turn.chosenOf", { chosen, need })})`);
  box.append(head);
  const sizes = el("div", "pieces");
  for (let f = 1; f <= 4; f++) {
    const more = S.pick.slice();
    more[f - 1] += 1;
    const button = el("button", "piece-button size");
    button.type = "button";
    button.dataset.floors = String(f);
    button.append(el("span", "floors", t("floors", { n: f })), el("span", "count", t("turn.sizeCount", { chosen: S.pick[f - 1], supply: view.supply[S.pickColor][f - 1] })));
    button.append(tower(S.pickColor, f));
    button.disabled = chosen >= need || !fits(more);
    button.addEventListener("click", () => ask("pick", more));
    sizes.append(button);
  }
  box.append(sizes);
  const clear = el("button", "quiet", t("turn.startOver"));
  clear.id = "start-over";
  clear.disabled = chosen === 0;
  clear.addEventListener("click", () => ask("pick", [0, 0, 0, 0]));
  const confirm = el("button", "primary", t("turn.take"));
  confirm.id = "confirm-select";
  confirm.disabled = !exact;
  confirm.addEventListener("click", () => ask("select", exact));
  box.append(confirm, " ", clear);
}

// RULES D5: with no legal build, a card is discarded and a piece given up. One row per piece,
// with the cards to discard drawn as cards: pick the pair in one click.
export function drawForfeit(box) {
  const moves = S.table.moves.filter((m) => m.type === "forfeit");
  box.replaceChildren(el("h2", "", t("forfeit.title")));
  box.append(el("p", "hint", t("forfeit.hint")));
  const rows = new Map();
  for (const move of moves) {
    const color = move.color ?? playerColors(me())[0];
    const key = `${color}:${move.floors}`;
    if (!rows.has(key)) {
      const row = el("div", "forfeit-row");
      row.append(chip(color), ` ${t("forfeit.row", { floors: t("floors", { n: move.floors }) })} `);
      rows.set(key, row);
      box.append(row);
    }
    const label = t("forfeit.card", { floors: move.floors, color: colorName(color), spot: spotName(move.card) });
    const card = drawCard(move.card, { onClick: () => ask("forfeit", move), label });
    card.classList.add("forfeit");
    rows.get(key).append(card);
  }
}
