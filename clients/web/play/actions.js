// What a person does at a table: chat and its commands, join, start, leave, rematch, a move;
// over the table's socket while it is live for this seat, else over HTTP (live.js `send`).
// The commands and the buttons answer with the same texts (state.js `situationText`).

import * as api from "./api.js";
import { t } from "./i18n.js";
import { notice } from "./nodes.js";
import { render } from "./render.js";
import { $, S, bearer, joinable, situationText, waitingSituation } from "./state.js";
import { follow, moved, refresh, take } from "./connection.js";
import { send } from "./live.js";

export async function sendChat(event) {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  // The platform's commands (seeds 001, 004): /join, then /start; and /leave.
  const [command, ...rest] = text.split(/\s+/);
  try {
    if (command === "/join") await join(rest.join(" ") || api.myName());
    else if (command === "/start") await start();
    else if (command === "/leave") await leave();
    else if (command.startsWith("/")) notice(t("chat.commands"));
    else if (!S.seat) notice(S.table?.status === "waiting" && joinable(S.table) ? t("chat.sitDown") : t("chat.watching"));
    else await send(S.stream, S.tableId, "chat", { text }, S.seat.seatToken);
  } catch (error) {
    notice(error.message);
  }
}

export async function join(name) {
  name = (name || "").trim();
  if (S.seat) return notice(t("join.already"));
  if (S.table?.status === "waiting" && !joinable(S.table)) return notice(situationText("full"));
  if (!name) return notice(t("join.name"));
  api.keepName(name);
  const joined = await api.call(`/tables/${S.tableId}/join`, { body: { name } });
  S.seat = { seatToken: joined.seatToken, name };
  api.keepSeat(S.tableId, S.seat);
  notice("");
  take(joined.table);
  follow();
}

export async function start() {
  // Someone who cannot start is told what the page offers them instead, in the status's words.
  if (S.table?.status === "waiting" && waitingSituation() !== "canStart") return notice(situationText(waitingSituation()));
  take((await send(S.stream, S.tableId, "start", {}, bearer())).table);
}

export async function leave() {
  if (!S.seat) return notice(t("leave.notSeated"));
  if (S.table?.status === "playing" && !confirm(t("leave.confirm"))) return;
  await send(S.stream, S.tableId, "leave", {}, S.seat.seatToken);
  api.dropSeat(S.tableId);
  S.seat = null;
  await refresh();
  follow();
}

export async function rematch() {
  const answer = await send(S.stream, S.tableId, "rematch", {}, bearer());
  const id = answer.tableId ?? answer.table?.tableId;
  if (answer.seatToken) api.keepSeat(id, { seatToken: answer.seatToken, name: S.seat?.name });
  if (answer.hostToken) api.keepHost(id, answer.hostToken);
  location.search = `?table=${encodeURIComponent(id)}`;
}

// The selection being put together (counts of 1..4-floor pieces).
export function pick(counts) {
  S.pick = counts;
  render();
}

// -- moves -----------------------------------------------------------------------------------
// A move's id (the service answers a repeat as the first time): crypto.randomUUID exists only
// in secure contexts, which a page over plain http on a network address, or framed by one, is not.
function moveId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function play(move) {
  if (S.busy) return;
  S.busy = true;
  const body = { move: strip(move), version: S.table.version, moveId: moveId() };
  try {
    const answer = await send(S.stream, S.tableId, "moves", body, S.seat.seatToken);
    S.piece = null;
    S.pick = [0, 0, 0, 0];
    S.target = null;
    moved(answer); // no GET of the table: the answer and the stream say what changed
  } catch (error) {
    if (error.code === "STALE_VERSION" && error.body.table) {
      take(error.body.table);
      notice(t("move.stale"));
    } else {
      notice(error.message);
      await refresh();
    }
  } finally {
    S.busy = false;
  }
}

// A move as the contract takes it in (MoveIn): no player, block or notation.
export function strip(move) {
  const out = { type: move.type };
  for (const k of ["color", "pieces", "card", "neighborhood", "floors"]) if (move[k] !== undefined && move[k] !== null) out[k] = move[k];
  return out;
}
