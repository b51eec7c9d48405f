/**
 * Every error the client throws, rebuilt from the service's stable codes (DESIGN §5).
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
 *       ├── TableError            the table codes (DESIGN §9):
 *       │   ├── TableNotFoundError    TABLE_NOT_FOUND (404)
 *       │   ├── TableFullError        TABLE_FULL (409)
 *       │   ├── TableNotWaitingError  TABLE_NOT_WAITING (409)
 *       │   ├── TableNotPlayingError  TABLE_NOT_PLAYING (409)
 *       │   ├── StaleVersionError     STALE_VERSION (409; .table is the current table)
 *       │   ├── NotYourTurnError      NOT_YOUR_TURN (409)
 *       │   ├── BadSeatError          BAD_SEAT (401)
 *       │   ├── NotSeatedError        NOT_SEATED (403)
 *       │   └── TableNotOverError     TABLE_NOT_OVER (409)
 *       ├── RequestRejectedError  any other 4xx code
 *       └── ServerError           5xx
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

/** A table (DESIGN §9) refused the request; the subclass says why. */
export class TableError extends ServiceError { override name = "TableError"; }
export class TableNotFoundError extends TableError { override name = "TableNotFoundError"; }
export class TableFullError extends TableError { override name = "TableFullError"; }
export class TableNotWaitingError extends TableError { override name = "TableNotWaitingError"; }
export class TableNotPlayingError extends TableError { override name = "TableNotPlayingError"; }
export class NotYourTurnError extends TableError { override name = "NotYourTurnError"; }
export class BadSeatError extends TableError { override name = "BadSeatError"; }
export class NotSeatedError extends TableError { override name = "NotSeatedError"; }
export class TableNotOverError extends TableError { override name = "TableNotOverError"; }

/** STALE_VERSION: `table` is the table as it is now (when the service sent it). */
export class StaleVersionError extends TableError {
  override name = "StaleVersionError";
  get table(): Table | undefined {
    const table = this.body["table"];
    return typeof table === "object" && table !== null ? (table as Table) : undefined;
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
  TABLE_NOT_FOUND: TableNotFoundError,
  TABLE_FULL: TableFullError,
  TABLE_NOT_WAITING: TableNotWaitingError,
  TABLE_NOT_PLAYING: TableNotPlayingError,
  STALE_VERSION: StaleVersionError,
  NOT_YOUR_TURN: NotYourTurnError,
  BAD_SEAT: BadSeatError,
  NOT_SEATED: NotSeatedError,
  TABLE_NOT_OVER: TableNotOverError,
};

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
  if (status >= 500) return new ServerError(init);
  if (raw.code === "RATE_LIMITED") {
    const seconds = retryAfterHeader == null ? undefined : Number(retryAfterHeader);
    return new RateLimitedError(init, Number.isFinite(seconds) ? seconds : undefined);
  }
  const ErrorClass = ERRORS_BY_CODE[raw.code] ?? RequestRejectedError;
  return new ErrorClass(init);
}
