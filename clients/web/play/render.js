// Drawing a table: the status line and clock, the players, the seat's buttons, the board, the
// hand and the end of the game.

import * as api from "./api.js";
import { chip, drawBoard, drawCard, el } from "./board.js";
import { $, S, bearer, me, notice, piecesText, seatName, side, who } from "./state.js";
import { explainOnHover, marks, onBlock } from "./building.js";
import { drawAction } from "./turn.js";
import { drawChatLine } from "./log.js";
import { join, leave, rematch, start } from "./actions.js";

// -- drawing -----------------------------------------------------------------------------------
export function render() {
  const table = S.table;
  if (!table) return;
  document.title = `Manhattan: ${table.name || "table"}`;
  $("table-name").textContent = table.name || "";
  document.body.dataset.status = table.status;
  document.body.dataset.myTurn = String(table.moves.length > 0);
  document.body.dataset.phase = table.view?.phase ?? "";
  document.body.dataset.version = String(table.version);
  drawStatus();
  drawPlayers();
  drawSeatActions();
  if (table.view) {
    drawBoard($("board"), table.view, side(), marks, onBlock);
    explainOnHover();
    drawAction();
    drawHand();
  } else {
    const waiting = el("div", "waiting");
    const seated = table.seats.filter((s) => s.kind !== "open").length;
    waiting.append(el("h2", "", `Waiting for players: ${seated} of ${table.seats.length} seats taken`));
    waiting.append(el("p", "", S.seat
      ? "Send the link to the people you want to play with. Anyone seated can start (the button, or /start in the chat); open seats left at the start are dropped."
      : "Take a seat with your name (or type /join your name in the chat)."));
    if (table.turnSeconds) waiting.append(el("p", "hint", `Time per turn: ${table.turnSeconds} s; when it runs out a bot plays the turn and the seat is marked away.`));
    $("board").replaceChildren(waiting);
    $("action").replaceChildren();
    $("hand").replaceChildren();
  }
  $("hand-area").hidden = !table.view || me() === null;
  if ($("chat").childElementCount === 0 && table.chat) for (const m of table.chat) drawChatLine(m);
  drawEnding();
  document.body.dataset.ready = "true";
}


export function drawStatus() {
  const { table } = S;
  const status = $("status");
  status.replaceChildren();
  if (table.status === "waiting") {
    const seated = table.seats.filter((s) => s.kind !== "open").length;
    status.append(`Waiting for players: ${seated} of ${table.seats.length} seats taken. `);
    status.append(S.seat ? "Start when everyone is here (/start)." : "Type /join your name in the chat, or use the button, to play.");
    return;
  }
  const view = table.view;
  if (table.status === "over") {
    status.append("The game is over.");
    return;
  }
  status.append(`Round ${view.round} of ${view.rules.rounds} · `);
  if (table.moves.length) {
    status.append(el("b", "", view.phase === "select" ? "Your turn: choose your pieces for the round." : "Your turn: pick a piece, then a highlighted block."));
  } else {
    status.append(who(table.toMove), view.phase === "select" ? " is choosing pieces" : " is building");
  }
  status.append(el("span", "clock", ""));
  drawClock();
}

export function drawClock() {
  const clock = document.querySelector("#status .clock");
  if (!clock || !S.table) return;
  const deadline = S.table.deadline;
  if (!deadline || S.table.status !== "playing") {
    clock.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  clock.textContent = ` · ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
  clock.classList.toggle("urgent", left <= 10);
}

export function drawPlayers() {
  const { table } = S;
  const view = table.view;
  const items = table.seats.map((seat, index) => {
    const item = el("li", `seat ${seat.kind}`);
    item.dataset.player = String(index);
    if (seat.kind === "open") {
      item.append(el("span", "hint", "open seat"));
      return item;
    }
    if (table.status !== "waiting") item.append(who(index));
    else {
      item.append(el("b", "", seatName(index)));
      if (index === table.you) item.append(el("span", "you", " (you)"));
    }
    if (seat.kind === "bot") item.append(el("span", "tag", "bot"));
    if (seat.away) item.append(el("span", "tag away", "away"));
    if (seat.kind === "human" && !seat.connected) item.append(el("span", "tag", "offline"));
    if (view && table.toMove === index && table.status === "playing") {
      item.classList.add("to-move");
      item.append(el("span", "tag turn", "to move"));
    }
    if (view) {
      const line = el("div", "colors");
      for (const c of view.rules.colors[index]) {
        const part = el("span", "color-line");
        part.append(chip(c), ` ${view.scores[c]} pts`);
        const sel = view.selected[c];
        if (sel.some(Boolean)) part.append(el("span", "hint", ` · to build: ${piecesText(sel)}`));
        const left = view.supply[c].reduce((s, k) => s + k, 0);
        part.append(el("span", "hint", ` · ${left} in supply`));
        line.append(part);
      }
      item.append(line);
    }
    return item;
  });
  $("players").replaceChildren(...items);
  $("share").hidden = table.status !== "waiting";
}

export function drawSeatActions() {
  const { table } = S;
  const box = $("seat-actions");
  box.replaceChildren();
  if (table.status === "waiting") {
    if (!S.seat && table.seats.some((s) => s.kind === "open")) {
      const form = el("form", "join-form");
      const input = el("input");
      input.name = "name";
      input.placeholder = "your name";
      input.value = api.myName();
      input.required = true;
      const button = el("button", "", "Take a seat");
      button.type = "submit";
      button.id = "join-button";
      form.append(input, button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        join(input.value).catch((error) => notice(error.message));
      });
      box.append(form);
    }
    if (bearer()) {
      const button = el("button", "primary", "Start the game");
      button.id = "start-button";
      const filled = table.seats.filter((s) => s.kind !== "open").length;
      button.disabled = filled < 2;
      button.addEventListener("click", () => start().catch((error) => notice(error.message)));
      box.append(button);
    }
  } else if (!S.seat) {
    box.append(el("p", "hint", "You are watching this table."));
  }
  if (S.seat && table.status !== "over") {
    const button = el("button", "quiet", "Leave the table");
    button.addEventListener("click", () => leave().catch((error) => notice(error.message)));
    box.append(button);
  }
}

// Under the board: what to do now (select pieces, pick a piece and a block, confirm).

export function drawHand() {
  const view = S.table.view;
  const building = S.table.moves.length > 0 && view.phase === "build";
  const cards = (view.hand ?? []).map((position) =>
    drawCard(position, {
      chosen: S.hoverCard === position,
      onHover: (p) => {
        S.hoverCard = p;
        drawBoard($("board"), view, side(), marks, onBlock);
        explainOnHover();
      },
    }));
  $("hand").replaceChildren(...cards);
  $("hand").classList.toggle("active", building);
}

export function drawEnding() {
  const box = $("ending");
  const { table } = S;
  if (table.status !== "over" || !table.view) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const view = table.view;
  box.replaceChildren(el("h2", "", "Final ranking"));
  const ranking = el("ol", "ranking");
  for (const r of table.ranking ?? []) {
    const item = el("li");
    item.append(`${r.place}. `, who(r.player), ` ${r.score} points`);
    ranking.append(item);
  }
  box.append(ranking);
  // Each round's breakdown, per player (summed over a player's colors).
  const grid = el("table", "breakdown");
  const head = el("tr");
  head.append(el("th", "", "round"), ...view.rules.colors.map((_, p) => el("th", "", seatName(p))));
  grid.append(head);
  const urban = Boolean(view.rules.variants.urbanRules);
  for (const record of view.history) {
    const row = el("tr");
    row.append(el("th", "", String(record.round)));
    view.rules.colors.forEach((cs) => {
      const part = (k) => cs.reduce((s, c) => s + record.scores[c][k], 0);
      // The majorities' points are what the total holds beyond the other parts (edition-free).
      const sum = (k) => (k === "majorities" ? part("total") - part("buildings") - part("tallest") - part("urban") : part(k));
      const cell = el("td");
      cell.append(el("b", "", String(sum("total"))));
      cell.append(el("span", "hint", ` = ${sum("buildings")} + ${sum("majorities")} + ${sum("tallest")}${urban ? ` + ${sum("urban")}` : ""}`));
      row.append(cell);
    });
    grid.append(row);
  }
  box.append(grid, el("p", "hint", `Each round: total = buildings + majorities + tallest${urban ? " + urban" : ""}.`));
  if (bearer()) {
    const again = el("button", "primary", table.rematch ? "Go to the rematch" : "Rematch");
    again.id = "rematch";
    // The service seats the caller at the rematch, whether they open it or join it.
    again.addEventListener("click", () => rematch().catch((error) => notice(error.message)));
    box.append(again);
  }
}
