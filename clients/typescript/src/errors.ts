/**
 * Every error the client throws, rebuilt from the service's stable codes (README: the error table; GET /v1/rules errorCodes).
 *
 *   ManhattanClientError
 *   ├── TransportError            the service could not be reached (after the retries)
 *   ├── UnexpectedResponseError   an answer that is not the documented shape
 *   └── ServiceError              {"code", "message", "path"?} from the service
 *       ├── InvalidStateError     INVALID_STATE (.path)
 *       ├── InvalidMoveError      INVALID_MOVE
 *       ├── IllegalMoveError      ILLEGAL_MOVE
 *       ├── GameOverError         GAME_OVER
 *       ├── StateNotFoundError    STATE_NOT_FOUND
 *       ├── BadTokenError         BAD_TOKEN
 *       ├── PayloadTooLargeError  PAYLOAD_TOO_LARGE
 *       ├── QueryTooComplexError  QUERY_TOO_COMPLEX
 *       ├── RateLimitedError      RATE_LIMITED (.retryAfter seconds)
 *       ├── TableError            (a RequestRejectedError) the table codes of tables and NOT_YOUR_TURN:
 *       │   TableNotFound, TableFull, TableNotWaiting, TableNotPlaying, StaleVersion (.table),
 *       │   NotYourTurn, BadSeat, NotSeated, TableNotOver, TooManyStreams (429: stream limits)
 *       ├── RequestRejectedError  any other 4xx code
 *       └── ServerError           5xx (BotsBusyError carries .retryAfter)
 */

import type { Table } from "./tables.js";

export class ManhattanClientError extends Error {
  override name = "ManhattanClientError";
}

export class TransportError extends ManhattanClientError {
  override name = "TransportError";
}

export class UnexpectedResponseError extends ManhattanClientError {
  override name = "UnexpectedResponseError";
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export interface ServiceErrorInit {
  code: string;
  message: string;
  status: number;
  path?: string | undefined;
  index?: number | undefined;
  /** The whole error body, for fields a code adds (STALE_VERSION's `table`). */
  body?: Record<string, unknown> | undefined;
}

export class ServiceError extends ManhattanClientError {
  override name = "ServiceError";
  readonly code: string;
  readonly status: number;
  readonly path: string | undefined;
  readonly index: number | undefined;
  readonly detail: string;
  readonly body: Record<string, unknown>;
  constructor(init: ServiceErrorInit) {
    super(`${init.code}: ${init.message}`);
    this.body = init.body ?? {};
    this.code = init.code;
    this.detail = init.message;
    this.status = init.status;
    this.path = init.path;
    this.index = init.index;
  }
}

export class InvalidStateError extends ServiceError { override name = "InvalidStateError"; }
export class InvalidMoveError extends ServiceError { override name = "InvalidMoveError"; }
export class IllegalMoveError extends ServiceError { override name = "IllegalMoveError"; }
export class GameOverError extends ServiceError { override name = "GameOverError"; }
export class StateNotFoundError extends ServiceError { override name = "StateNotFoundError"; }
export class BadTokenError extends ServiceError { override name = "BadTokenError"; }
export class PayloadTooLargeError extends ServiceError { override name = "PayloadTooLargeError"; }
export class QueryTooComplexError extends ServiceError { override name = "QueryTooComplexError"; }
export class RequestRejectedError extends ServiceError { override name = "RequestRejectedError"; }
export class ServerError extends ServiceError { override name = "ServerError"; }

/** A table (DESIGN §9) refused the request, or a move came for a player not to move. */
export class TableError extends RequestRejectedError { override name = "TableError"; }
export class TableNotFoundError extends TableError { override name = "TableNotFoundError"; }
export class TableFullError extends TableError { override name = "TableFullError"; }
export class TableNotWaitingError extends TableError { override name = "TableNotWaitingError"; }
export class TableNotPlayingError extends TableError { override name = "TableNotPlayingError"; }
export class NotYourTurnError extends TableError { override name = "NotYourTurnError"; }
export class BadSeatError extends TableError { override name = "BadSeatError"; }
export class NotSeatedError extends TableError { override name = "NotSeatedError"; }
export class TableNotOverError extends TableError { override name = "TableNotOverError"; }
/** TOO_MANY_STREAMS: a table stream over the limits (streams per client, spectators per table). */
export class TooManyStreamsError extends TableError { override name = "TooManyStreamsError"; }

/** NAME_TAKEN: the name, or one that looks the same, is already at the table. */
export class NameTakenError extends TableError { override name = "NameTakenError"; }
/** TOO_FEW_PLAYERS: a start with fewer than two seats filled. */
export class TooFewPlayersError extends TableError { override name = "TooFewPlayersError"; }

/** STALE_VERSION: `table` is the table as it is now (when the service sent it). */
export class StaleVersionError extends TableError {
  override name = "StaleVersionError";
  get table(): Table | undefined {
    const table = this.body["table"];
    return typeof table === "object" && table !== null ? (table as Table) : undefined;
  }
}

/** One class per code of the service's error table; unknown codes fall back by status. */
export class InvalidRequestError extends RequestRejectedError { override name = "InvalidRequestError"; }
export class InvalidSetupError extends RequestRejectedError { override name = "InvalidSetupError"; }
export class InvalidPlayerError extends RequestRejectedError { override name = "InvalidPlayerError"; }
export class InvalidBotError extends RequestRejectedError { override name = "InvalidBotError"; }
export class StateJsonRefusedError extends RequestRejectedError { override name = "StateJsonRefusedError"; }
export class WrongPlayerError extends RequestRejectedError { override name = "WrongPlayerError"; }
export class WrongGameError extends RequestRejectedError { override name = "WrongGameError"; }
/** PLAYER_REQUIRED: a strict service answers only players: send `Manhattan-Player`. */
export class PlayerRequiredError extends RequestRejectedError { override name = "PlayerRequiredError"; }
/** STALE_TOKEN: a strict service already took a move from this token's position. */
export class StaleTokenError extends RequestRejectedError { override name = "StaleTokenError"; }
/** The platform codes (DESIGN §10): keys, reserved seats, webhooks, ratings. */
export class PlatformError extends RequestRejectedError { override name = "PlatformError"; }
/** BAD_KEY: the Manhattan-Key names no key, or a platform's call came without one. */
export class BadKeyError extends PlatformError { override name = "BadKeyError"; }
/** SEAT_RESERVED: the seat is kept for a platform's player (taken with its seat token). */
export class SeatReservedError extends PlatformError { override name = "SeatReservedError"; }
export class WebhookUrlRefusedError extends PlatformError { override name = "WebhookUrlRefusedError"; }
/** PLAYER_NOT_FOUND: the key has no rated game of this player yet. */
export class PlayerNotFoundError extends PlatformError { override name = "PlayerNotFoundError"; }
export class NotFoundError extends RequestRejectedError { override name = "NotFoundError"; }
export class MethodNotAllowedError extends RequestRejectedError { override name = "MethodNotAllowedError"; }
export class NotAcceptableError extends RequestRejectedError { override name = "NotAcceptableError"; }
export class UnsupportedMediaTypeError extends RequestRejectedError { override name = "UnsupportedMediaTypeError"; }
export class NotImplementedByServiceError extends ServerError { override name = "NotImplementedByServiceError"; }
export class StoreUnavailableError extends ServerError { override name = "StoreUnavailableError"; }
export class ClientClosedRequestError extends RequestRejectedError { override name = "ClientClosedRequestError"; }
export class InternalServerError extends ServerError { override name = "InternalServerError"; }

/** BOTS_BUSY: every bot worker busy and the queue full; `retryAfter` seconds if the service said. */
export class BotsBusyError extends ServerError {
  override name = "BotsBusyError";
  constructor(init: ServiceErrorInit, readonly retryAfter?: number) {
    super(init);
  }
}

export class RateLimitedError extends ServiceError {
  override name = "RateLimitedError";
  constructor(init: ServiceErrorInit, readonly retryAfter?: number) {
    super(init);
  }
}

const ERRORS_BY_CODE: Record<string, new (init: ServiceErrorInit) => ServiceError> = {
  INVALID_STATE: InvalidStateError,
  INVALID_MOVE: InvalidMoveError,
  ILLEGAL_MOVE: IllegalMoveError,
  GAME_OVER: GameOverError,
  STATE_NOT_FOUND: StateNotFoundError,
  BAD_TOKEN: BadTokenError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  QUERY_TOO_COMPLEX: QueryTooComplexError,
  INVALID_REQUEST: InvalidRequestError,
  INVALID_SETUP: InvalidSetupError,
  INVALID_PLAYER: InvalidPlayerError,
  INVALID_BOT: InvalidBotError,
  NOT_YOUR_TURN: NotYourTurnError,
  STATE_JSON_REFUSED: StateJsonRefusedError,
  WRONG_PLAYER: WrongPlayerError,
  WRONG_GAME: WrongGameError,
  PLAYER_REQUIRED: PlayerRequiredError,
  STALE_TOKEN: StaleTokenError,
  TABLE_NOT_FOUND: TableNotFoundError,
  TABLE_FULL: TableFullError,
  TABLE_NOT_WAITING: TableNotWaitingError,
  STALE_VERSION: StaleVersionError,
  BAD_SEAT: BadSeatError,
  NOT_SEATED: NotSeatedError,
  TABLE_NOT_OVER: TableNotOverError,
  TABLE_NOT_PLAYING: TableNotPlayingError,
  TOO_MANY_STREAMS: TooManyStreamsError,
  NAME_TAKEN: NameTakenError,
  TOO_FEW_PLAYERS: TooFewPlayersError,
  BAD_KEY: BadKeyError,
  SEAT_RESERVED: SeatReservedError,
  WEBHOOK_URL_REFUSED: WebhookUrlRefusedError,
  PLAYER_NOT_FOUND: PlayerNotFoundError,
  NOT_FOUND: NotFoundError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  NOT_ACCEPTABLE: NotAcceptableError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  NOT_IMPLEMENTED: NotImplementedByServiceError,
  STORE_UNAVAILABLE: StoreUnavailableError,
  BOTS_BUSY: BotsBusyError,
  CLIENT_CLOSED_REQUEST: ClientClosedRequestError,
  INTERNAL_ERROR: InternalServerError,
};

/** The codes this client has a class for (the service's `GET /v1/rules` `errorCodes`). */
export const KNOWN_ERROR_CODES: readonly string[] = [...Object.keys(ERRORS_BY_CODE), "RATE_LIMITED"];

/** The typed error for an error answer. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader?: string | null,
): ManhattanClientError {
  if (typeof body !== "object" || body === null || typeof (body as { code?: unknown }).code !== "string") {
    return new UnexpectedResponseError(`HTTP ${status} without an error body`, status);
  }
  const raw = body as { code: string; message?: unknown; path?: unknown; index?: unknown };
  const init: ServiceErrorInit = {
    code: raw.code,
    message: typeof raw.message === "string" ? raw.message : "",
    status,
    path: typeof raw.path === "string" ? raw.path : undefined,
    index: typeof raw.index === "number" ? raw.index : undefined,
    body: body as Record<string, unknown>,
  };
  if (raw.code === "RATE_LIMITED" || raw.code === "BOTS_BUSY") {
    const seconds = retryAfterHeader == null ? undefined : Number(retryAfterHeader);
    const after = Number.isFinite(seconds) ? seconds : undefined;
    return raw.code === "BOTS_BUSY" ? new BotsBusyError(init, after) : new RateLimitedError(init, after);
  }
  const known = ERRORS_BY_CODE[raw.code];
  if (status >= 500) {
    return known !== undefined && known.prototype instanceof ServerError ? new known(init) : new ServerError(init);
  }
  return new (known ?? RequestRejectedError)(init);
}
