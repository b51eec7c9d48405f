/**
 * `ManhattanClient`: the REST API (README "REST examples", /openapi.json) as typed methods, for browsers and Node (fetch).
 *
 *   const client = new ManhattanClient("http://127.0.0.1:8000");
 *   const game = await client.newGame({ players: 4, seed: "demo" });
 *   const { moves } = await client.legalMoves(game);
 *   const step = await client.apply(game, moves[0]!);
 *
 * Tables (DESIGN §9): `createTable`, `joinTable`, `startTable`, `tableMove`, ... and
 * `tableEvents`, an async iterator over a table's live events.
 */
import { errorFromResponse, TransportError, UnexpectedResponseError } from "./errors.js";
import { tableEvents, type StreamHost, type TableEventsOptions } from "./events.js";
import { PlainTableSocket } from "./plainsocket.js";
import { KEY_HEADER, type Rating, type RatingList } from "./platforms.js";
import { TableSocket, type WebSocketFactory } from "./socket.js";
import { newMoveId } from "./tables.js";
import type {
  ChatSent,
  CreatedTable,
  CreateTableRequest,
  LobbyPage,
  LobbyQuery,
  LobbyTable,
  Rematch,
  Seating,
  Table,
  TableEvent,
  TableHistory,
  TableMoveResult,
  TableRecord,
  Ticket,
} from "./tables.js";
import type {
  BotChoice,
  BotLevel,
  GameRecord,
  LegalMoves,
  MoveIn,
  Replay,
  Score,
  SealedState,
  Setup,
  StateLike,
  StateRef,
  Suggestion,
  Transition,
  Validation,
} from "./types.js";

export { newMoveId };

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Retries on network errors only (the request never reached the service). */
export interface RetryPolicy {
  /** Attempts in all; 1 means no retry. */
  attempts: number;
  /** First delay in milliseconds, doubled each time, capped at `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Scale each delay by a random factor in [0.5, 1]. */
  jitter: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: 100, maxBackoffMs: 2000, jitter: true };
/** Reconnects of a table's event stream: more patient than a request, a stream lives a game. */
export const STREAM_RETRY: RetryPolicy = { attempts: 8, backoffMs: 250, maxBackoffMs: 5000, jitter: true };

function tablePath(tableId: string, tail = ""): string {
  if (!tableId) throw new TypeError("a table id is not empty");
  return `/v1/tables/${encodeURIComponent(tableId)}${tail}`;
}

export interface TableMoveOptions {
  /** The seat's token. */
  token: string;
  /** Default: a fresh one. A retry of the same move must carry the same id. */
  moveId?: string;
}

export interface ClientOptions {
  /** The transport: any fetch (default: the global one). Inject a fake in tests. */
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
  /** Reconnects of `tableEvents` streams (default `STREAM_RETRY`). */
  streamRetry?: Partial<RetryPolicy>;
  headers?: Record<string, string>;
  /** A platform's key (DESIGN §10), sent as `Manhattan-Key` on every request. */
  key?: string;
  /** How to wait between retries (default: setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** How to open a table socket (default: the global WebSocket, as browsers and Node 22 have). */
  webSocket?: WebSocketFactory;
}

/** The delays between attempts, in milliseconds. */
export function retryDelays(policy: RetryPolicy, random: () => number = Math.random): number[] {
  const delays: number[] = [];
  for (let k = 0; k < policy.attempts - 1; k++) {
    const delay = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** k);
    delays.push(policy.jitter ? delay * (0.5 + random() / 2) : delay);
  }
  return delays;
}

/** The wire form of a state argument: results that carry a token send the token. */
/** A GraphQL `MoveRejected` (select `__typename`, `code`, `message`, and `path`/`index` if wanted). */
export interface GraphQLMoveRejected {
  __typename: "MoveRejected";
  code: string;
  message: string;
  path?: string | null;
  index?: number | null;
}

/**
 * The answer of a GraphQL field that takes a state (every one but `legalMoves` answers a union
 * with `MoveRejected`): the value, or the rejection thrown as the typed error of its code, as a
 * REST error is (`InvalidStateError` with its `path`, `IllegalMoveError`, ...). Select
 * `__typename` so the two can be told apart; the error's `status` is the GraphQL answer's, 200.
 */
export function graphqlResult<T>(answer: T | GraphQLMoveRejected): Exclude<T, GraphQLMoveRejected> {
  const rejected = answer as Partial<GraphQLMoveRejected> | null;
  if (typeof rejected === "object" && rejected !== null && rejected.__typename === "MoveRejected") {
    throw errorFromResponse(200, {
      code: rejected.code,
      message: rejected.message,
      path: rejected.path ?? undefined,
      index: rejected.index ?? undefined,
    });
  }
  return answer as Exclude<T, GraphQLMoveRejected>;
}

export function stateRef(state: StateLike): StateRef {
  if (typeof state === "object" && state !== null && "token" in state && typeof state.token === "string") {
    return { token: state.token };
  }
  return state as StateRef;
}

export interface SuggestOptions {
  player?: number;
  /** The bot: a level, or a BotChoice with its seed and budgets (iterations, timeMs). */
  bot?: BotChoice | BotLevel;
  /** @deprecated give `bot: { level, seed }`. */
  seed?: number;
}

/** `bot` (and the deprecated `seed`) as the one wire form, `{level, seed?, iterations?, timeMs?}`. */
export function botChoice(bot?: BotChoice | BotLevel, seed?: number): BotChoice | undefined {
  if (typeof bot === "object") return seed === undefined ? bot : { ...bot, seed };
  if (bot === undefined && seed === undefined) return undefined;
  return seed === undefined ? { level: bot ?? "greedy" } : { level: bot ?? "greedy", seed };
}

/** `advance`: the player's move (optional), the seat for a full state, and the bots' choice. */
export interface AdvanceOptions {
  move?: MoveIn;
  player?: number;
  bot?: BotChoice | BotLevel;
}

export class ManhattanClient {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly streamRetry: RetryPolicy;
  private readonly fetchImpl: FetchLike;
  private readonly headers: Record<string, string>;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly webSocket: WebSocketFactory;
  /** The open table sockets by seat token: that seat's moves and chat go over its socket. */
  private readonly sockets = new Map<string, TableSocket>();

  constructor(baseUrl = "", options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.streamRetry = { ...STREAM_RETRY, ...options.streamRetry };
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { accept: "application/json", ...options.headers };
    if (options.key !== undefined) this.headers[KEY_HEADER] = options.key;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.webSocket =
      options.webSocket ??
      ((url, protocol) => (protocol === undefined ? new globalThis.WebSocket(url) : new globalThis.WebSocket(url, protocol)));
  }

  // -- operations (/openapi.json) ------------------------------------------------------
  rules(): Promise<Record<string, unknown>> {
    return this.request("GET", "/v1/rules");
  }

  newGame(setup: Setup = {}): Promise<SealedState> {
    return this.request("POST", "/v1/games", setup);
  }

  legalMoves(state: StateLike): Promise<LegalMoves> {
    return this.request("POST", "/v1/legal-moves", { state: stateRef(state) });
  }

  validate(state: StateLike, move: MoveIn): Promise<Validation> {
    return this.request("POST", "/v1/validate", { state: stateRef(state), move });
  }

  /** One move, or several applied in order in one request. */
  apply(state: StateLike, move: MoveIn | MoveIn[]): Promise<Transition> {
    const body = Array.isArray(move) ? { state: stateRef(state), moves: move } : { state: stateRef(state), move };
    return this.request("POST", "/v1/apply", body);
  }

  score(state: StateLike): Promise<Score> {
    return this.request("POST", "/v1/score", { state: stateRef(state) });
  }

  /** The player's view and a token issued to that player (README "Hidden information and trust model"). */
  view(state: StateLike, player: number): Promise<SealedState> {
    return this.request("POST", "/v1/view", { state: stateRef(state), player });
  }

  suggest(state: StateLike, options: SuggestOptions = {}): Promise<Suggestion> {
    const body: Record<string, unknown> = { state: stateRef(state) };
    if (options.player !== undefined) body.player = options.player;
    const bot = botChoice(options.bot, options.seed);
    if (bot !== undefined) body.bot = bot;
    return this.request("POST", "/v1/suggest", body);
  }

  replay(game: GameRecord): Promise<Replay> {
    return this.request("POST", "/v1/replay", game);
  }

  analysis(state: StateLike): Promise<{ analysis: unknown }> {
    return this.request("POST", "/v1/analysis", { state: stateRef(state) });
  }

  preview(state: StateLike, move: MoveIn): Promise<{ preview: unknown }> {
    return this.request("POST", "/v1/preview", { state: stateRef(state), move });
  }

  /** The preview of every legal move, in legal-moves order. */
  previewAll(state: StateLike): Promise<{ previews: unknown[] }> {
    return this.request("POST", "/v1/preview", { state: stateRef(state) });
  }

  /** Per building, the chance an opponent takes it next turn, as the player may know it. */
  threats(state: StateLike, player?: number): Promise<{ threats: Record<string, unknown> }> {
    const body = player === undefined ? { state: stateRef(state) } : { state: stateRef(state), player };
    return this.request("POST", "/v1/threats", body);
  }

  /**
   * A player's turn: their move (if given), then bots play every other seat, each from its own
   * view, until the player is to move again. The answer is addressed to the player.
   */
  advance(state: StateLike, options: AdvanceOptions = {}): Promise<Transition> {
    const { bot, ...rest } = options;
    const choice = botChoice(bot);
    const body = choice === undefined ? { state: stateRef(state), ...rest } : { state: stateRef(state), ...rest, bot: choice };
    return this.request("POST", "/v1/advance", body);
  }

  store(state: StateLike): Promise<SealedState> {
    return this.request("POST", "/v1/states", { state: stateRef(state) });
  }

  load(stateId: string): Promise<SealedState> {
    return this.request("GET", `/v1/states/${encodeURIComponent(stateId)}`);
  }

  /**
   * A raw GraphQL request; `errors` are thrown as typed errors (extensions.code). A field's
   * `MoveRejected` is data, not an error: pass the field's answer to `graphqlResult`.
   */
  async graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const answer = await this.request<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>(
      "POST",
      "/graphql",
      variables ? { query, variables } : { query },
    );
    const first = answer.errors?.[0];
    if (first) {
      throw errorFromResponse(400, { code: first.extensions?.code ?? "GRAPHQL_ERROR", message: first.message });
    }
    if (answer.data === undefined) throw new UnexpectedResponseError("GraphQL answer without data");
    return answer.data;
  }

  // -- tables (DESIGN §9); `token` is a seat's (or for start, the host's) bearer ----------
  createTable(request: CreateTableRequest = {}): Promise<CreatedTable> {
    return this.request("POST", "/v1/tables", { setup: {}, ...request }, undefined, true);
  }

  /** The newest page of public waiting tables (`lobby` pages through them all). */
  async listTables(): Promise<LobbyTable[]> {
    return (await this.lobby()).tables;
  }

  /** A page of the lobby, newest activity first; pass the previous page's `next` as `cursor`. */
  lobby(query: LobbyQuery = {}): Promise<LobbyPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) params.set(key, String(value));
    }
    const search = params.size ? `?${params}` : "";
    return this.request("GET", `/v1/tables${search}`);
  }

  joinTable(tableId: string, name: string, seat?: number): Promise<Seating> {
    const body = seat === undefined ? { name } : { name, seat };
    return this.request("POST", tablePath(tableId, "/join"), body, undefined, true);
  }

  /** Start: a seat's or the host's token; without one, the platform key that created the table. */
  async startTable(tableId: string, token?: string): Promise<Table> {
    return (await this.request<{ table: Table }>("POST", tablePath(tableId, "/start"), {}, token, true)).table;
  }

  /**
   * Play `move` against table `version`. The request carries a move id (fresh unless given) and
   * is sent again with the same id when the connection fails, even after it was sent: the
   * service answers a repeat as the first time and never applies a move twice.
   */
  async tableMove(tableId: string, move: MoveIn, version: number, options: TableMoveOptions): Promise<TableMoveResult> {
    const body = { move, version, moveId: options.moveId ?? newMoveId() };
    const socket = this.openSocket(options.token);
    if (socket !== undefined) {
      try {
        return await socket.move(tableId, move, version, body.moveId);
      } catch (error) {
        // The socket broke, perhaps after the move went out: the same move id over HTTP is
        // answered as the first time, never applied twice.
        if (!(error instanceof TransportError)) throw error;
      }
    }
    return this.request("POST", tablePath(tableId, "/moves"), body, options.token);
  }

  /**
   * A GraphQL websocket for the seat of `token` (none: a spectator), the token given once at
   * `connection_init`. While it is open, this client sends that seat's `tableMove` and `chat`
   * over it (HTTP when it is closed); `socket.events(tableId)` are the table's live events on
   * the same connection. Close it with `socket.close()`.
   */
  async openTableSocket(token?: string): Promise<TableSocket> {
    const socket = await TableSocket.open(this.baseUrl, token, this.webSocket);
    if (token !== undefined) this.sockets.set(token, socket);
    return socket;
  }

  /**
   * The table's own socket (`/v1/tables/{id}/socket`) for the seat of `token` (a single-use
   * ticket is taken with it; none: a spectator of a public table): its events, moves and chat
   * on one plain WebSocket, with no GraphQL and no HTTP request a turn (plainsocket.ts).
   * `lastEventId` resumes after that version. Close it with `socket.close()`.
   */
  async openPlainTableSocket(
    tableId: string,
    token?: string,
    options: { lastEventId?: number } = {},
  ): Promise<PlainTableSocket> {
    const query = new URLSearchParams();
    if (token !== undefined) query.set("ticket", (await this.tableTicket(tableId, token)).ticket);
    if (options.lastEventId !== undefined) query.set("lastEventId", String(options.lastEventId));
    const tail = query.toString() ? `?${query}` : "";
    const url = this.baseUrl.replace(/^http/, "ws") + tablePath(tableId, "/socket") + tail;
    return PlainTableSocket.open(url, this.webSocket, options.lastEventId);
  }

  private openSocket(token: string): TableSocket | undefined {
    const socket = this.sockets.get(token);
    if (socket !== undefined && !socket.isOpen) this.sockets.delete(token);
    return socket?.isOpen ? socket : undefined;
  }

  /**
   * Give up the seat: before the start it opens, after it a bot plays it to the end; the token
   * is revoked either way. The answer is the table as anyone sees it.
   */
  async leaveTable(tableId: string, token: string): Promise<Table> {
    return (await this.request<{ table: Table }>("POST", tablePath(tableId, "/leave"), {}, token, true)).table;
  }

  /** Over the seat's open socket if there is one (sent once either way), else HTTP. */
  chat(tableId: string, text: string, token: string): Promise<ChatSent> {
    const socket = this.openSocket(token);
    if (socket !== undefined) return socket.chat(tableId, text);
    return this.request("POST", tablePath(tableId, "/chat"), { text }, token, true);
  }

  /** A new table for the same people, once the game is over. */
  rematch(tableId: string, token: string): Promise<Rematch> {
    return this.request("POST", tablePath(tableId, "/rematch"), {}, token, true);
  }

  /** The table as the seat of `token` sees it, or (without one) the public view. */
  getTable(tableId: string, token?: string): Promise<Table> {
    return this.request("GET", tablePath(tableId), undefined, token);
  }

  tableRecord(tableId: string): Promise<TableRecord> {
    return this.request("GET", tablePath(tableId, "/record"));
  }

  /** What happened so far, as the seat of `token` (or, without one, anyone) may see it: what a
   * page opening the table mid-game shows before its stream goes on. */
  async tableHistory(tableId: string, token?: string): Promise<TableHistory> {
    type Wire = { tableId: string; version: number; events: { event: string; data: Record<string, unknown> }[] };
    const wire = await this.request<Wire>("GET", tablePath(tableId, "/history"), undefined, token);
    const events = wire.events.map((e) => {
      const version = typeof e.data["version"] === "number" ? e.data["version"] : undefined;
      return { kind: e.event, version, data: e.data } as TableEvent;
    });
    return { tableId: wire.tableId, version: wire.version, events };
  }

  tableTicket(tableId: string, token: string): Promise<Ticket> {
    return this.request("POST", tablePath(tableId, "/ticket"), {}, token);
  }

  // -- platforms (DESIGN §10): with `key` -------------------------------------------------
  /** The key's tables where `player` holds a seat: waiting and playing first, then finished. */
  async myTables(player: string): Promise<Table[]> {
    const query = new URLSearchParams({ player });
    return (await this.request<{ tables: Table[] }>("GET", `/v1/tables?${query}`)).tables;
  }

  /** `player`'s rating at the key (`PlayerNotFoundError` before a first rated game). */
  rating(player: string): Promise<Rating> {
    return this.request("GET", `/v1/ratings?${new URLSearchParams({ player })}`);
  }

  /** A page of the key's ratings, best ordinal first; pass `page.next` as `cursor`. */
  ratings(options: { limit?: number; cursor?: string } = {}): Promise<RatingList> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.cursor !== undefined) query.set("cursor", options.cursor);
    const tail = query.toString() ? `?${query}` : "";
    return this.request("GET", `/v1/ratings${tail}`);
  }

  /**
   * `for await (const event of client.tableEvents(id, { token }))`: the table's live events,
   * reconnecting with `Last-Event-ID`; see events.ts.
   */
  tableEvents(tableId: string, options: TableEventsOptions = {}): AsyncGenerator<TableEvent, void, undefined> {
    const host: StreamHost = {
      url: (path) => this.baseUrl + path,
      fetch: (url, init) => this.fetchImpl(url, { ...init, headers: { ...this.headers, ...init.headers } }),
      ticket: async (id, token) => (await this.tableTicket(id, token)).ticket,
      delays: () => retryDelays(this.streamRetry),
      sleep: this.sleep,
    };
    return tableEvents(host, tableId, options);
  }

  // -- transport ------------------------------------------------------------------------
  /**
   * One request; `token` goes out as `Authorization: Bearer`. A network error is retried by the
   * policy unless `once`: fetch cannot tell a refused connection from one that broke after the
   * request went out, so table writes that are not safe to repeat (join, leave, chat, start,
   * rematch, create) are sent once. Pure operations, reads and table moves (their move id makes
   * a repeat harmless) are retried.
   */
  async request<T>(method: "GET" | "POST", path: string, body?: unknown, token?: string, once = false): Promise<T> {
    const init: RequestInit = { method, headers: { ...this.headers } };
    if (token !== undefined) (init.headers as Record<string, string>)["authorization"] = `Bearer ${token}`;
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const delays = retryDelays(this.retry);
    let response: Response;
    for (let attempt = 0; ; attempt++) {
      try {
        response = await this.fetchImpl(this.baseUrl + path, init);
        break;
      } catch (error) {
        // fetch rejects only when no answer came back (network error, refused connection).
        const delay = once ? undefined : delays[attempt];
        if (delay === undefined) {
          throw new TransportError(`cannot reach the service: ${String(error)}`, { cause: error });
        }
        await this.sleep(delay);
      }
    }
    let answer: unknown;
    try {
      answer = await response.json();
    } catch {
      answer = undefined;
    }
    if (!response.ok) throw errorFromResponse(response.status, answer, response.headers.get("retry-after"));
    if (answer === undefined) throw new UnexpectedResponseError(`HTTP ${response.status}: not JSON`, response.status);
    return answer as T;
  }
}
