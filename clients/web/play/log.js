// "What happened": one line per event, in order, kept across reloads; and the chat lines.

import * as api from "./api.js";
import { SPOTS, el } from "./board.js";
import { $, S, blockText, colorText, me, piecesText, seatName, whoText } from "./state.js";

// -- what happened, in order, one line per event ----------------------------------------------
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

export function logEvent(type, data, version) {
  if (version && version <= S.log.version) return; // seen before a reconnect
  const name = (player) => whoText(player);
  switch (type) {
    case "joined":
      addLine(version, `${data.name ?? "Someone"} sits down${data.seat !== undefined ? ` at seat ${data.seat + 1}` : ""}.`);
      break;
    case "left":
      addLine(version, `${data.name ?? "Someone"} leaves${S.table?.status === "playing" ? "; a bot plays their seat" : ""}.`);
      break;
    case "started":
      addLine(version, `The game starts with ${data.players} players.`, "head");
      break;
    case "timeout":
      addLine(version, `${data.player !== undefined ? name(data.player) : "A player"} ran out of time: a bot plays this turn.`);
      break;
    case "over":
      addLine(version, "The game is over.", "head");
      break;
    case "move":
      for (const event of data.events) {
        const line = eventText(event, data);
        if (line) addLine(version, line, event.type === "roundScored" ? "head" : "");
      }
      S.log.version = Math.max(S.log.version, version);
      break;
    default:
      break;
  }
}

export function eventText(event, move) {
  const by = (p) => `${seatName(p)}${p === me() ? " (you)" : ""}`;
  switch (event.type) {
    case "piecesSelected":
      return `${by(event.player)} takes ${colorText(event.color)} pieces for the round: ${piecesText(event.pieces)}.`;
    case "piecePlaced":
      return `${by(event.player)} builds ${event.floors} floor${event.floors > 1 ? "s" : ""} of ${colorText(event.color)} on ${blockText(event.block)}: ${event.height} high${move.bot ? " (bot)" : ""}.`;
    case "takeover":
      return `${colorText(event.to)} takes the building on ${blockText(event.block)} from ${colorText(event.from)}.`;
    case "pieceForfeited":
      return `${by(event.player)} cannot build: gives up a ${event.floors}-floor piece.`;
    case "monsterMoved":
      return `The monster moves to ${blockText(event.to)}.`;
    case "buildingDestroyed":
      return `The monster destroys the building on ${blockText(event.block)}.`;
    case "pieceRemoved":
      return `The monster knocks the top piece off ${blockText(event.block)}.`;
    case "deckReshuffled":
      return "The deck is reshuffled.";
    case "cardDrawn":
      return event.player === me() ? `You draw a card: the ${SPOTS[event.card]} block.` : null;
    case "roundScored": {
      const totals = (S.table?.view?.rules.colors ?? []).map((cs, p) =>
        `${seatName(p)} +${cs.reduce((s, c) => s + event.scores[c].total, 0)}`);
      return `Round ${event.round} scored: ${totals.join(", ")}.`;
    }
    case "urbanRevealed":
      return `Urban card revealed: ${event.card ?? event.name ?? ""}.`;
    case "roundStarted":
      return `Round ${event.round} begins.`;
    default:
      return null;
  }
}

// -- chat --------------------------------------------------------------------------------------
export function drawChatLine(message) {
  const item = el("li");
  item.append(el("b", "", `${message.name ?? "?"}: `), message.text);
  $("chat").append(item);
  item.scrollIntoView({ block: "nearest" });
}
