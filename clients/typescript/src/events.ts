/**
 * A table's live events as an async iterator over `fetch` + `ReadableStream` (browsers and
 * Node 18+; no EventSource, so it can send `Last-Event-ID` itself and read error bodies).
 *
 * Each connection takes a fresh single-use ticket when the stream is a seat's, resumes with
 * `Last-Event-ID` after a break (the service answers a gap with a `snapshot`), and treats a
 * stream silent for longer than `idleTimeoutMs` as dead (the service's heartbeat comments keep a
 * live one talking). Consecutive failed connections back off by the retry policy, then throw
 * `TransportError`; an error answer (TABLE_NOT_FOUND, BAD_SEAT...) is thrown at once. The
 * iterator ends after the game's `over` event, or a snapshot of a finished table, unless
 * `untilOver` is false; breaking out of the loop or aborting `signal` closes the connection.
 */
import { errorFromResponse, ManhattanClientError, TransportError, UnexpectedResponseError } from "./errors.js";
import { LineSplitter, SSEParser, type ServerSentEvent } from "./sse.js";
import type { Table, TableEvent } from "./tables.js";

export interface TableEventsOptions {
  /** The seat's token: a ticket is fetched with it before each connection. None: a spectator. */
  token?: string;
  /** Resume after this version. */
  lastEventId?: string | number;
  /** End after the game is over (default true). */
  untilOver?: boolean;
  /** A stream silent this long is reconnected (default 45 000 ms; heartbeats come every 15 s). */
  idleTimeoutMs?: number;
  /** Stops the iterator (it then ends without an error). */
  signal?: AbortSignal;
}

/** What the stream needs from the client: raw fetch, tickets, backoff. */
export interface StreamHost {
  url(path: string): string;
  fetch(url: string, init: RequestInit): Promise<Response>;
  ticket(tableId: string, token: string): Promise<string>;
  delays(): number[];
  sleep(ms: number): Promise<void>;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

export function tableEventOf(sse: ServerSentEvent): TableEvent {
  let data: unknown;
  try {
    data = JSON.parse(sse.data);
  } catch {
    throw new UnexpectedResponseError(`${sse.event} event with non-JSON data`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new UnexpectedResponseError(`${sse.event} event whose data is not an object`);
  }
  const version = sse.id !== undefined && /^\d+$/.test(sse.id) ? Number(sse.id) : undefined;
  return { kind: sse.event, version, data } as TableEvent;
}

/** The game's last event: `over`, or a snapshot of a finished table. */
export function endsGame(event: TableEvent): boolean {
  return event.kind === "over" || (event.kind === "snapshot" && (event.data as Table).status === "over");
}

export async function* tableEvents(
  host: StreamHost,
  tableId: string,
  options: TableEventsOptions = {},
): AsyncGenerator<TableEvent, void, undefined> {
  const untilOver = options.untilOver ?? true;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const parser = new SSEParser(options.lastEventId === undefined ? undefined : String(options.lastEventId));
  const path = `/v1/tables/${encodeURIComponent(tableId)}/events`;
  let failures = 0;
  for (;;) {
    if (options.signal?.aborted) return;
    const query = options.token === undefined ? "" : `?ticket=${encodeURIComponent(await host.ticket(tableId, options.token))}`;
    const headers: Record<string, string> = { accept: "text/event-stream", "cache-control": "no-cache" };
    if (parser.lastEventId !== undefined) headers["last-event-id"] = parser.lastEventId;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(), idleMs);
    };
    let cause: unknown;
    try {
      arm();
      const response = await host.fetch(host.url(path + query), { method: "GET", headers, signal: controller.signal });
      if (!response.ok) {
        let body: unknown;
        try {
          body = await response.json();
        } catch {
          body = undefined;
        }
        throw errorFromResponse(response.status, body, response.headers.get("retry-after"));
      }
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("text/event-stream") || response.body === null) {
        throw new UnexpectedResponseError(`the events answer is ${type || "untyped"}, not text/event-stream`, response.status);
      }
      parser.reset();
      const lines = new LineSplitter();
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          arm();
          for (const line of lines.push(decoder.decode(value, { stream: true }))) {
            const sse = parser.feed(line);
            if (sse === undefined) continue;
            failures = 0;
            const event = tableEventOf(sse);
            yield event;
            if (untilOver && endsGame(event)) return;
          }
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    } catch (error) {
      // Error answers and odd answers are final; what is left is the connection failing (a
      // network error, or our own abort when the stream went silent): reconnect.
      if (error instanceof ManhattanClientError) throw error;
      cause = error;
    } finally {
      clearTimeout(idle);
      options.signal?.removeEventListener("abort", onAbort);
      controller.abort();
    }
    if (options.signal?.aborted) return;
    const delay = host.delays()[failures];
    failures += 1;
    if (delay === undefined) {
      const detail = cause === undefined ? " (the service closed it)" : `: ${String(cause)}`;
      throw new TransportError(`the table's event stream broke${detail}`, { cause });
    }
    await host.sleep(delay);
  }
}
