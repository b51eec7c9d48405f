// A table's live side: the stream of its events, the refreshes they call for, and taking in a
// newer answer of the service.

import * as api from "./api.js";
import { $, S, notice } from "./state.js";
import { addLine, drawChatLine, drawLog, logEvent } from "./log.js";
import { drawClock, render } from "./render.js";

// -- a table ---------------------------------------------------------------------------------
export async function showTable() {
  $("lobby").hidden = true;
  $("table").hidden = false;
  S.seat = api.seatOf(S.tableId);
  S.host = api.hostOf(S.tableId);
  S.log = api.savedLog(S.tableId);
  drawLog();
  $("share-link").value = `${location.origin}${location.pathname}?table=${encodeURIComponent(S.tableId)}`;
  await refresh();
  follow();
  S.timer = setInterval(drawClock, 1000);
}

// The live stream: a seat's (with a ticket), or a spectator's of a public table. A private
// table shows nothing live to someone without a seat until they join.
export function follow() {
  S.stream?.stop();
  S.stream = null;
  if (!S.seat && S.table && S.table.public === false) {
    $("connection").textContent = "private table: take a seat to follow it live";
    $("connection").className = "";
    return;
  }
  S.stream = api.follow(S.tableId, () => S.seat?.seatToken, onEvent, (state) => {
    $("connection").textContent = state === "live" ? "● live" : "○ reconnecting…";
    $("connection").className = state;
    if (state === "live") refresh(); // catch up on whatever happened while away
  });
}


export async function refresh() {
  try {
    take(await api.call(`/tables/${encodeURIComponent(S.tableId)}`, { bearer: S.seat?.seatToken }));
  } catch (error) {
    if (error.code === "BAD_SEAT" && S.seat) {
      // The seat is gone (left, or a token of another server's past): watch instead.
      api.dropSeat(S.tableId);
      S.seat = null;
      notice("Your seat at this table is no longer yours; you are watching.");
      return refresh();
    }
    if (error.code === "TABLE_NOT_FOUND") {
      notice("There is no such table (it may have ended long ago).");
      return;
    }
    notice(`The service does not answer: ${error.message}`);
  }
}

let refreshing = null;
export function refreshSoon() {
  // Events arrive in bursts (a move, then bots' moves): one refresh for a burst.
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    refreshing = null;
    await refresh();
  }, 60);
}

export function take(table) {
  if (S.table && table.version < S.table.version) return; // an older answer overtaken
  // A chat line or a join changes the version but not what this seat may do: keep the piece
  // chosen and the block clicked unless the legal moves changed.
  const turnChanged = !S.table || JSON.stringify(S.table.moves) !== JSON.stringify(table.moves);
  S.table = table;
  if (turnChanged) {
    if (!table.moves.length) {
      S.piece = null;
      S.pick = [0, 0, 0, 0];
    }
    S.target = null;
    S.why.clear();
    $("why").textContent = "";
  }
  render();
}

export function onEvent(type, data, version) {
  if (type === "chat") drawChatLine(data);
  if (type === "snapshot") {
    if (S.log.version && data.version > S.log.version) addLine(data.version, "(reconnected: caught up with the table)");
    take(data);
  } else {
    logEvent(type, data, version);
    refreshSoon();
  }
}
