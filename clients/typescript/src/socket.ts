/**
 * A table's GraphQL websocket (graphql-transport-ws): the seat's live events (`tableEvents`) and
 * its moves and chat on the one connection, the seat token given once in `connection_init`
 * (README, "Moves over the websocket"). The answers and codes are the HTTP routes': a refusal is
 * thrown as the typed error of its code (`StaleVersionError` with `.table`, `NotYourTurnError`,
 * ...). `ManhattanClient.openTableSocket` opens one and then sends that seat's `tableMove` and
 * `chat` over it while it is open, falling back to HTTP.
 */
import { errorFromResponse, TransportError, UnexpectedResponseError } from "./errors.js";
import type { ChatSent, Table, TableEvent, TableMoveResult } from "./tables.js";
import type { MoveIn } from "./types.js";

/** What the client needs of a WebSocket (the browser's, Node 22's, or the `ws` package's). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error" | "message", listener: (event: any) => void): void;
}

/** Opens a WebSocket: with `protocol` for the GraphQL socket, without for the table's own. */
export type WebSocketFactory = (url: string, protocol?: string) => WebSocketLike;

export const GRAPHQL_TRANSPORT_WS = "graphql-transport-ws";
const OPEN = 1;

const REJECTED = "... on TableRejected { code message path table { raw } }";
const MOVE = `mutation($id: ID!, $move: MoveInput!, $version: Int!, $moveId: String) {
  tableMove(id: $id, move: $move, version: $version, moveId: $moveId) {
    __typename ... on TableMoved { version view { json } events } ${REJECTED}
  }
}`;
const CHAT = `mutation($id: ID!, $text: String!) {
  sendChat(id: $id, text: $text) {
    __typename ... on ChatSent { version sent: message { player name text at } } ${REJECTED}
  }
}`;
const EVENTS = `subscription($id: ID!, $lastEventId: Int) {
  tableEvents(id: $id, lastEventId: $lastEventId) { id event data }
}`;

interface Message {
  type: string;
  id?: string;
  payload?: any;
}

interface Operation {
  next(payload: any): void;
  /** The operation's end: its `complete`, or its `error` or the socket's end as an Error. */
  end(failure?: unknown): void;
}

/** A rejection (`TableRejected`) as the typed error HTTP would throw; else the answer. */
function accepted(answer: any): any {
  if (answer?.__typename !== "TableRejected") return answer;
  const body: Record<string, unknown> = { code: answer.code, message: answer.message };
  if (answer.path != null) body["path"] = answer.path;
  if (answer.table?.raw) body["table"] = answer.table.raw as Table;
  throw errorFromResponse(200, body);
}

function graphqlFailure(errors: any): Error {
  const first = Array.isArray(errors) ? errors[0] : undefined;
  return errorFromResponse(400, {
    code: first?.extensions?.code ?? "GRAPHQL_ERROR",
    message: first?.message ?? "the operation failed",
  });
}

export class TableSocket {
  private readonly operations = new Map<string, Operation>();
  private count = 0;
  private closed = false;

  private constructor(private readonly ws: WebSocketLike) {
    ws.addEventListener("message", (event) => this.receive(String(event.data)));
    ws.addEventListener("close", () => this.shut(new TransportError("the table socket closed")));
  }

  /** A socket to `<baseUrl>/graphql` for the seat of `token` (none: a spectator), acknowledged. */
  static open(baseUrl: string, token: string | undefined, factory: WebSocketFactory): Promise<TableSocket> {
    const url = baseUrl.replace(/^http/, "ws") + "/graphql";
    return new Promise((resolve, reject) => {
      let ws: WebSocketLike;
      try {
        ws = factory(url, GRAPHQL_TRANSPORT_WS);
      } catch (error) {
        reject(new TransportError(`cannot open ${url}: ${String(error)}`, { cause: error }));
        return;
      }
      let acknowledged = false;
      ws.addEventListener("open", () => {
        const payload = token === undefined ? {} : { seatToken: token };
        ws.send(JSON.stringify({ type: "connection_init", payload }));
      });
      ws.addEventListener("message", (event) => {
        if (acknowledged) return;
        const message = JSON.parse(String(event.data)) as Message;
        if (message.type === "connection_ack") {
          acknowledged = true;
          resolve(new TableSocket(ws));
        }
      });
      ws.addEventListener("close", (event) => {
        if (!acknowledged) reject(new TransportError(`the socket closed before its ack (${event?.code ?? "?"})`));
      });
      ws.addEventListener("error", () => {
        if (!acknowledged) reject(new TransportError(`cannot open ${url}`));
      });
    });
  }

  /** Open, and not closed by either side: moves may go over it. */
  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === OPEN;
  }

  /** `tableMove` as `ManhattanClient.tableMove` answers it (`view` is the seat's view). */
  async move(tableId: string, move: MoveIn, version: number, moveId: string): Promise<TableMoveResult> {
    const data = await this.call(MOVE, { id: tableId, move, version, moveId });
    const moved = accepted(data["tableMove"]);
    return { version: moved.version, view: moved.view.json, events: moved.events } as TableMoveResult;
  }

  async chat(tableId: string, text: string): Promise<ChatSent> {
    const sent = accepted((await this.call(CHAT, { id: tableId, text }))["sendChat"]);
    return { version: sent.version, message: sent.sent } as ChatSent;
  }

  /** The table's events for this socket's seat, from a snapshot (or after `lastEventId`). */
  async *events(tableId: string, lastEventId?: number): AsyncGenerator<TableEvent, void, undefined> {
    const queue: any[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    let failure: unknown;
    const id = this.start(EVENTS, { id: tableId, lastEventId: lastEventId ?? null }, {
      next: (payload) => {
        queue.push(payload);
        wake?.();
      },
      end: (why) => {
        ended = true;
        failure = why;
        wake?.();
      },
    });
    try {
      while (true) {
        while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
        const payload = queue.shift();
        if (payload === undefined) {
          if (failure !== undefined) throw failure;
          return;
        }
        if (payload.errors) throw graphqlFailure(payload.errors);
        const event = payload.data?.tableEvents;
        if (!event) throw new UnexpectedResponseError("a tableEvents message without its event");
        yield { kind: event.event, version: event.id, data: event.data } as TableEvent;
      }
    } finally {
      if (!ended && this.isOpen) this.ws.send(JSON.stringify({ id, type: "complete" }));
      this.operations.delete(id);
    }
  }

  close(): void {
    this.closed = true;
    this.ws.close(1000, "done");
  }

  private call(query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
    return new Promise((resolve, reject) => {
      let data: Record<string, any> | undefined;
      let errors: unknown;
      this.start(query, variables, {
        next: (payload) => {
          data = payload.data ?? undefined;
          errors = payload.errors;
        },
        end: (failure) => {
          if (failure !== undefined) reject(failure);
          else if (errors !== undefined) reject(graphqlFailure(errors));
          else if (data === undefined) reject(new UnexpectedResponseError("a GraphQL answer without data"));
          else resolve(data);
        },
      });
    });
  }

  private start(query: string, variables: Record<string, unknown>, operation: Operation): string {
    if (!this.isOpen) throw new TransportError("the table socket is not open");
    const id = String(++this.count);
    this.operations.set(id, operation);
    this.ws.send(JSON.stringify({ id, type: "subscribe", payload: { query, variables } }));
    return id;
  }

  private receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (message.type === "ping") {
      this.ws.send(JSON.stringify({ type: "pong" }));
      return;
    }
    const operation = message.id === undefined ? undefined : this.operations.get(message.id);
    if (operation === undefined) return;
    if (message.type === "next") operation.next(message.payload);
    else if (message.type === "error" || message.type === "complete") {
      this.operations.delete(message.id!);
      operation.end(message.type === "error" ? graphqlFailure(message.payload) : undefined);
    }
  }

  private shut(why: Error): void {
    this.closed = true;
    for (const operation of this.operations.values()) operation.end(why);
    this.operations.clear();
  }
}
