import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BadTokenError,
  InvalidBotError,
  KNOWN_ERROR_CODES,
  NotYourTurnError,
  StoreUnavailableError,
  BotsBusyError,
  GameOverError,
  graphqlResult,
  IllegalMoveError,
  InvalidMoveError,
  InvalidStateError,
  ManhattanClient,
  PayloadTooLargeError,
  QueryTooComplexError,
  RateLimitedError,
  RequestRejectedError,
  retryDelays,
  ServerError,
  ServiceError,
  StateNotFoundError,
  stateRef,
  TransportError,
  UnexpectedResponseError,
  type FetchLike,
} from "../src/index.js";

function answering(status: number, body: unknown, headers: Record<string, string> = {}): FetchLike {
  return async () =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
}

describe("errors (the error table)", () => {
  const cases: [string, number, new (...args: never[]) => ServiceError][] = [
    ["INVALID_STATE", 400, InvalidStateError],
    ["INVALID_MOVE", 400, InvalidMoveError],
    ["ILLEGAL_MOVE", 422, IllegalMoveError],
    ["GAME_OVER", 409, GameOverError],
    ["STATE_NOT_FOUND", 404, StateNotFoundError],
    ["BAD_TOKEN", 400, BadTokenError],
    ["PAYLOAD_TOO_LARGE", 413, PayloadTooLargeError],
    ["QUERY_TOO_COMPLEX", 400, QueryTooComplexError],
    ["RATE_LIMITED", 429, RateLimitedError],
    ["SOMETHING_NEW", 400, RequestRejectedError],
    ["STORE_UNAVAILABLE", 503, ServerError],
  ];
  for (const [code, status, ErrorClass] of cases) {
    test(`${code} becomes its own error class`, async () => {
      const client = new ManhattanClient("http://x", {
        fetch: answering(status, { code, message: "no", path: "$.round" }, { "retry-after": "3" }),
      });
      const error = await client.rules().catch((e: unknown) => e);
      assert.ok(error instanceof ErrorClass, `${code}: ${String(error)}`);
      assert.ok(error instanceof ServiceError);
      assert.deepEqual([error.code, error.status, error.path, error.detail], [code, status, "$.round", "no"]);
      if (error instanceof RateLimitedError) assert.equal(error.retryAfter, 3);
    });
  }

  test("an answer that is not an error body is unexpected", async () => {
    const client = new ManhattanClient("http://x", { fetch: answering(502, "<html>") });
    await assert.rejects(client.rules(), UnexpectedResponseError);
  });
});

describe("retries on network errors only", () => {
  test("backs off exponentially, then succeeds", async () => {
    let calls = 0;
    const slept: number[] = [];
    const client = new ManhattanClient("http://x", {
      fetch: async () => {
        calls += 1;
        if (calls < 3) throw new TypeError("fetch failed");
        return new Response('{"moves": []}', { status: 200 });
      },
      retry: { attempts: 3, backoffMs: 50, jitter: false },
      sleep: async (ms) => void slept.push(ms),
    });
    assert.deepEqual(await client.legalMoves({ id: "0".repeat(32) }), { moves: [] });
    assert.equal(calls, 3);
    assert.deepEqual(slept, [50, 100]);
  });

  test("gives up with a TransportError", async () => {
    const client = new ManhattanClient("http://x", {
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
      retry: { attempts: 2 },
      sleep: async () => {},
    });
    await assert.rejects(client.rules(), TransportError);
  });

  test("an error answer is not retried", async () => {
    let calls = 0;
    const client = new ManhattanClient("http://x", {
      fetch: async () => {
        calls += 1;
        return new Response('{"code": "INTERNAL_ERROR", "message": "bug"}', { status: 500 });
      },
      sleep: async () => {},
    });
    await assert.rejects(client.rules(), ServerError);
    assert.equal(calls, 1);
  });

  test("jittered delays stay between half and the full backoff", () => {
    const delays = retryDelays({ attempts: 5, backoffMs: 200, maxBackoffMs: 500, jitter: true });
    const bounds = [200, 400, 500, 500];
    delays.forEach((d, i) => {
      assert.ok(d >= bounds[i]! / 2 && d <= bounds[i]!, `delay ${i}: ${d}`);
    });
  });
});

describe("requests", () => {
  test("results that carry a token are sent as {token}", async () => {
    const seen: unknown[] = [];
    const client = new ManhattanClient("http://x/", {
      fetch: async (url, init) => {
        seen.push([url, JSON.parse(String(init.body))]);
        return new Response('{"moves": []}', { status: 200 });
      },
    });
    await client.legalMoves({ token: "t1", stateId: "a".repeat(32), events: [], moves: [] });
    assert.deepEqual(seen, [["http://x/v1/legal-moves", { state: { token: "t1" } }]]);
    assert.deepEqual(stateRef({ id: "abc" }), { id: "abc" });
  });
});

describe("one bot choice", () => {
  test("a level, a BotChoice or the deprecated seed all go out as {level, seed?, iterations?, timeMs?}", async () => {
    const seen: unknown[] = [];
    const client = new ManhattanClient("http://x", {
      fetch: async (_url, init) => {
        seen.push(JSON.parse(String(init.body)).bot);
        return new Response('{"move": {"type": "select"}, "bot": "greedy", "stats": {}, "alternatives": []}', {
          status: 200,
        });
      },
    });
    const state = { id: "0".repeat(32) };
    await client.suggest(state, { bot: "ismcts" });
    await client.suggest(state, { bot: { level: "ismcts", iterations: 500, timeMs: 100 } });
    await client.suggest(state, { bot: "random", seed: 4 });
    await client.suggest(state);
    await client.advance(state, { bot: "random" });
    assert.deepEqual(seen, [
      { level: "ismcts" },
      { level: "ismcts", iterations: 500, timeMs: 100 },
      { level: "random", seed: 4 },
      undefined,
      { level: "random" },
    ]);
  });
});

describe("every code of the error table has its class", () => {
  test("NOT_YOUR_TURN, INVALID_BOT, STORE_UNAVAILABLE", async () => {
    const cases: [string, number, new (...args: never[]) => ServiceError][] = [
      ["NOT_YOUR_TURN", 409, NotYourTurnError],
      ["INVALID_BOT", 400, InvalidBotError],
      ["STORE_UNAVAILABLE", 503, StoreUnavailableError],
    ];
    for (const [code, status, ErrorClass] of cases) {
      const client = new ManhattanClient("http://x", { fetch: answering(status, JSON.stringify({ code, message: "m" })) });
      await assert.rejects(client.rules(), ErrorClass);
    }
    // the live test compares KNOWN_ERROR_CODES with the service's own list
    assert.ok(KNOWN_ERROR_CODES.includes("BOTS_BUSY"));
  });
  test("BOTS_BUSY carries Retry-After", async () => {
    const busy: typeof fetch = async () =>
      new Response(JSON.stringify({ code: "BOTS_BUSY", message: "m" }), {
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "2" },
      });
    const client = new ManhattanClient("http://x", { fetch: busy });
    await assert.rejects(client.rules(), (error: unknown) => error instanceof BotsBusyError && error.retryAfter === 2);
  });
});

describe("GraphQL results", () => {
  test("a field's MoveRejected is thrown as the typed error of its code; a value is returned", async () => {
    const rejected = {
      score: { __typename: "MoveRejected", code: "INVALID_STATE", message: "'round' is 1 to 6", path: "$.round", index: null },
    };
    const client = new ManhattanClient("http://x", { fetch: answering(200, { data: rejected }) });
    const data = await client.graphql<{ score: { __typename: "Score"; round: number } | { __typename: "MoveRejected"; code: string; message: string; path: string | null } }>(
      "query($s: StateRef!) { score(state: $s) { __typename ... on Score { round } ... on MoveRejected { code message path index } } }",
      { s: { id: "0".repeat(32) } },
    );
    assert.throws(
      () => graphqlResult(data.score),
      (error: unknown) => error instanceof InvalidStateError && error.path === "$.round" && error.status === 200,
    );
    const score = graphqlResult<{ __typename: "Score"; round: number }>({ __typename: "Score", round: 2 });
    assert.equal(score.round, 2);
  });
});
