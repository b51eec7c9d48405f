// Under the board on your turn: choose the round's pieces, pick a piece and a block and confirm
// (with the service's preview), or give up a piece when nothing can be built.

import { chip, colorName, drawCard, el, spotName } from "./board.js";
import { t } from "./i18n.js";
import { $, S, blockText, colorText, me, notice, playerColors, seatName } from "./state.js";
import { humane, legalBuilds } from "./building.js";
import { play } from "./actions.js";
import { render } from "./render.js";

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
  const colors = playerColors(me());
  const title = el("h2", "", t("turn.pick"));
  const pieces = el("div", "pieces");
  for (const c of colors) {
    for (let f = 1; f <= 4; f++) {
      const count = view.selected[c][f - 1];
      if (!count) continue;
      const button = el("button", "piece-button");
      button.type = "button";
      button.dataset.color = String(c);
      button.dataset.floors = String(f);
      button.append(chip(c), el("span", "floors", t("floors", { n: f })), el("span", "count", `×${count}`));
      button.append(tower(c, f));
      if (S.piece?.color === c && S.piece?.floors === f) button.classList.add("chosen");
      button.addEventListener("click", () => {
        S.piece = { color: c, floors: f };
        S.target = null;
        $("why").textContent = "";
        notice("");
        render();
      });
      pieces.append(button);
    }
  }
  box.replaceChildren(title, pieces);
  if (S.target) box.append(confirmPanel());
  else if (S.piece) {
    const n = legalBuilds().size;
    box.append(el("p", "hint", n ? t("turn.highlighted", { n }) : t("turn.noBlock")));
  }
}

export function tower(color, floors) {
  const stack = el("span", `tower c${color}`);
  stack.style.setProperty("--floors", String(floors));
  stack.setAttribute("aria-hidden", "true");
  return stack;
}

export function confirmPanel() {
  const { move, preview } = S.target;
  const panel = el("div", "confirm");
  panel.dataset.preview = preview === undefined ? "pending" : "ready";
  panel.append(el("p", "", t("turn.confirm", { floors: t("floors", { n: move.floors }), color: colorText(move.color ?? playerColors(me())[0]), block: blockText(move.block) })));
  if (preview === undefined) panel.append(el("p", "hint", t("turn.asking")));
  else if (preview === null) panel.append(el("p", "hint", t("turn.noPreview")));
  else {
    const deltas = el("p", "deltas");
    deltas.append(`${t("turn.ifNow")} `);
    const parts = (S.table.view.rules.colors).map((cs, p) => {
      const d = cs.reduce((s, c) => s + (preview.deltas?.[c] ?? 0), 0);
      const span = el("span", d > 0 ? "up" : d < 0 ? "down" : "", `${seatName(p)} ${d > 0 ? "+" : ""}${d}`);
      return span;
    });
    parts.forEach((part, i) => deltas.append(i ? ", " : "", part));
    panel.append(deltas);
    for (const o of preview.takeovers ?? []) panel.append(el("p", "hint", t("turn.takeover", { from: colorText(o.ownerBefore), before: o.heightBefore, after: o.heightAfter })));
    for (const m of preview.majorities ?? []) panel.append(el("p", "hint", humane(m.explanation)));
    for (const o of preview.tallest ?? []) if (o.explanation) panel.append(el("p", "hint", humane(o.explanation)));
  }
  const yes = el("button", "primary", t("turn.build"));
  yes.id = "confirm-build";
  yes.addEventListener("click", () => play(move));
  const no = el("button", "quiet", t("cancel"));
  no.addEventListener("click", () => {
    S.target = null;
    render();
  });
  panel.append(yes, " ", no);
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
    button.addEventListener("click", () => {
      S.pick = more;
      render();
    });
    sizes.append(button);
  }
  box.append(sizes);
  const clear = el("button", "quiet", t("turn.startOver"));
  clear.disabled = chosen === 0;
  clear.addEventListener("click", () => {
    S.pick = [0, 0, 0, 0];
    render();
  });
  const confirm = el("button", "primary", t("turn.take"));
  confirm.id = "confirm-select";
  confirm.disabled = !exact;
  confirm.addEventListener("click", () => play(exact));
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
    const card = drawCard(move.card, { onClick: () => play(move), label });
    card.classList.add("forfeit");
    rows.get(key).append(card);
  }
}
