/**
 * Tables (DESIGN §9): people playing one game together from separate devices. The wire types of
 * the table routes and of a table's event stream, typed by hand in this one module (the shared
 * parts, views, moves and events, come from the generated OpenAPI types).
 */
import type { BotChoice, GameEvent, Move, MoveIn, Setup, View } from "./types.js";

export type TableStatus = "waiting" | "playing" | "over";
export type SeatKind = "open" | "human" | "bot";

/** A place at the table; `player` is its player number, `away` while a bot plays for a person. */
export interface TableSeat {
  player: number | null;
  name: string | null;
  kind: SeatKind;
  connected: boolean;
  away: boolean;
}

export interface Placing {
  player: number;
  place: number;
  score: number;
}

/** `GET /v1/tables/{id}` as the caller sees it (a seat, or anyone else: the public view). */
export interface Table {
  tableId: string;
  name: string | null;
  status: TableStatus;
  version: number;
  seats: TableSeat[];
  toMove: number | null;
  /** Epoch milliseconds (UTC) by which the seat to move must act, or null. */
  deadline: number | null;
  view: View | null;
  /** The caller's legal moves when it is the caller's turn, else []. */
  moves: Move[];
  /** The player count, once started. */
  players?: number | null;
  /** Once over. */
  ranking?: Placing[];
  /** The caller's own player number, when it has a seat. */
  you?: number | null;
  public?: boolean;
  turnSeconds?: number | null;
  /** The table `rematch` made of this one, once there is one. */
  rematch?: string | null;
  /** Recent chat, oldest first. */
  chat?: ChatMessage[];
  [field: string]: unknown;
}

/** A seat of a new table: open for a person, or a bot. */
export type SeatSpec = "open" | { bot: BotChoice };

export interface CreateTableRequest {
  /** As `POST /v1/games` (the service draws the seed; `players` optional). */
  setup?: Omit<Setup, "seed">;
  seats?: SeatSpec[];
  public?: boolean;
  /** null: no timer; absent: the service's default. */
  turnSeconds?: number | null;
  name?: string;
}

export interface CreatedTable {
  tableId: string;
  /** The host's bearer for `start`. */
  hostToken: string;
  table: Table;
}

export interface Seating {
  player: number;
  /** This seat's bearer from now on. */
  seatToken: string;
  table: Table;
}

/**
 * `POST .../rematch`: the new table. A seated caller gets the seat kept for them (`player`,
 * `seatToken`); the host gets the new table's `hostToken` instead.
 */
export interface Rematch {
  tableId: string;
  hostToken?: string;
  table: Table;
  player?: number;
  seatToken?: string;
}

export interface ChatMessage {
  player: number | null;
  name: string | null;
  text: string;
  /** Epoch milliseconds. */
  at: number;
}

/** `POST .../chat`: the version the message made, and the message as stored. */
export interface ChatSent {
  version: number;
  message: ChatMessage;
}

export interface TableMoveResult {
  version: number;
  view: View;
  events: GameEvent[];
}

export interface Ticket {
  ticket: string;
  expiresIn: number;
}

/** `GET .../record` once over: replay it with `client.replay(record)`. */
export interface TableRecord {
  setup: Setup;
  moves: Move[];
}

export interface TableMoveRequest {
  move: MoveIn;
  version: number;
  moveId?: string;
}

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
