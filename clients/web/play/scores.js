// Where the points came from: the recap shown when a round is scored, and the final ranking with
// each round's breakdown (the state's history, DESIGN §2), per player over their colors.

import { HOODS } from "./board.js";
import { ask } from "./bus.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { el, who } from "./nodes.js";
import { $, S, bearer, seatName } from "./state.js";

// One player's part of a round record: buildings, majorities (points and neighborhoods),
// tallest, urban and total, summed over the player's colors.
export function playerPart(record, colors) {
  const sum = (k) => colors.reduce((s, c) => s + (Number(record.scores[c][k]) || 0), 0);
  const hoods = colors.flatMap((c) => (Array.isArray(record.scores[c].majorities) ? record.scores[c].majorities : []));
  const total = sum("total");
  const parts = { buildings: sum("buildings"), tallest: sum("tallest"), urban: sum("urban"), total };
  // The majorities' points are what the total holds beyond the other parts (edition-free).
  parts.majorities = total - parts.buildings - parts.tallest - parts.urban;
  parts.hoods = [...new Set(hoods)].map((n) => HOODS[n]);
  return parts;
}

// The majorities' neighborhoods are named here only when the per-neighborhood table below is
// not drawn (it shows them with their stars): on a phone the names made the table too wide.
function recapTable(record, view, nameHoods) {
  const urban = Boolean(view.rules.variants?.urbanRules);
  const grid = el("table", "breakdown recap-table");
  grid.tabIndex = 0; // it may scroll sideways on a phone: reachable by keyboard
  const head = el("tr");
  const columns = ["recap.player", "recap.buildings", nameHoods ? "recap.majorities" : "recap.majoritiesPoints", "recap.tallest"];
  if (urban) columns.push("recap.urban");
  columns.push("recap.total");
  head.append(...columns.map((k) => el("th", "", t(k))));
  grid.append(head);
  view.rules.colors.forEach((colors, p) => {
    const part = playerPart(record, colors);
    const row = el("tr");
    const hoods = nameHoods && part.hoods.length ? ` (${part.hoods.join(", ")})` : "";
    row.append(el("th", "", seatName(p)), el("td", "", String(part.buildings)), el("td", "", `${part.majorities}${hoods}`));
    row.append(el("td", "", String(part.tallest)));
    if (urban) row.append(el("td", "", String(part.urban)));
    const total = el("td");
    total.append(el("b", "", `+${part.total}`));
    row.append(total);
    grid.append(row);
  });
  return grid;
}

// Where each player's building points lie: per neighborhood, the buildings they own (1 point
// each), a majority's points (a star), the tallest building's bonus (a crown). Worked out from the board this
// page holds (the round record sums them per color); left out if that board is no longer the
// one scored (its buildings do not add up to the record's).
export function perNeighborhood(record, view) {
  const board = view.board;
  const heights = board.map((hood) => hood.map((b) => b.reduce((h, [, f]) => h + f, 0)));
  const top = Math.max(...heights.flat());
  const tallest = heights.flat().filter((h) => h === top).length === 1 ? heights.flat().indexOf(top) : -1;
  const players = view.rules.colors.map((colors) => {
    const part = playerPart(record, colors);
    const won = colors.flatMap((c) => record.scores[c].majorities ?? []);
    const cells = board.map((hood, n) => ({
      buildings: hood.filter((b) => b.length && colors.includes(b.at(-1)[0])).length,
      majority: won.includes(n) ? part.majorities / won.length : 0,
      tallest: part.tallest && tallest >= 0 && Math.floor(tallest / 9) === n ? part.tallest : 0,
    }));
    const ok = cells.reduce((k, c) => k + c.buildings, 0) === part.buildings;
    return ok ? cells : null;
  });
  return players.every(Boolean) ? players : null;
}

function hoodsTable(record, view) {
  const players = perNeighborhood(record, view);
  if (!players) return [];
  const grid = el("table", "breakdown recap-hoods");
  grid.tabIndex = 0;
  const head = el("tr");
  head.append(el("th", "", t("recap.hood")), ...players.map((_, p) => el("th", "", seatName(p))));
  grid.append(head);
  HOODS.forEach((name, n) => {
    const row = el("tr");
    row.append(el("th", "", name));
    for (const cells of players) {
      const { buildings, majority, tallest } = cells[n];
      const cell = el("td", "", buildings || majority || tallest ? String(buildings) : "·");
      if (majority) cell.append(" ", icon("star"), `+${majority}`);
      if (tallest) cell.append(" ", icon("crown"), `+${tallest}`);
      cell.dataset.points = String(buildings + majority + tallest);
      row.append(cell);
    }
    grid.append(row);
  });
  const legend = el("p", "hint");
  legend.append(t("recap.hoodsLegend"), " ", icon("star"), ` ${t("recap.legendMajority")}; `, icon("crown"), ` ${t("recap.legendTallest")}.`);
  return [grid, legend];
}

// The recap of the round just scored, until closed or the next round's recap.
export function drawRecap() {
  const box = $("recap");
  const view = S.table?.view;
  if (!S.recap || !view || S.replay) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const close = el("button", "quiet", t("recap.close"));
  close.id = "close-recap";
  close.addEventListener("click", () => {
    S.recap = null;
    box.hidden = true;
  });
  const hoods = hoodsTable(S.recap, view);
  const parts = recapTable(S.recap, view, hoods.length === 0);
  box.replaceChildren(el("h2", "", t("recap.title", { round: S.recap.round })), parts, ...hoods, close);
}

function breakdown(view) {
  const grid = el("table", "breakdown");
  grid.tabIndex = 0;
  const head = el("tr");
  head.append(el("th", "", t("recap.round")), ...view.rules.colors.map((_, p) => el("th", "", seatName(p))));
  grid.append(head);
  const urban = Boolean(view.rules.variants?.urbanRules);
  for (const record of view.history) {
    const row = el("tr");
    row.append(el("th", "", String(record.round)));
    for (const colors of view.rules.colors) {
      const part = playerPart(record, colors);
      const cell = el("td");
      cell.append(el("b", "", String(part.total)));
      cell.append(el("span", "hint", ` = ${part.buildings} + ${part.majorities} + ${part.tallest}${urban ? ` + ${part.urban}` : ""}`));
      row.append(cell);
    }
    grid.append(row);
  }
  return [grid, el("p", "hint", t(urban ? "recap.sumUrban" : "recap.sum"))];
}

export function drawEnding() {
  const box = $("ending");
  const { table } = S;
  if (table.status !== "over" || !table.view || S.replay) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.replaceChildren(el("h2", "", t("end.title")));
  const ranking = el("ol", "ranking");
  for (const r of table.ranking ?? []) {
    const item = el("li");
    item.append(`${r.place}. `, who(r.player), ` ${t("points", { n: r.score })}`);
    ranking.append(item);
  }
  box.append(ranking, ...breakdown(table.view));
  const replay = el("button", "", t("replay.open"));
  replay.id = "open-replay";
  replay.addEventListener("click", () => ask("openReplay"));
  box.append(replay, " ");
  if (bearer()) {
    const again = el("button", "primary", table.rematch ? t("end.toRematch") : t("end.rematch"));
    again.id = "rematch";
    // The service seats the caller at the rematch, whether they open it or join it.
    again.addEventListener("click", () => ask("rematch"));
    box.append(again);
  }
}
