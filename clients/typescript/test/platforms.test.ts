// Platforms without a service (DESIGN §10): the key header, myTables, ratings, the platform
// errors, and the webhook signature check against a vector signed by the `standardwebhooks`
// package (Python: standardwebhooks.Webhook(SECRET).sign("msg_2Kx", 1764100000, BODY)).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BadKeyError,
  ManhattanClient,
  PlatformError,
  PlayerNotFoundError,
  SeatReservedError,
  WebhookSignatureError,
  reservedSeat,
  signWebhook,
  verifyWebhook,
} from "../src/index.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const BODY = '{"type":"table.turn","timestamp":"2025-11-25T19:46:40Z","data":{"tableId":"t1","version":7}}';
const SIGNED = "v1,+7n6vAqKVwMw8W2tF6wh2AJTdbUeN/lGkA+hh0/yM/I=";
const STAMP = 1764100000;
const HEADERS = { "webhook-id": "msg_2Kx", "webhook-timestamp": String(STAMP), "webhook-signature": SIGNED };

describe("platform requests", () => {
  test("the key goes out as Manhattan-Key; myTables and ratings read their answers", async () => {
    const seen: [string, string | undefined][] = [];
    const client = new ManhattanClient("http://x", {
      key: "club-secret",
      fetch: async (url, init) => {
        seen.push([url, (init.headers as Record<string, string>)["manhattan-key"]]);
        if (url.includes("/v1/tables")) return new Response(JSON.stringify({ player: "ann", tables: [] }));
        if (url.includes("player=")) {
          return new Response(JSON.stringify({ player: "ann", mu: 26, sigma: 7, ordinal: 5, games: 1 }));
        }
        return new Response(JSON.stringify({ ratings: [], next: null }));
      },
    });
    assert.deepEqual(await client.myTables("ann"), []);
    assert.equal((await client.rating("ann")).games, 1);
    assert.equal((await client.ratings({ limit: 2, cursor: "4" })).next, null);
    await client.ratings();
    assert.deepEqual(seen, [
      ["http://x/v1/tables?player=ann", "club-secret"],
      ["http://x/v1/ratings?player=ann", "club-secret"],
      ["http://x/v1/ratings?limit=2&cursor=4", "club-secret"],
      ["http://x/v1/ratings", "club-secret"],
    ]);
  });

  test("a reserved seat and the platform codes", async () => {
    assert.deepEqual(reservedSeat("u1", "Ann"), { reserved: { id: "u1", name: "Ann" } });
    const cases: [string, number, new (...args: never[]) => PlatformError][] = [
      ["BAD_KEY", 401, BadKeyError],
      ["SEAT_RESERVED", 409, SeatReservedError],
      ["PLAYER_NOT_FOUND", 404, PlayerNotFoundError],
    ];
    for (const [code, status, ErrorClass] of cases) {
      const client = new ManhattanClient("http://x", {
        fetch: async () => new Response(JSON.stringify({ code, message: "no" }), { status }),
      });
      const error = await client.rating("ann").catch((e: unknown) => e);
      assert.ok(error instanceof ErrorClass && error instanceof PlatformError, code);
    }
  });
});

describe("webhook signatures", () => {
  test("the standardwebhooks package's signature is reproduced and verified", async () => {
    assert.equal(await signWebhook(SECRET, "msg_2Kx", STAMP, BODY), SIGNED);
    await verifyWebhook(SECRET, HEADERS, BODY, { now: STAMP + 10 });
    await verifyWebhook(SECRET, new Headers(HEADERS), new TextEncoder().encode(BODY), { now: STAMP });
    await verifyWebhook(SECRET, { ...HEADERS, "webhook-signature": `v1,AAAA ${SIGNED}` }, BODY, { now: STAMP });
  });

  test("anything else is refused", async () => {
    const refused: [Record<string, string>, string, number][] = [
      [HEADERS, BODY + " ", STAMP],
      [{ ...HEADERS, "webhook-id": "msg_other" }, BODY, STAMP],
      [HEADERS, BODY, STAMP + 3600],
      [{ "webhook-id": "msg_2Kx", "webhook-timestamp": String(STAMP) }, BODY, STAMP],
    ];
    for (const [headers, body, now] of refused) {
      await assert.rejects(verifyWebhook(SECRET, headers, body, { now }), WebhookSignatureError);
    }
    const other = "whsec_" + btoa("another secret of 24 b..");
    await assert.rejects(verifyWebhook(other, HEADERS, BODY, { now: STAMP }), WebhookSignatureError);
  });
});
