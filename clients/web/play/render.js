// Drawing a table: the status line (sticky: the situation, the clock, the last build), the
// players, the seat's buttons, the board, the hand; "your turn" in the tab title. Keyboard
// focus survives every redraw, and a turn that comes to this page puts it on the turn's first
// control. What a person asks for goes up through the bus.

import * as api from "./api.js";
import { ask } from "./bus.js";
import { rotate, spotName } from "./board.js";
import { marks } from "./choices.js";
import { t } from "./i18n.js";
import { chip, el, who } from "./nodes.js";
import { drawBoard, drawCard } from "./skyline.js";
import { drawAction } from "./turn.js";
import { drawChatLine } from "./log.js";
import { drawEnding, drawRecap } from "./scores.js";
import { drawReplay } from "./replaybar.js";
import { $, S, bearer, joinable, lastMoveText, me, piecesText, seatName, side, situationText, waitingSituation } from "./state.js";

// The focused control, as a selector that finds its redrawn twin (a redraw replaces the nodes).
function focusSelector() {
  const node = document.activeElement;
  if (!node || node === document.body || !node.closest("#table")) return null;
  if (node.id) return `#${node.id}`;
  const data = Object.entries(node.dataset).map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${v}"]`);
  return `${node.tagName.toLowerCase()}.${[...node.classList][0] ?? ""}${data.join("")}`;
}

const lost = () => !document.activeElement || document.activeElement === document.body;

export function render() {
  const table = S.table;
  if (!table || S.gone) return;
  const focused = focusSelector();
  const inPlay = Boolean(document.activeElement?.closest?.("#play-area"));
  draw(table);
  // Keyboard users keep their place across redraws (a move, a chat line, a tick of the table);
  // a control that is gone or disabled hands the focus to the turn's next one, never the body.
  if (focused && lost()) {
    const twin = document.querySelector(focused);
    if (twin && !twin.disabled) twin.focus();
  }
  if ((focused && lost()) || (S.turnStarted && (inPlay || lost()))) focusTurn();
  S.turnStarted = false;
}

// The control a turn goes on with: "Build here" once a block is chosen, the piece picked (or
// the first), the first size still to choose, the selection to confirm, a card to give up;
// the board when the turn is someone else's.
export function focusTurn() {
  const next = [
    "#confirm-build",
    "#action .piece-button[tabindex='0']",
    "#action .piece-button.size:not([disabled])",
    "#confirm-select:not([disabled])",
    "#start-over:not([disabled])",
    "#action .card.forfeit",
    "#board .block[tabindex='0']",
  ];
  for (const selector of next) {
    const node = document.querySelector(selector);
    if (node && node.offsetParent !== null) return node.focus();
  }
}

function draw(table) {
  const mine = table.moves.length > 0;
  document.title = `${mine ? `${t("title.yourTurn")} · ` : ""}Manhattan: ${table.name || t("table")}`;
  $("table-name").textContent = table.name || "";
  Object.assign(document.body.dataset, {
    status: table.status,
    myTurn: String(mine),
    phase: table.view?.phase ?? "",
    version: String(table.version),
  });
  drawStatus();
  drawPlayers();
  drawSeatActions();
  if (S.replay) drawReplay();
  else if (table.view) drawPlay();
  else drawWaiting();
  $("hand-area").hidden = !table.view || me() === null || Boolean(S.replay);
  if ($("chat").childElementCount === 0 && table.chat) for (const m of table.chat) drawChatLine(m);
  drawRecap();
  drawEnding();
  document.body.dataset.ready = "true";
}

export function redrawBoard() {
  const onBlock = (n, b, byKeyboard) => ask("block", n, b, byKeyboard);
  drawBoard($("board"), S.table.view, { marks, onBlock, last: S.log.last, dropped: S.dropped });
  S.dropped = null; // a piece drops in once, not at every redraw
  // A block your cards allow but the chosen piece cannot take says why when pointed at.
  if (!S.piece) return;
  for (const block of $("board").querySelectorAll(".block.allowed")) {
    const why = () => ask("why", Number(block.dataset.n), Number(block.dataset.b));
    block.addEventListener("mouseenter", why);
    block.addEventListener("focus", why);
  }
}

function drawPlay() {
  redrawBoard();
  drawAction();
  drawHand();
}

function drawWaiting() {
  const { table } = S;
  const waiting = el("div", "waiting");
  const seated = table.seats.filter((s) => s.kind !== "open").length;
  waiting.append(el("h2", "", t("wait.title", { filled: seated, all: table.seats.length })));
  waiting.append(el("p", "", situationText(waitingSituation())));
  if (table.turnSeconds) waiting.append(el("p", "hint", t("wait.clock", { s: table.turnSeconds })));
  $("board").replaceChildren(waiting);
  $("action").replaceChildren();
  $("hand").replaceChildren();
}

export function drawStatus() {
  const { table } = S;
  const status = $("status");
  status.replaceChildren();
  if (table.status === "waiting") {
    const seated = table.seats.filter((s) => s.kind !== "open").length;
    status.append(`${t("wait.title", { filled: seated, all: table.seats.length })}. `);
    status.append(el("span", "situation", situationText(waitingSituation())));
    return;
  }
  const view = table.view;
  const line = el("span", "now");
  if (table.status === "over") line.append(t("status.over"));
  else {
    line.append(`${t("status.round", { round: view.round, rounds: view.rules.rounds })} · `);
    if (table.moves.length) {
      line.append(el("b", "", t(view.phase === "select" ? "status.yourSelect" : "status.yourBuild")));
    } else {
      line.append(who(table.toMove), " ", t(view.phase === "select" ? "status.selecting" : "status.building"));
    }
    line.append(el("span", "clock", ""));
  }
  status.append(line);
  const last = lastMoveText();
  if (last) status.append(el("span", "last-move", last));
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
  clock.textContent = ` · ${t("status.left", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` })}`;
  clock.classList.toggle("urgent", left <= 10);
}

function seatTags(seat, index) {
  const tags = [];
  if (seat.kind === "bot") tags.push(el("span", "tag", t("tag.bot")));
  if (seat.away) tags.push(el("span", "tag away", t("tag.away")));
  // Your own seat is connected while this page's stream is live, whatever the last answer said.
  const connected = index === S.table.you && S.seat ? S.live || seat.connected : seat.connected;
  if (seat.kind === "human" && !connected) tags.push(el("span", "tag offline", t("tag.offline")));
  return tags;
}

function colorLines(index) {
  const view = S.table.view;
  const line = el("div", "colors");
  for (const c of view.rules.colors[index]) {
    const part = el("span", "color-line");
    part.append(chip(c), ` ${t("points", { n: view.scores[c] })}`);
    const sel = view.selected[c];
    if (sel.some(Boolean)) part.append(el("span", "hint", ` · ${t("players.toBuild", { pieces: piecesText(sel) })}`));
    const left = view.supply[c].reduce((s, k) => s + k, 0);
    part.append(el("span", "hint", ` · ${t("players.supply", { n: left })}`));
    line.append(part);
  }
  return line;
}

function drawPlayers() {
  const { table } = S;
  const items = table.seats.map((seat, index) => {
    const item = el("li", `seat ${seat.kind}`);
    item.dataset.player = String(index);
    if (seat.kind === "open") {
      // A seat kept for a rematch's player (the service's keptFor) is not open to others.
      if (seat.keptFor) item.classList.add("kept");
      item.append(el("span", "hint", seat.keptFor ? t("seat.keptFor", { name: seat.keptFor }) : t("seat.open")));
      return item;
    }
    if (table.status !== "waiting") item.append(who(index));
    else {
      item.append(el("b", "", seatName(index)));
      if (index === table.you) item.append(el("span", "you", ` ${t("you")}`));
    }
    item.append(...seatTags(seat, index));
    if (table.view && table.toMove === index && table.status === "playing") {
      item.classList.add("to-move");
      item.append(el("span", "tag turn", t("tag.turn")));
    }
    if (table.view) item.append(colorLines(index));
    return item;
  });
  $("players").replaceChildren(...items);
  $("share").hidden = table.status !== "waiting";
}

// The join form, kept across renders: a waiting table renders again on every change (a seat
// taken, a setting), and a new form would drop what a person is typing, or their click.
let kept = null;

function joinForm() {
  const placeholder = t("join.placeholder");
  if (kept?.placeholder === placeholder) return kept.form;
  const form = el("form", "join-form");
  const input = el("input");
  input.name = "name";
  input.placeholder = placeholder;
  input.setAttribute("aria-label", placeholder);
  input.value = kept ? kept.input.value : api.myName();
  input.required = true;
  const button = el("button", "", t("join.button"));
  button.type = "submit";
  button.id = "join-button";
  form.append(input, button);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    ask("join", input.value);
  });
  kept = { form, input, placeholder };
  return form;
}

// The seat's buttons: exactly what the status line offers (situationText says the same).
function drawSeatActions() {
  const { table } = S;
  const box = $("seat-actions");
  const focused = box.contains(document.activeElement) ? document.activeElement : null;
  box.replaceChildren();
  if (table.status === "waiting") {
    if (!S.seat && joinable(table)) box.append(joinForm());
    if (focused?.isConnected) focused.focus(); // the kept form's input, as the person left it
    if (bearer()) {
      const button = el("button", "primary", t("start.button"));
      button.id = "start-button";
      button.disabled = waitingSituation() !== "canStart";
      button.addEventListener("click", () => ask("start"));
      box.append(button);
    }
  } else if (!S.seat) {
    box.append(el("p", "hint", t("players.watching")));
  }
  if (S.seat && table.status !== "over") {
    const button = el("button", "quiet", t("leave.button"));
    button.addEventListener("click", () => ask("leave"));
    box.append(button);
  }
}

// The hand, each card as its holder reads it from their own side of the board; the block it
// designates there (RULES §2) lights up on the board while the card is pointed at or focused.
function drawHand() {
  const view = S.table.view;
  const building = S.table.moves.length > 0 && view.phase === "build";
  const cards = (view.hand ?? []).map((position) =>
    drawCard(position, {
      chosen: S.hoverCard === position,
      label: t("card.designates", { spot: spotName(position), block: spotName(rotate(position, side())) }),
      onHover: (p) => {
        S.hoverCard = p;
        redrawBoard();
      },
    }),
  );
  $("hand").replaceChildren(...cards);
  $("hand").classList.toggle("active", building);
  $("hand-side").textContent = t("hand.side", { side: t(`side.${side()}`) });
}
