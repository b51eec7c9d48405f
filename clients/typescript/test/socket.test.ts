// The table socket without a service: a fake WebSocket that speaks graphql-transport-ws. Moves
// and chat go over the open socket; a closed or broken one falls back to HTTP with the same move id.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BadSeatError,
  ManhattanClient,
  StaleVersionError,
  TransportError,
  type FetchLike,
} from "../src/index.js";
import { FakeWebSocket } from "./fakesocket.js";

type Answer = (message: any) => any | undefined;

/** A socket that acks `connection_init` and answers each `subscribe` with `answer(message)`. */
class FakeSocket extends FakeWebSocket {
  constructor(private readonly answer: Answer) {
    super();
  }

  protected received(message: any): void {
    if (message.type === "connection_init") return this.reply({ type: "connection_ack" });
    if (message.type !== "subscribe") return;
    const payload = this.answer(message);
    if (payload === undefined) return; // no answer: the test breaks the socket
    this.reply({ id: message.id, type: "next", payload });
    this.reply({ id: message.id, type: "complete" });
  }
}

const SELECT = { type: "select" as const, color: 0, pieces: [1, 1, 1, 1] as [number, number, number, number] };
const moved = { __typename: "TableMoved", version: 8, view: { json: { player: 0, hand: [] } }, events: [{ type: "x" }] };

function setUp(answer: Answer) {
  const sockets: FakeSocket[] = [];
  const posts: { url: string; body: any; auth: string | undefined }[] = [];
  const fetch: FetchLike = async (url, init) => {
    const headers = init.headers as Record<string, string>;
    posts.push({ url, body: JSON.parse(String(init.body)), auth: headers["authorization"] });
    return new Response(JSON.stringify({ version: 8, view: { player: 0 }, events: [] }), { status: 200 });
  };
  const client = new ManhattanClient("http://svc", {
    fetch,
    sleep: async () => undefined,
    webSocket: (url, protocol) => {
      assert.equal(url, "ws://svc/graphql");
      assert.equal(protocol, "graphql-transport-ws");
      const socket = new FakeSocket(answer);
      sockets.push(socket);
      return socket;
    },
  });
  return { client, sockets, posts };
}

describe("table socket", () => {
  test("the seat token goes once in connection_init; the move goes over the socket", async () => {
    const { client, sockets, posts } = setUp(() => ({ data: { tableMove: moved } }));
    const socket = await client.openTableSocket("seat-a");
    assert.deepEqual(sockets[0]!.sent[0], { type: "connection_init", payload: { seatToken: "seat-a" } });
    const result = await client.tableMove("t1", SELECT, 7, { token: "seat-a", moveId: "m1" });
    assert.deepEqual(result, { version: 8, view: { player: 0, hand: [] }, events: [{ type: "x" }] });
    const subscribe = sockets[0]!.sent[1];
    assert.equal(subscribe.type, "subscribe");
    assert.deepEqual(subscribe.payload.variables, { id: "t1", move: SELECT, version: 7, moveId: "m1" });
    assert.equal(posts.length, 0);
    // another seat has no socket here: HTTP
    await client.tableMove("t1", SELECT, 8, { token: "seat-b" });
    assert.equal(posts.length, 1);
    assert.equal(posts[0]!.auth, "Bearer seat-b");
    socket.close();
  });

  test("a refusal is the typed error HTTP would throw, STALE_VERSION with its table", async () => {
    const { client } = setUp((m) =>
      m.payload.variables.version === 1
        ? { data: { tableMove: { __typename: "TableRejected", code: "STALE_VERSION", message: "stale", path: null, table: { raw: { version: 9 } } } } }
        : { data: { sendChat: { __typename: "TableRejected", code: "BAD_SEAT", message: "no", path: null, table: null } } },
    );
    await client.openTableSocket("seat-a");
    const stale = await client.tableMove("t1", SELECT, 1, { token: "seat-a" }).catch((e: unknown) => e);
    assert.ok(stale instanceof StaleVersionError);
    assert.equal(stale.table?.version, 9);
    await assert.rejects(client.chat("t1", "hi", "seat-a"), BadSeatError);
  });

  test("a closed socket, or one that breaks during the move, falls back to HTTP with the same move id", async () => {
    let breakNext = false;
    const { client, sockets, posts } = setUp(() => (breakNext ? undefined : { data: { tableMove: moved } }));
    const socket = await client.openTableSocket("seat-a");
    breakNext = true;
    const pending = client.tableMove("t1", SELECT, 7, { token: "seat-a", moveId: "m9" });
    setTimeout(() => sockets[0]!.close(1006), 5);
    assert.equal((await pending).version, 8);
    assert.equal(posts.length, 1);
    assert.equal(posts[0]!.body.moveId, "m9");
    assert.ok(!socket.isOpen);
    await client.tableMove("t1", SELECT, 8, { token: "seat-a", moveId: "m10" });
    assert.equal(posts.length, 2);
    assert.equal(sockets[0]!.sent.filter((m) => m.type === "subscribe").length, 1);
    // chat is never sent twice: over HTTP only when no socket is open
    await assert.rejects(socket.chat("t1", "x"), TransportError);
  });

  test("events arrive as the SSE stream's, by kind and version", async () => {
    const { client } = setUp(() => ({ data: { tableEvents: { id: 3, event: "snapshot", data: { version: 3 } } } }));
    const socket = await client.openTableSocket();
    const seen = [];
    for await (const event of socket.events("t1")) seen.push([event.kind, event.version]);
    assert.deepEqual(seen, [["snapshot", 3]]);
  });
});
