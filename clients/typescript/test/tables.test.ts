// Tables without a service: the SSE parser, and the reconnecting event stream and the table
// requests against a fake fetch.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BadSeatError,
  LineSplitter,
  ManhattanClient,
  NotYourTurnError,
  SSEParser,
  StaleVersionError,
  TableError,
  TableFullError,
  TableNotFoundError,
  TableNotOverError,
  TableNotPlayingError,
  TableNotWaitingError,
  NotSeatedError,
  TransportError,
  UnexpectedResponseError,
  type FetchLike,
  type ServerSentEvent,
  type TableEvent,
} from "../src/index.js";

function parseAll(chunks: string[]): { events: ServerSentEvent[]; parser: SSEParser } {
  const lines = new LineSplitter();
  const parser = new SSEParser();
  const events: ServerSentEvent[] = [];
  for (const chunk of chunks) {
    for (const line of lines.push(chunk)) {
      const event = parser.feed(line);
      if (event) events.push(event);
    }
  }
  return { events, parser };
}

describe("SSE parsing", () => {
  test("fields, multi-line data, comments, ids that carry over, any line ending", () => {
    const text = '\ufeff: ping\r\nid: 3\revent: move\ndata: {"a":\r\ndata:  1}\n\n: hb\n\ndata:plain\nretry: 1500\n\n';
    // the same text cut into every possible pair of chunks parses the same
    for (let cut = 0; cut <= text.length; cut++) {
      const { events, parser } = parseAll([text.slice(0, cut), text.slice(cut)]);
      assert.deepEqual(
        events,
        [
          { event: "move", data: '{"a":\n 1}', id: "3", retry: undefined },
          { event: "message", data: "plain", id: "3", retry: 1500 },
        ],
        `cut at ${cut}`,
      );
      assert.equal(parser.lastEventId, "3");
    }
  });

  test("an event cut off by a broken connection leaves the last id as it was", () => {
    const parser = new SSEParser("2");
    parser.feed("id: 9");
    parser.feed("data: half");
    parser.reset();
    assert.equal(parser.feed(""), undefined);
    assert.equal(parser.lastEventId, "2");
    parser.feed("event: x");
    assert.equal(parser.feed(""), undefined); // no data: nothing dispatched
  });
});

const table = (version: number, status = "playing") => ({
  tableId: "t1",
  name: "t",
  status,
  version,
  seats: [],
  toMove: 0,
  deadline: null,
  view: null,
  moves: [],
});
const sse = (kind: string, version: number, data: unknown) => `id: ${version}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;

type Script = string | string[] | Error | { status: number; body: unknown };

/** A fake service: tickets are numbered; each stream request plays the next script. */
function fakeService(scripts: Script[]) {
  const streams: { url: string; headers: Record<string, string> }[] = [];
  let tickets = 0;
  const fetch: FetchLike = async (url, init) => {
    const headers = init.headers as Record<string, string>;
    if (url.endsWith("/ticket")) {
      assert.equal(headers["authorization"], "Bearer seat");
      tickets += 1;
      return new Response(JSON.stringify({ ticket: `k${tickets}`, expiresIn: 60 }), { status: 200 });
    }
    streams.push({ url, headers });
    const script = scripts.shift();
    if (script === undefined) throw new TypeError("fetch failed: no more scripts");
    if (script instanceof Error) throw script;
    if (typeof script === "object" && !Array.isArray(script)) {
      return new Response(JSON.stringify(script.body), { status: script.status });
    }
    const chunks = typeof script === "string" ? [script] : script;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } });
  };
  return { fetch, streams };
}

async function collect(events: AsyncIterable<TableEvent>): Promise<[string, number | undefined][]> {
  const seen: [string, number | undefined][] = [];
  for await (const event of events) seen.push([event.kind, event.version]);
  return seen;
}

describe("tableEvents", () => {
  test("reconnects with Last-Event-ID and a fresh ticket, and ends after over", async () => {
    const fake = fakeService([
      [sse("snapshot", 3, table(3)).slice(0, 10), sse("snapshot", 3, table(3)).slice(10) + ": ping\n\n"],
      new TypeError("fetch failed"),
      sse("move", 4, { toMove: 1 }) + 'id: 5\nevent: chat\ndata: {"te',
      sse("over", 6, { ranking: [] }) + sse("chat", 7, { text: "after" }),
    ]);
    const slept: number[] = [];
    const client = new ManhattanClient("http://x", {
      fetch: fake.fetch,
      sleep: async (ms) => void slept.push(ms),
      streamRetry: { attempts: 4, backoffMs: 100, jitter: false },
    });
    assert.deepEqual(await collect(client.tableEvents("t1", { token: "seat" })), [
      ["snapshot", 3],
      ["move", 4],
      ["over", 6],
    ]);
    assert.deepEqual(
      fake.streams.map((s) => [new URL(s.url).searchParams.get("ticket"), s.headers["last-event-id"]]),
      [
        ["k1", undefined],
        ["k2", "3"],
        ["k3", "3"],
        ["k4", "4"],
      ],
    );
    assert.ok(fake.streams.every((s) => s.headers["accept"] === "text/event-stream"));
    assert.deepEqual(slept, [100, 200, 100]); // events reset the backoff
  });

  test("a spectator sends no ticket; a finished table's snapshot ends the stream", async () => {
    const fake = fakeService([sse("snapshot", 9, table(9, "over"))]);
    const client = new ManhattanClient("http://x", { fetch: fake.fetch });
    const events: TableEvent[] = [];
    for await (const event of client.tableEvents("t 1", { lastEventId: 8 })) events.push(event);
    assert.equal(events.length, 1);
    const first = events[0]!;
    assert.ok(first.kind === "snapshot" && first.data.status === "over");
    assert.equal(fake.streams[0]!.url, "http://x/v1/tables/t%201/events");
    assert.equal(fake.streams[0]!.headers["last-event-id"], "8");
  });

  test("error answers are thrown as typed errors, not retried", async () => {
    const fake = fakeService([{ status: 401, body: { code: "BAD_SEAT", message: "revoked" } }]);
    const client = new ManhattanClient("http://x", { fetch: fake.fetch, sleep: async () => {} });
    await assert.rejects(collect(client.tableEvents("t1", { token: "seat" })), BadSeatError);
    assert.equal(fake.streams.length, 1);
  });

  test("gives up after the stream policy's attempts", async () => {
    const fake = fakeService([new TypeError("a"), new TypeError("b"), new TypeError("c")]);
    const client = new ManhattanClient("http://x", {
      fetch: fake.fetch,
      sleep: async () => {},
      streamRetry: { attempts: 3 },
    });
    await assert.rejects(collect(client.tableEvents("t1")), TransportError);
    assert.equal(fake.streams.length, 3);
  });

  test("an answer that is not an event stream is unexpected", async () => {
    const client = new ManhattanClient("http://x", {
      fetch: async () => new Response("{}", { status: 200, headers: { "content-type": "application/json" } }),
    });
    await assert.rejects(collect(client.tableEvents("t1")), UnexpectedResponseError);
  });

  test("a silent stream is dropped after the idle timeout and reconnected", async () => {
    let calls = 0;
    const seen: (string | undefined)[] = [];
    const fetch: FetchLike = async (_url, init) => {
      calls += 1;
      seen.push((init.headers as Record<string, string>)["last-event-id"]);
      if (calls === 2) return new Response(sse("over", 2, { ranking: [] }), { headers: { "content-type": "text/event-stream" } });
      const signal = init.signal!;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(sse("snapshot", 1, table(1))));
          signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const client = new ManhattanClient("http://x", { fetch, sleep: async () => {} });
    const kinds = await collect(client.tableEvents("t1", { idleTimeoutMs: 50 }));
    assert.deepEqual(kinds, [
      ["snapshot", 1],
      ["over", 2],
    ]);
    assert.deepEqual(seen, [undefined, "1"]);
  });

  test("aborting the signal ends the iterator quietly", async () => {
    const controller = new AbortController();
    const fetch: FetchLike = async (_url, init) => {
      const signal = init.signal!;
      const body = new ReadableStream<Uint8Array>({
        start(stream) {
          stream.enqueue(new TextEncoder().encode(sse("snapshot", 1, table(1))));
          signal.addEventListener("abort", () => stream.error(new DOMException("aborted", "AbortError")));
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const client = new ManhattanClient("http://x", { fetch });
    const kinds: string[] = [];
    for await (const event of client.tableEvents("t1", { signal: controller.signal })) {
      kinds.push(event.kind);
      controller.abort();
    }
    assert.deepEqual(kinds, ["snapshot"]);
  });
});

describe("table requests", () => {
  const codes: [string, number, new (...args: never[]) => TableError][] = [
    ["TABLE_NOT_FOUND", 404, TableNotFoundError],
    ["TABLE_FULL", 409, TableFullError],
    ["TABLE_NOT_WAITING", 409, TableNotWaitingError],
    ["TABLE_NOT_PLAYING", 409, TableNotPlayingError],
    ["STALE_VERSION", 409, StaleVersionError],
    ["NOT_YOUR_TURN", 409, NotYourTurnError],
    ["BAD_SEAT", 401, BadSeatError],
    ["NOT_SEATED", 403, NotSeatedError],
    ["TABLE_NOT_OVER", 409, TableNotOverError],
  ];
  for (const [code, status, ErrorClass] of codes) {
    test(`${code} becomes its own error class`, async () => {
      const client = new ManhattanClient("http://x", {
        fetch: async () => new Response(JSON.stringify({ code, message: "no", table: table(5) }), { status }),
      });
      const error = await client.getTable("t1").catch((e: unknown) => e);
      assert.ok(error instanceof ErrorClass && error instanceof TableError, `${code}: ${String(error)}`);
      assert.equal(error.status, status);
      if (error instanceof StaleVersionError) assert.equal(error.table?.version, 5);
    });
  }

  test("a move that lost its answer is sent again with the same move id and bearer", async () => {
    const bodies: unknown[] = [];
    const client = new ManhattanClient("http://x", {
      fetch: async (url, init) => {
        bodies.push([url, (init.headers as Record<string, string>)["authorization"], JSON.parse(String(init.body))]);
        if (bodies.length === 1) throw new TypeError("socket hang up");
        return new Response(JSON.stringify({ version: 8, view: {}, events: [] }), { status: 200 });
      },
      sleep: async () => {},
    });
    const result = await client.tableMove("t1", "s0:6,0,0,0", 7, { token: "tok" });
    assert.equal(result.version, 8);
    assert.equal(bodies.length, 2);
    assert.deepEqual(bodies[0], bodies[1]);
    const [url, auth, body] = bodies[0] as [string, string, { moveId: string; version: number }];
    assert.equal(url, "http://x/v1/tables/t1/moves");
    assert.equal(auth, "Bearer tok");
    assert.match(body.moveId, /^[0-9a-f]{32}$/);
    assert.equal(body.version, 7);
  });

  test("a join that lost its answer is not sent again", async () => {
    let calls = 0;
    const client = new ManhattanClient("http://x", {
      fetch: async () => {
        calls += 1;
        throw new TypeError("socket hang up");
      },
      sleep: async () => {},
    });
    await assert.rejects(client.joinTable("t1", "ann"), TransportError);
    assert.equal(calls, 1);
  });

  test("create sends the request with an empty setup by default", async () => {
    const seen: unknown[] = [];
    const client = new ManhattanClient("http://x", {
      fetch: async (_url, init) => {
        seen.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify({ tableId: "t", hostToken: "h", table: table(1, "waiting") }), { status: 201 });
      },
    });
    const created = await client.createTable({ seats: ["open", { bot: { level: "greedy" } }], turnSeconds: null });
    assert.equal(created.hostToken, "h");
    assert.deepEqual(seen, [{ setup: {}, seats: ["open", { bot: { level: "greedy" } }], turnSeconds: null }]);
  });
});
