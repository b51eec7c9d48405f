/**
 * Tables (DESIGN §9): people playing one game together from separate devices. The wire types of
 * the table routes come from the generated OpenAPI types (`schema/openapi.json`), with the fields
 * the schema leaves loose (views, moves, events, rankings, chat) narrowed to the project's own
 * types; the stream's events are not in OpenAPI (SSE payloads) and are typed here, in one place.
 */
import type { components, operations } from "./generated/openapi.js";
import type { GameEvent, Move, Setup, View } from "./types.js";

type Schemas = components["schemas"];
type JsonBody<Op> = Op extends { requestBody: { content: { "application/json": infer B } } } ? B : never;

export type TableStatus = Schemas["Table"]["status"];
/** A public waiting table as the lobby lists it (name, host, setup, seats). */
export type LobbyTable = Schemas["LobbyTable"];
/** A lobby page; `next` is the cursor of the following page (null: the last). */
export type LobbyPage = Schemas["TableList"];
/** `GET /v1/tables`'s filters and paging. */
export type LobbyQuery = NonNullable<operations["listTables"]["parameters"]["query"]>;
/** A place at the table; `player` is its player number, `away` while a bot plays for a person. */
export type TableSeat = Schemas["Table"]["seats"][number];
export type SeatKind = TableSeat["kind"];

export interface Placing {
  player: number;
  place: number;
  score: number;
}

export interface ChatMessage {
  player: number | null;
  name: string | null;
  text: string;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * `GET /v1/tables/{id}` as the caller sees it (a seat, or anyone else: the public view).
 * `moves` are the caller's legal moves on its turn, else []; `deadline` is epoch ms or null.
 */
export type Table = Omit<Schemas["Table"], "view" | "moves" | "ranking" | "chat"> & {
  view: View | null;
  moves: Move[];
  ranking?: Placing[];
  chat?: ChatMessage[];
};

/** `POST /v1/tables`: `setup` as `POST /v1/games` (the service draws the seed). */
export type CreateTableRequest = JsonBody<operations["createTable"]>;
/** A seat of a new table: open for a person, or a bot. */
export type SeatSpec = NonNullable<CreateTableRequest["seats"]>[number];

type WithTable<T> = Omit<T, "table"> & { table: Table };
/** The new table and the host's bearer for `start`. */
export type CreatedTable = WithTable<Schemas["TableCreated"]>;
/** The joined seat: `seatToken` is its bearer from now on. */
export type Seating = WithTable<Schemas["TableJoined"]>;
/**
 * `POST .../rematch`: the new table. A seated caller gets the seat kept for them (`player`,
 * `seatToken`); the host gets the new table's `hostToken` instead.
 */
export type Rematch = WithTable<Schemas["TableRematch"]> & { player?: number };
export type Ticket = Schemas["TableTicket"];

/** `POST .../chat`: the version the message made, and the message as stored. */
export type ChatSent = Omit<Schemas["TableChat"], "message"> & { message: ChatMessage };

export type TableMoveResult = Omit<Schemas["TableMoved"], "view" | "events"> & {
  view: View;
  events: GameEvent[];
};

/** `GET .../record` once over: replay it with `client.replay(record)`. */
export type TableRecord = Omit<Schemas["TableRecord"], "setup" | "moves"> & {
  setup: Setup;
  moves: Move[];
};

/**
 * `GET .../history`: what happened at the table so far, oldest first, as the caller may see it
 * (a seat's token shows its own hand's events): the start, every move, and the joins, leaves,
 * timeouts and end among the table's recent events. Each event reads as the stream's event of its
 * kind, without what only the newest carries (the view after a move, the legal moves then);
 * `version` is the table's.
 */
export interface TableHistory {
  tableId: string;
  version: number;
  events: TableEvent[];
}

export type TableMoveRequest = JsonBody<operations["tableMove"]>;

// -- the stream ---------------------------------------------------------------------------------
export interface MoveEventData {
  player: number;
  move: Move;
  /** The move's events as the receiver may see them. */
  events: GameEvent[];
  version: number;
  toMove: number | null;
  deadline?: number | null;
  /** A bot played the turn (a bot seat, or for a person away or gone). */
  bot?: boolean;
}

export interface ChatEventData extends ChatMessage {
  version?: number;
  [field: string]: unknown;
}

export interface OverEventData {
  ranking: Placing[];
  version?: number;
  [field: string]: unknown;
}

/** joined, left, started, timeout: public facts (names, players, seats). */
export interface TableFactData {
  version?: number;
  [field: string]: unknown;
}

interface Tagged<K extends string, D> {
  kind: K;
  /** The table version the event brought (its SSE id). */
  version: number | undefined;
  data: D;
}

/** One event of a table's stream, by kind (DESIGN §9), its data filtered for the receiver. */
export type TableEvent =
  | Tagged<"snapshot", Table>
  | Tagged<"move", MoveEventData>
  | Tagged<"chat", ChatEventData>
  | Tagged<"over", OverEventData>
  | Tagged<"joined" | "left" | "started" | "timeout", TableFactData>;

export const TABLE_EVENT_KINDS = ["snapshot", "joined", "left", "started", "move", "chat", "timeout", "over"] as const;

/** A fresh move id: what makes a table move safe to send again (DESIGN §9). */
export function newMoveId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
