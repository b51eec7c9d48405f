// A table's live side: the link to its events (the GraphQL socket, or the SSE stream: live.js),
// the refreshes they call for, taking in a newer answer of the service, and saying so plainly
// when the table is gone.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { clearStaleNotice, el, notice } from "./nodes.js";
import { $, S } from "./state.js";
import { drawChatLine, drawLog, logEvent, takeHistory } from "./log.js";
import { drawClock, render } from "./render.js";
import { yourTurn } from "./alerts.js";
import { openReplay } from "./replay.js";
import { follow as followLive } from "./live.js";
import { tellParent } from "./embed.js";

// A seat handed over by link (/play/?table=<id>#seat=<token>, DESIGN §9): kept in this tab like
// a seat taken here, and dropped from the address bar at once (a fragment never reaches the
// server, and the page sends no referrer).
function seatFromLink() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get("seat");
  if (!token) return;
  api.keepSeat(S.tableId, { seatToken: token, name: api.myName() });
  hash.delete("seat");
  const rest = hash.toString();
  history.replaceState(null, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
}

export async function showTable() {
  $("lobby").hidden = true;
  $("table").hidden = false;
  seatFromLink();
  S.seat = api.seatOf(S.tableId);
  S.host = api.hostOf(S.tableId);
  S.log = api.savedLog(S.tableId);
  drawLog();
  $("share-link").value = `${location.origin}${location.pathname}?table=${encodeURIComponent(S.tableId)}`;
  await refresh();
  if (S.gone) return;
  await loadHistory();
  follow();
  S.timer = setInterval(() => {
    drawClock();
    stalled();
  }, 1000);
  if (location.hash === "#replay" && S.table?.status === "over") await openReplay();
}

// The live link: a seat's (its token on the socket, or a ticket for the stream), or a
// spectator's of a public table. A private table shows nothing live to someone without a seat
// until they join. body[data-link] says which way the page is live: "socket" or "http".
export function follow() {
  S.stream?.stop();
  S.stream = null;
  if (!S.seat && S.table && S.table.public === false) {
    $("connection").textContent = t("conn.private");
    $("connection").className = "";
    return;
  }
  S.stream = followLive(S.tableId, () => S.seat?.seatToken, onEvent, (state, error) => {
    S.live = state === "live";
    document.body.dataset.link = S.live ? S.stream?.over ?? "" : "";
    $("connection").replaceChildren(el("span", "dot"), S.live ? t("conn.live") : t("conn.reconnecting"));
    $("connection").className = state;
    if (error?.code === "TABLE_NOT_FOUND") return gone();
    // Live again: the stream's first event is a snapshot of the table, which catches up on
    // whatever happened while away. Lost: ask whether the table is still there (a restarted
    // service may have lost it), quietly if the service is down.
    if (!S.live) refresh({ quiet: true });
    else if (S.table) render(); // your own seat shows live again
  });
}

// The table is gone (the service lost it, or the id was never a table): say so, with the way
// back to the lobby, and stop following it.
export function gone() {
  S.gone = true;
  S.stream?.stop();
  clearInterval(S.timer);
  $("table").hidden = true;
  notice("");
  const box = $("gone");
  const back = el("a", "", t("gone.lobby"));
  back.href = "./";
  box.replaceChildren(el("h2", "", t("gone.title")), el("p", "", t("gone.text")), back);
  box.hidden = false;
  $("connection").textContent = "";
  document.title = `Manhattan: ${t("gone.title")}`;
  document.body.dataset.status = "gone";
  document.body.dataset.ready = "true";
}

// What happened at the table before this page was open, or while its link was down: the
// service's history, as this seat (or anyone without one) may see it. Quietly nothing when the
// service does not answer: the log then has what this tab kept.
export async function loadHistory() {
  if (S.gone || !S.table || (!S.seat && S.table.public === false)) return;
  try {
    takeHistory(await api.call(`/tables/${encodeURIComponent(S.tableId)}/history`, { bearer: S.seat?.seatToken }));
  } catch {
    return;
  }
  render();
}

export async function refresh({ quiet = false } = {}) {
  if (S.gone) return;
  try {
    take(await api.call(`/tables/${encodeURIComponent(S.tableId)}`, { bearer: S.seat?.seatToken }));
  } catch (error) {
    if (error.code === "BAD_SEAT" && S.seat) {
      // The seat is gone (left, or a token of another server's past): watch instead.
      api.dropSeat(S.tableId);
      S.seat = null;
      notice(t("conn.seatLost"));
      return refresh();
    }
    // No such table, or an id that cannot be one (a mistyped link).
    if (error.code === "TABLE_NOT_FOUND" || error.code === "INVALID_REQUEST") return gone();
    if (!quiet) notice(t("conn.noAnswer", { error: error.message }));
  }
}

// Nothing asks for the table per turn, so whether the others are still connected (no event
// says so) is asked when the table has been quiet for a while: once per 20 s of waiting.
function stalled() {
  if (S.table?.status !== "playing" || !S.live || Date.now() - (S.changedAt ?? 0) < 20_000) return;
  S.changedAt = Date.now();
  refresh({ quiet: true });
}

let refreshing = null;
let owed = { version: 0, table: false }; // what the refresh asked for is to bring in
export function refreshSoon(version = 0, table = true) {
  owed = { version: Math.max(owed.version, version), table: owed.table || table };
  // Events arrive in bursts (a move, then bots' moves): one refresh for a burst, and none if
  // a later event of the burst brings the table up to date (a move with its view).
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    refreshing = null;
    owed = { version: 0, table: false };
    await refresh();
  }, 60);
}
function settled() {
  if (refreshing && !owed.table && S.table.version >= owed.version) {
    clearTimeout(refreshing);
    refreshing = null;
    owed = { version: 0, table: false };
  }
}

export function take(table) {
  if (S.table && table.version < S.table.version) return; // an older answer overtaken
  const before = S.table;
  // A chat line or a join changes the version but not what this seat may do: keep the piece
  // chosen and the block clicked unless the legal moves changed.
  const turnChanged = !before || JSON.stringify(before.moves) !== JSON.stringify(table.moves);
  S.table = table;
  S.changedAt = Date.now();
  if (before) clearStaleNotice(table.version);
  if (turnChanged) {
    if (!table.moves.length) {
      S.piece = null;
      S.pick = [0, 0, 0, 0];
    }
    S.target = null;
    S.why.clear();
    $("why").textContent = "";
  }
  const rounds = (v) => v?.history?.length ?? 0;
  if (before?.view && rounds(table.view) > rounds(before.view)) S.recap = table.view.history.at(-1);
  const turnCame = (!before || !before.moves.length) && table.moves.length > 0;
  S.turnStarted = turnCame;
  render();
  if (before && turnCame) yourTurn();
  if (turnCame) tellParent("turn", table.version, table.toMove);
  if (table.status === "over" && before?.status !== "over") tellParent("over", table.version, null);
}

let chatted = 0; // the version of the last chat line drawn: one line per message
export function onEvent(type, data, version) {
  if (type === "chat" && !(version <= chatted)) {
    chatted = version;
    drawChatLine(data);
  }
  if (type === "snapshot") {
    const missed = data.version > S.log.version; // (a snapshot comes when the link opens)
    take(data);
    if (missed) loadHistory();
  } else {
    logEvent(type, data, version);
    if (type === "move" && !(version <= (S.told ?? 0))) {
      S.told = version;
      tellParent("move", version, data.toMove ?? null);
    }
    if (!advance(type, data)) refreshSoon(data.version, !MOVED_ON.has(type));
  }
}

// What a later move's view makes up for: a move or a chat line the page could not take in.
const MOVED_ON = new Set(["move", "chat"]);
const movers = new Set(); // people whose moves were skipped since the last view: no longer away

// Takes a pushed change in without asking for the table (one round trip per move, or none):
// every event carries the table's version; a move carries the view after it (the newest move
// only) and, on the stream of the seat to move next, that seat's legal moves. False when the
// event does not say enough (a join, a start, a timeout, the end, a gap): ask for the table.
function advance(type, data) {
  const table = S.table;
  const version = data?.version;
  if (!table || typeof version !== "number") return false;
  if (type === "move" && !data.bot) movers.add(data.player);
  if (type === "move" && data.view && version >= table.version && table.status === "playing") {
    const seats = table.seats.map((seat, i) => (movers.has(i) && seat.away ? { ...seat, away: false } : seat));
    movers.clear();
    const { toMove, deadline = null, moves = [], view } = data;
    take({ ...table, version, view, toMove, deadline, moves, seats });
    settled();
    return true;
  }
  if (version <= table.version) return true; // known already (a move's own answer, a start)
  if (type === "chat" && version === table.version + 1) {
    take({ ...table, version, chat: [...table.chat, data] });
    settled();
    return true;
  }
  return false;
}

// The answer to this seat's own move: its view after the move, before the stream says so.
export function moved(answer) {
  const table = S.table;
  if (!table || answer.version <= table.version) return; // the stream was first
  const seats = table.seats.map((seat, i) => (i === table.you && seat.away ? { ...seat, away: false } : seat));
  take({ ...table, version: answer.version, view: answer.view, toMove: answer.view.toMove, deadline: null, moves: [], seats });
}
