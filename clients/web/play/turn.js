// Under the board on your turn: choose the round's pieces, pick a piece and a block and confirm
// (with the service's preview), or give up a piece when nothing can be built.

import { COLORS, SPOTS, chip, drawCard, el } from "./board.js";
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
  const title = el("h2", "", "Pick a piece");
  const pieces = el("div", "pieces");
  for (const c of colors) {
    for (let f = 1; f <= 4; f++) {
      const count = view.selected[c][f - 1];
      if (!count) continue;
      const button = el("button", "piece-button");
      button.type = "button";
      button.dataset.color = String(c);
      button.dataset.floors = String(f);
      button.append(chip(c), el("span", "floors", `${f} floor${f > 1 ? "s" : ""}`), el("span", "count", `×${count}`));
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
    box.append(el("p", "hint", n ? `${n} highlighted block${n > 1 ? "s" : ""}: click one to see what it would change.` : "This piece has no legal block: pick another."));
  }
}

export function tower(color, floors) {
  const t = el("span", `tower c${color}`);
  t.style.setProperty("--floors", String(floors));
  return t;
}

export function confirmPanel() {
  const { move, preview } = S.target;
  const panel = el("div", "confirm");
  panel.append(el("p", "", `Build ${move.floors} floor${move.floors > 1 ? "s" : ""} of ${colorText(move.color ?? playerColors(me())[0])} on ${blockText(move.block)}?`));
  if (preview === undefined) panel.append(el("p", "hint", "Asking the service what it would change…"));
  else if (preview === null) panel.append(el("p", "hint", "(The service offers no preview to this table's seats.)"));
  else {
    const deltas = el("p", "deltas");
    deltas.append("If the round ended now: ");
    const parts = (S.table.view.rules.colors).map((cs, p) => {
      const d = cs.reduce((s, c) => s + (preview.deltas?.[c] ?? 0), 0);
      const span = el("span", d > 0 ? "up" : d < 0 ? "down" : "", `${seatName(p)} ${d > 0 ? "+" : ""}${d}`);
      return span;
    });
    parts.forEach((part, i) => deltas.append(i ? ", " : "", part));
    panel.append(deltas);
    for (const t of preview.takeovers ?? []) panel.append(el("p", "hint", `Takes the building from ${colorText(t.ownerBefore)} (${t.heightBefore} → ${t.heightAfter} floors).`));
    for (const m of preview.majorities ?? []) panel.append(el("p", "hint", humane(m.explanation)));
    for (const t of preview.tallest ?? []) if (t.explanation) panel.append(el("p", "hint", humane(t.explanation)));
  }
  const yes = el("button", "primary", "Build here");
  yes.id = "confirm-build";
  yes.addEventListener("click", () => play(move));
  const no = el("button", "quiet", "Cancel");
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
  head.append(`Choose ${need} pieces for `, chip(S.pickColor), ` (${chosen} of ${need})`);
  box.append(head);
  const sizes = el("div", "pieces");
  for (let f = 1; f <= 4; f++) {
    const more = S.pick.slice();
    more[f - 1] += 1;
    const button = el("button", "piece-button size");
    button.type = "button";
    button.dataset.floors = String(f);
    button.append(el("span", "floors", `${f} floor${f > 1 ? "s" : ""}`), el("span", "count", `${S.pick[f - 1]} chosen · ${view.supply[S.pickColor][f - 1]} in supply`));
    button.append(tower(S.pickColor, f));
    button.disabled = chosen >= need || !fits(more);
    button.addEventListener("click", () => {
      S.pick = more;
      render();
    });
    sizes.append(button);
  }
  box.append(sizes);
  const clear = el("button", "quiet", "Start over");
  clear.disabled = chosen === 0;
  clear.addEventListener("click", () => {
    S.pick = [0, 0, 0, 0];
    render();
  });
  const confirm = el("button", "primary", "Take these pieces");
  confirm.id = "confirm-select";
  confirm.disabled = !exact;
  confirm.addEventListener("click", () => play(exact));
  box.append(confirm, " ", clear);
}

// RULES D5: with no legal build, a card is discarded and a piece given up. One row per piece,
// with the cards to discard drawn as cards: pick the pair in one click.
export function drawForfeit(box) {
  const moves = S.table.moves.filter((m) => m.type === "forfeit");
  box.replaceChildren(el("h2", "", "No block can take any of your pieces"));
  box.append(el("p", "hint", "Give up one piece and discard one card (RULES D5): click the card beside the piece."));
  const rows = new Map();
  for (const move of moves) {
    const color = move.color ?? playerColors(me())[0];
    const key = `${color}:${move.floors}`;
    if (!rows.has(key)) {
      const row = el("div", "forfeit-row");
      row.append(chip(color), ` ${move.floors} floor${move.floors > 1 ? "s" : ""}, discard: `);
      rows.set(key, row);
      box.append(row);
    }
    const card = drawCard(move.card, { onClick: () => play(move) });
    card.classList.add("forfeit");
    card.title = `give up a ${move.floors}-floor ${COLORS[color].name} piece and discard the ${SPOTS[move.card]} card`;
    rows.get(key).append(card);
  }
}
