/**
 * A table's own socket (`/v1/tables/{id}/socket`, README "The table's socket"): the table's
 * events and a seat's moves and chat on one plain WebSocket, one JSON text message each, so a
 * program plays with no HTTP request a turn (`ManhattanClient.openPlainTableSocket`).
 *
 * The seat is named by a single-use ticket in the address (a browser's WebSocket sends no
 * header). Each move or chat is answered, in the order sent, by an `ack` or an `error`, and the
 * socket stays open; so the oldest unanswered call takes each answer, and the events that come
 * meanwhile keep their order in a queue that `events()` reads. A socket the table refuses gets
 * one `error` message and is closed with code 4000 + the HTTP status: `open` (or, when resuming,
 * `events()`, `move` and `chat`) throws it as the typed error of its code (`TableNotFoundError`,
 * `BadSeatError`, ...). A refused move throws as `tableMove` does (`StaleVersionError` with
 * `.table`), with `status` 0: the socket carries no HTTP status.
 */
import { errorFromResponse, TransportError, UnexpectedResponseError } from "./errors.js";
import { endsGame } from "./events.js";
import type { WebSocketFactory, WebSocketLike } from "./socket.js";
import { newMoveId, type TableEvent } from "./tables.js";
import type { MoveIn } from "./types.js";

/** A refusal's close code is this plus the HTTP status (4404, 4401, 4429...). */
export const REFUSED = 4000;
/** `ServiceError.status` of an error answered on an open socket. */
const NO_STATUS = 0;
const OPEN = 1;

interface Waiting {
  kind: "move" | "chat";
  moveId: string | undefined;
  resolve(version: number): void;
  reject(error: unknown): void;
}

interface Message {
  event: string;
  id?: unknown;
  data: Record<string, unknown>;
}

function parsed(text: string): Message {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new UnexpectedResponseError("a table socket message that is not JSON");
  }
  const m = message as Partial<Message> | null;
  if (typeof m !== "object" || m === null || typeof m.event !== "string" || typeof m.data !== "object" || m.data === null) {
    throw new UnexpectedResponseError(`a table socket message without its event: ${text.slice(0, 200)}`);
  }
  return m as Message;
}

export class PlainTableSocket {
  /** The version of the last event read (where another socket may resume). */
  lastEventId: number | undefined;
  private readonly waiting: Waiting[] = [];
  private readonly queue: TableEvent[] = [];
  private wake: (() => void) | undefined;
  private refusal: Record<string, unknown> | undefined;
  private closing = false;
  /** Set when the socket has closed: the error it ended with, or null for a close of ours. */
  private ended: Error | null | undefined;

  private constructor(private readonly ws: WebSocketLike, lastEventId: number | undefined) {
    this.lastEventId = lastEventId;
  }

  /**
   * The socket at `url` (the client builds it), once its first event came (so a refusal is
   * thrown here); when resuming after `lastEventId`, once it is open (nothing may come until
   * the table changes).
   */
  static open(url: string, factory: WebSocketFactory, lastEventId?: number): Promise<PlainTableSocket> {
    return new Promise((resolve, reject) => {
      let ws: WebSocketLike;
      try {
        ws = factory(url);
      } catch (error) {
        reject(new TransportError(`cannot open ${url}: ${String(error)}`, { cause: error }));
        return;
      }
      const socket = new PlainTableSocket(ws, lastEventId);
      let settled = false;
      const settle = (failure?: Error | null) => {
        if (settled) return;
        settled = true;
        if (failure) reject(failure);
        else resolve(socket);
      };
      ws.addEventListener("open", () => {
        if (lastEventId !== undefined) settle();
      });
      ws.addEventListener("message", (event) => {
        socket.receive(String(event.data));
        if (socket.queue.length > 0) settle();
      });
      // (a failed or broken socket's "error" is followed by its "close", which says more)
      ws.addEventListener("close", (event) => {
        socket.end(socket.closedError(event?.code, event?.reason));
        settle(socket.ended ?? new TransportError("the table socket closed before its first event"));
      });
    });
  }

  /** Open, and not closed by either side. */
  get isOpen(): boolean {
    return this.ended === undefined && !this.closing && this.ws.readyState === OPEN;
  }

  /**
   * The table's events in the order sent, as they come, ending after the game's `over` (or a
   * snapshot of a finished table) unless `untilOver` is false; a socket that closes or breaks
   * ends them with its error (open another with `lastEventId: socket.lastEventId`).
   */
  async *events(options: { untilOver?: boolean } = {}): AsyncGenerator<TableEvent, void, undefined> {
    const untilOver = options.untilOver ?? true;
    for (;;) {
      while (this.queue.length === 0 && this.ended === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      const event = this.queue.shift();
      if (event === undefined) {
        if (this.ended) throw this.ended;
        return;
      }
      if (event.version !== undefined) this.lastEventId = event.version;
      yield event;
      if (untilOver && endsGame(event)) return;
    }
  }

  /** Play `move` against table `version`; the table's version after it (the `ack`'s). */
  move(move: MoveIn, version: number, moveId: string = newMoveId()): Promise<number> {
    return this.ask({ type: "move", version, move, moveId }, "move", moveId);
  }

  /** Say `text` at the table; the chat event's version. */
  chat(text: string): Promise<number> {
    return this.ask({ type: "chat", text }, "chat", undefined);
  }

  /** Close the socket; calls still waiting for an answer throw `TransportError`. */
  close(): void {
    this.closing = true;
    this.ws.close(1000, "done");
  }

  private ask(message: Record<string, unknown>, kind: "move" | "chat", moveId: string | undefined): Promise<number> {
    if (this.ended) return Promise.reject(this.ended);
    if (!this.isOpen) return Promise.reject(new TransportError("the table socket is not open"));
    return new Promise((resolve, reject) => {
      const waiting = { kind, moveId, resolve, reject };
      this.waiting.push(waiting);
      try {
        this.ws.send(JSON.stringify(message));
      } catch (error) {
        this.waiting.splice(this.waiting.indexOf(waiting), 1);
        reject(new TransportError(`the table socket did not take the ${kind}: ${String(error)}`, { cause: error }));
      }
    });
  }

  private receive(text: string): void {
    if (this.ended !== undefined) return;
    try {
      this.take(parsed(text));
    } catch (error) {
      // a message not as documented: end here, loudly
      this.end(error instanceof Error ? error : new UnexpectedResponseError(String(error)));
      this.ws.close(1002, "unexpected message");
    }
  }

  private take(message: Message): void {
    const { event: kind, data } = message;
    if (kind === "ack" || (kind === "error" && "type" in data)) return this.answer(kind, data);
    if (kind === "error") {
      this.refusal = data; // the socket closes next, with the status in its code
      return;
    }
    const version = typeof message.id === "number" ? message.id : undefined;
    this.queue.push({ kind, version, data } as TableEvent);
    this.wake?.();
  }

  private answer(kind: string, data: Record<string, unknown>): void {
    const waiting = this.waiting.shift();
    if (waiting === undefined) throw new UnexpectedResponseError(`an ${kind} on the table socket that answers nothing`);
    if ((data["type"] !== undefined && data["type"] !== waiting.kind) || data["moveId"] !== waiting.moveId) {
      const wrong = new UnexpectedResponseError(`the table socket answered ${JSON.stringify(data)} to a ${waiting.kind}`);
      waiting.reject(wrong);
      throw wrong;
    }
    if (kind === "error") return waiting.reject(errorFromResponse(NO_STATUS, data));
    const version = data["version"];
    if (typeof version !== "number") return waiting.reject(new UnexpectedResponseError("an ack without the table's version"));
    waiting.resolve(version);
  }

  private closedError(code: number | undefined, reason: string | undefined): Error | null {
    if (this.refusal !== undefined && code !== undefined && code >= REFUSED && code < REFUSED + 1000) {
      return errorFromResponse(code - REFUSED, this.refusal);
    }
    if (this.closing && this.refusal === undefined) return null;
    return new TransportError(`the table socket closed (code ${code ?? "?"}, ${reason || "no reason"})`);
  }

  private end(error: Error | null): void {
    if (this.ended !== undefined) return;
    this.ended = error;
    const why = error ?? new TransportError("the table socket is closed");
    for (const waiting of this.waiting.splice(0)) waiting.reject(why);
    this.wake?.();
  }
}
