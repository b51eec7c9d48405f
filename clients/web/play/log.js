// "What happened": one line per event, in order, with blocks by their one name, from the
// service's history of the table when the page opens (as it reads for those who watched from the
// start) and its events since; the last build, marked on the board, named in the status line
// and said to screen readers; and the chat lines.

import * as api from "./api.js";
import { spotName } from "./board.js";
import { t } from "./i18n.js";
import { el } from "./nodes.js";
import { $, S, blockText, colorText, me, piecesText, seatName, whoText } from "./state.js";

const KEPT_LINES = 400;
let replaying = false; // a history being read: its lines are drawn once, at its end, unannounced

export function addLine(version, text, cls = "") {
  S.log.lines.push({ version, text, cls });
  if (S.log.lines.length > KEPT_LINES) S.log.lines.splice(0, S.log.lines.length - KEPT_LINES);
  S.log.version = Math.max(S.log.version, version);
  if (replaying) return;
  api.keepLog(S.tableId, S.log);
  const item = el("li", cls, text);
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

export function drawLog() {
  $("log").replaceChildren(...S.log.lines.map((l) => el("li", l.cls, l.text)));
  $("log").lastElementChild?.scrollIntoView({ block: "nearest" });
}

// The service's history of the table (GET /v1/tables/{id}/history: what this seat, or anyone
// without one, may see) as the log; the lines that came live after its version stay after it.
export function takeHistory(history) {
  const later = S.log.lines.filter((line) => line.version > history.version);
  S.log = { version: 0, lines: [], last: null, lastMove: null };
  replaying = true;
  try {
    for (const { event, data } of history.events) logEvent(event, data, 0);
  } finally {
    replaying = false;
  }
  S.log.lines.push(...later);
  S.log.lines.splice(0, Math.max(0, S.log.lines.length - KEPT_LINES));
  S.log.version = Math.max(history.version, ...later.map((line) => line.version));
  api.keepLog(S.tableId, S.log);
  drawLog();
}

// The screen reader's line (an aria-live region): the last move, said once.
function announce(text) {
  $("announce").textContent = text;
}

export function logEvent(type, data, version) {
  if (version && version <= S.log.version) return; // seen before a reconnect
  const line = {
    joined: () => t("log.joined", { name: data.name ?? t("someone"), seat: (data.player ?? 0) + 1 }),
    left: () => t(S.table?.status === "playing" ? "log.leftBot" : "log.left", { name: data.name ?? t("someone") }),
    started: () => t("log.started", { n: data.players }),
    timeout: () => t("log.timeout", { name: data.player !== undefined ? whoText(data.player) : t("someone") }),
    over: () => t("log.over"),
  }[type];
  if (line) addLine(version, line(), type === "started" || type === "over" ? "head" : "");
  if (type === "move") logMove(data, version);
}

// The last build of a move's events: {player, floors, block, from} (`from` the color it was
// taken from), or a forfeit; null when the move built nothing.
export function lastBuild(events) {
  let last = null;
  for (const event of events) {
    if (event.type === "piecePlaced") last = { player: event.player, floors: event.floors, block: event.block, from: null };
    else if (event.type === "takeover" && last) last.from = event.from;
    else if (event.type === "pieceForfeited") last = { player: event.player, floors: event.floors, forfeit: true };
  }
  return last;
}

// Where a last build stands on the board: "n:b", or null.
export const lastKey = (last) => (last?.block ? `${last.block[0]}:${last.block[1] * 3 + last.block[2]}` : null);

function logMove(data, version) {
  const lines = [];
  for (const event of data.events) {
    const text = eventText(event, data);
    if (!text) continue;
    addLine(version, text, event.type === "roundScored" ? "head" : "");
    lines.push(text);
  }
  const built = lastBuild(data.events);
  if (built) {
    S.log.lastMove = built;
    S.log.last = lastKey(built);
    if (!replaying) S.dropped = S.log.last;
  }
  S.log.version = Math.max(S.log.version, version);
  if (replaying) return;
  api.keepLog(S.tableId, S.log);
  if (lines.length) announce(lines.join(" "));
}

const by = (p) => `${seatName(p)}${p === me() ? ` ${t("you")}` : ""}`;

function scoredText(event) {
  const totals = (S.table?.view?.rules.colors ?? []).map(
    (cs, p) => `${seatName(p)} +${cs.reduce((s, c) => s + event.scores[c].total, 0)}`,
  );
  return t("log.scored", { round: event.round, totals: totals.join(", ") });
}

export function eventText(event, move) {
  const texts = {
    piecesSelected: () => t("log.selected", { who: by(event.player), color: colorText(event.color), pieces: piecesText(event.pieces) }),
    piecePlaced: () =>
      t("log.built", {
        who: by(event.player),
        floors: t("floors", { n: event.floors }),
        color: colorText(event.color),
        block: blockText(event.block),
        height: event.height,
        bot: move.bot ? ` (${t("tag.bot")})` : "",
      }),
    takeover: () => t("log.takeover", { to: colorText(event.to), block: blockText(event.block), from: colorText(event.from) }),
    pieceForfeited: () => t("log.forfeit", { who: by(event.player), floors: event.floors }),
    monsterMoved: () => t("log.monsterMoved", { block: blockText(event.to) }),
    buildingDestroyed: () => t("log.destroyed", { block: blockText(event.block) }),
    pieceRemoved: () => t("log.knocked", { block: blockText(event.block) }),
    deckReshuffled: () => t("log.reshuffled"),
    cardDrawn: () => (event.player === me() ? t("log.drawn", { spot: spotName(event.card) }) : null),
    roundScored: () => scoredText(event),
    urbanRevealed: () => t("log.urban", { card: event.card ?? event.name ?? "" }),
    roundStarted: () => t("log.roundStarted", { round: event.round }),
  };
  return texts[event.type]?.() ?? null;
}

// -- chat --------------------------------------------------------------------------------------
export function drawChatLine(message) {
  const item = el("li");
  item.append(el("b", "", `${message.name ?? "?"}: `), message.text);
  $("chat").append(item);
  item.scrollIntoView({ block: "nearest" });
}
