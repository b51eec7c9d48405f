// A table's live link: the GraphQL websocket when it opens (the tableEvents subscription for the
// table's events, and this seat's moves, chat, start, leave and rematch on the same connection,
// the seat token given once at connection_init), else the SSE stream and HTTP, trying the socket
// again a while later. Either way the answers and refusals are the same: the socket's mutations
// are the HTTP routes' own resolvers (same codes, idempotency by moveId, compare-and-set).

import { ApiError, ROOT, call, follow as followStream } from "./api.js";
import { GraphQLFailure, SocketLost, openSocket } from "./socket.js";
import { t } from "./i18n.js";

const EVENTS = "subscription($id: ID!) { tableEvents(id: $id) { id event data } }";
const RETRY_FIRST = 5_000; // after a socket that would not open or dropped, over SSE meanwhile
const RETRY_MAX = 60_000; // doubling up to a minute (a network that lets no websocket through)

const socketUrl = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${ROOT}/graphql`;

// Follows the table: `onEvent(type, data, version)` for each event, `onState("live" |
// "reconnecting", error?)` as the link comes and goes. `link.socket` is the socket while its
// subscription is live (the one moves may go over), else null.
export function follow(tableId, bearerFn, onEvent, onState) {
  const link = { socket: null, token: null, over: "", stop };
  let stream = null; // the SSE fallback
  let current = null; // the socket tried or live
  let retry = RETRY_FIRST;
  let timer = null;
  let stopped = false;

  function overHttp() {
    link.socket = null;
    link.over = "http";
    if (stopped) return;
    stream ??= followStream(tableId, bearerFn, onEvent, onState);
    clearTimeout(timer);
    timer = setTimeout(trySocket, retry);
    retry = Math.min(retry * 2, RETRY_MAX);
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    stream?.stop();
    current?.close();
    link.socket = null;
  }

  async function trySocket() {
    if (stopped) return;
    const token = bearerFn() || null;
    let socket;
    try {
      socket = await openSocket(socketUrl(), token);
    } catch {
      return overHttp();
    }
    if (stopped) return socket.close();
    current = socket;
    let live = false;
    // No event within the socket's own open time: a socket that does not carry events.
    const silent = setTimeout(() => socket.close(), 5_000);
    socket.subscribe(EVENTS, { id: tableId }, {
      next(payload) {
        const event = payload?.data?.tableEvents;
        if (!event) return;
        if (!live) {
          live = true;
          clearTimeout(silent);
          Object.assign(link, { socket, token, over: "socket" });
          stream?.stop(); // the socket's first event, a snapshot, catches up on everything
          stream = null;
          retry = RETRY_FIRST;
          onState("live");
        }
        onEvent(event.event, event.data, event.id);
      },
      end(error) {
        // Refused (the SSE stream will say why), ended by the service (a shutdown), or lost.
        clearTimeout(silent);
        socket.close();
        if (stopped) return;
        if (live) onState("reconnecting", error instanceof GraphQLFailure ? error : undefined);
        overHttp();
      },
    });
  }

  trySocket();
  return link;
}

// -- this seat's operations over the socket ----------------------------------------------------
const REJECTED = "... on TableRejected { code message path table { raw } }";
const MOVE = `mutation($id: ID!, $move: MoveInput!, $version: Int!, $moveId: String) {
  tableMove(id: $id, move: $move, version: $version, moveId: $moveId) {
    __typename ... on TableMoved { version view { json } events } ${REJECTED} } }`;
const CHAT = `mutation($id: ID!, $text: String!) {
  sendChat(id: $id, text: $text) { __typename ... on ChatSent { version } ${REJECTED} } }`;
const TABLE = (field) => `mutation($id: ID!) {
  ${field}(id: $id) { __typename ... on Table { raw } ${REJECTED} } }`;
const REMATCH = `mutation($id: ID!) {
  rematch(id: $id) { __typename ... on TableRematch { tableId seatToken hostToken } ${REJECTED} } }`;

// Each operation: its GraphQL document, its field, and its answer as the HTTP route gives it.
const OPERATIONS = {
  moves: [MOVE, "tableMove", (a) => ({ version: a.version, view: a.view.json, events: a.events })],
  chat: [CHAT, "sendChat", (a) => ({ version: a.version })],
  start: [TABLE("startTable"), "startTable", (a) => ({ table: a.raw })],
  leave: [TABLE("leaveTable"), "leaveTable", (a) => ({ table: a.raw })],
  rematch: [REMATCH, "rematch", (a) => a],
};

// `POST /v1/tables/{id}/<what>` with `body` for the seat of `bearer`: over the link's socket
// when it is live for that seat, else over HTTP. A refusal is the ApiError HTTP would throw, in
// the page's language. A move whose socket breaks after it went out goes again over HTTP with
// the same moveId (the service answers a repeat as the first time, never applying it twice);
// any other operation is sent once, and a lost socket is said as the service not answering.
export async function send(link, tableId, what, body, bearer) {
  const http = () => call(`/tables/${encodeURIComponent(tableId)}/${what}`, { body, bearer });
  const socket = link?.socket;
  if (!socket?.isOpen || !bearer || bearer !== link.token) return http();
  const [query, field, answer] = OPERATIONS[what];
  const { move, version, moveId, text } = body;
  const variables = what === "moves" ? { id: tableId, move, version, moveId } : { id: tableId, text };
  let data;
  try {
    data = await socket.request(query, variables);
  } catch (error) {
    if (error instanceof SocketLost && what === "moves") return http();
    if (error instanceof SocketLost) throw new Error(t("conn.socketLost"));
    throw new ApiError(400, { code: error.code, message: error.message });
  }
  const result = data[field];
  if (result?.__typename !== "TableRejected") return answer(result);
  const refusal = { code: result.code, message: result.message };
  if (result.path != null) refusal.path = result.path;
  if (result.table?.raw) refusal.table = result.table.raw;
  throw new ApiError(0, refusal);
}
