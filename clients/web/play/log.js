// "What happened": one line per event, in order, kept across reloads, with blocks by their one
// name; the last move, marked on the board and said to screen readers; and the chat lines.

import * as api from "./api.js";
import { el, spotName } from "./board.js";
import { t } from "./i18n.js";
import { $, S, blockText, colorText, me, piecesText, seatName, whoText } from "./state.js";

export function addLine(version, text, cls = "") {
  S.log.lines.push({ version, text, cls });
  if (S.log.lines.length > 400) S.log.lines.splice(0, S.log.lines.length - 400);
  S.log.version = Math.max(S.log.version, version);
  api.keepLog(S.tableId, S.log);
  const item = el("li", cls, text);
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

export function drawLog() {
  $("log").replaceChildren(...S.log.lines.map((l) => el("li", l.cls, l.text)));
}

// The screen reader's line (an aria-live region): the last move, said once.
function announce(text) {
  $("announce").textContent = text;
}

export function logEvent(type, data, version) {
  if (version && version <= S.log.version) return; // seen before a reconnect
  const line = {
    joined: () => t("log.joined", { name: data.name ?? t("someone"), seat: (data.seat ?? 0) + 1 }),
    left: () => t(S.table?.status === "playing" ? "log.leftBot" : "log.left", { name: data.name ?? t("someone") }),
    started: () => t("log.started", { n: data.players }),
    timeout: () => t("log.timeout", { name: data.player !== undefined ? whoText(data.player) : t("someone") }),
    over: () => t("log.over"),
  }[type];
  if (line) addLine(version, line(), type === "started" || type === "over" ? "head" : "");
  if (type === "move") logMove(data, version);
}

function logMove(data, version) {
  const lines = [];
  for (const event of data.events) {
    const text = eventText(event, data);
    if (text) {
      addLine(version, text, event.type === "roundScored" ? "head" : "");
      lines.push(text);
    }
    if (event.type === "piecePlaced") {
      const [n, r, c] = event.block;
      S.log.last = `${n}:${r * 3 + c}`;
    } else if (event.type === "pieceForfeited") S.log.last = null;
  }
  S.log.version = Math.max(S.log.version, version);
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
