// The table's own socket without a service: a fake WebSocket that speaks its messages. Answers
// go to the oldest waiting call, events keep their order meanwhile, refusals are typed errors.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BadSeatError,
  ManhattanClient,
  PlainTableSocket,
  StaleVersionError,
  TableNotFoundError,
  TransportError,
  UnexpectedResponseError,
  type FetchLike,
} from "../src/index.js";
import { FakeWebSocket } from "./fakesocket.js";


/** A socket the test speaks for: `say` a message from the service, `sent` what the client sent. */
class FakePlainSocket extends FakeWebSocket {
  onSend: (message: any) => void = () => undefined;

  constructor(readonly url: string, readonly protocol: string | undefined) {
    super();
  }

  say(message: unknown): void {
    this.reply(message);
  }

  protected received(message: any): void {
    this.onSend(message);
  }

  protected override closed(code: number, reason: string): void {
    setTimeout(() => super.closed(code, reason), 0);
  }
}

const SELECT = { type: "select" as const, color: 0, pieces: [1, 1, 1, 1] as [number, number, number, number] };
const SNAPSHOT = { event: "snapshot", id: 4, data: { version: 4, status: "playing" } };

function setUp(onOpen: (socket: FakePlainSocket) => void = (s) => s.say(SNAPSHOT)) {
  const sockets: FakePlainSocket[] = [];
  const tickets: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    tickets.push(`${url} ${(init.headers as Record<string, string>)["authorization"]}`);
    return new Response(JSON.stringify({ ticket: "tk1", expiresIn: 30 }), { status: 200 });
  };
  const client = new ManhattanClient("http://svc", {
    fetch,
    sleep: async () => undefined,
    webSocket: (url, protocol) => {
      const socket = new FakePlainSocket(url, protocol);
      sockets.push(socket);
      onOpen(socket);
      return socket;
    },
  });
  return { client, sockets, tickets };
}

async function collect(socket: PlainTableSocket, count: number): Promise<[string, number | undefined][]> {
  const seen: [string, number | undefined][] = [];
  for await (const event of socket.events({ untilOver: false })) {
    seen.push([event.kind, event.version]);
    if (seen.length === count) break;
  }
  return seen;
}

describe("the table's own socket", () => {
  test("a seat's socket is named by a ticket, without a subprotocol, and opens on its first event", async () => {
    const { client, sockets, tickets } = setUp();
    const socket = await client.openPlainTableSocket("t 1", "seat-a");
    assert.deepEqual(tickets, ["http://svc/v1/tables/t%201/ticket Bearer seat-a"]);
    assert.equal(sockets[0]!.url, "ws://svc/v1/tables/t%201/socket?ticket=tk1");
    assert.equal(sockets[0]!.protocol, undefined);
    assert.deepEqual(await collect(socket, 1), [["snapshot", 4]]);
    assert.equal(socket.lastEventId, 4);
    socket.close();
  });

  test("answers go to the oldest waiting call, and the events between keep their order", async () => {
    const { client, sockets } = setUp();
    const socket = await client.openPlainTableSocket("t1", "seat-a");
    const fake = sockets[0]!;
    fake.onSend = (message) => {
      if (message.type === "move") {
        fake.say({ event: "move", id: 5, data: { player: 0, version: 5 } });
        fake.say({ event: "ack", data: { type: "move", version: 5, moveId: message.moveId } });
      } else {
        fake.say({ event: "chat", id: 6, data: { text: message.text } });
        fake.say({ event: "ack", data: { type: "chat", version: 6 } });
      }
    };
    const [moved, chatted] = await Promise.all([socket.move(SELECT, 4, "m1"), socket.chat("gg")]);
    assert.deepEqual([moved, chatted], [5, 6]);
    assert.deepEqual(fake.sent, [
      { type: "move", version: 4, move: SELECT, moveId: "m1" },
      { type: "chat", text: "gg" },
    ]);
    assert.deepEqual(await collect(socket, 3), [
      ["snapshot", 4],
      ["move", 5],
      ["chat", 6],
    ]);
    // a move without an id gets a fresh one
    await socket.move(SELECT, 6);
    assert.match(String(fake.sent[2]?.moveId), /^[0-9a-f]{32}$/);
    socket.close();
  });

  test("a refused move is the typed error of its code, and the socket stays open", async () => {
    const { client, sockets } = setUp();
    const socket = await client.openPlainTableSocket("t1", "seat-a");
    const fake = sockets[0]!;
    fake.onSend = (message) =>
      fake.say({
        event: "error",
        data: { code: "STALE_VERSION", message: "stale", table: { version: 9 }, type: "move", moveId: message.moveId },
      });
    const stale = await socket.move(SELECT, 1, "m2").catch((e: unknown) => e);
    assert.ok(stale instanceof StaleVersionError);
    assert.equal(stale.table?.version, 9);
    assert.equal(stale.status, 0);
    assert.ok(socket.isOpen);
    socket.close();
  });

  test("a message the socket did not take fails its call alone", async () => {
    const { client, sockets } = setUp();
    const socket = await client.openPlainTableSocket("t1", "seat-a");
    const fake = sockets[0]!;
    fake.onSend = () => {
      throw new Error("gone");
    };
    await assert.rejects(socket.move(SELECT, 4, "m3"), TransportError);
    fake.onSend = () => fake.say({ event: "ack", data: { type: "chat", version: 5 } });
    assert.equal(await socket.chat("still here"), 5);
    socket.close();
  });

  test("a refused socket throws its code's error when opened (the close code carries the status)", async () => {
    const { client } = setUp((s) => {
      s.say({ event: "error", data: { code: "TABLE_NOT_FOUND", message: "no such table" } });
      setTimeout(() => s.close(4404, "TABLE_NOT_FOUND"), 5);
    });
    const refused = await client.openPlainTableSocket("gone").catch((e: unknown) => e);
    assert.ok(refused instanceof TableNotFoundError);
    assert.equal(refused.status, 404);
  });

  test("resuming opens at once; a refusal then ends the events and the calls", async () => {
    const { client, sockets } = setUp(() => undefined);
    const socket = await client.openPlainTableSocket("t1", "seat-a", { lastEventId: 7 });
    assert.equal(sockets[0]!.url, "ws://svc/v1/tables/t1/socket?ticket=tk1&lastEventId=7");
    const pending = socket.chat("hi");
    sockets[0]!.say({ event: "error", data: { code: "BAD_SEAT", message: "revoked" } });
    setTimeout(() => sockets[0]!.close(4403, "BAD_SEAT"), 5);
    await assert.rejects(pending, BadSeatError);
    await assert.rejects(collect(socket, 1), BadSeatError);
    await assert.rejects(socket.move(SELECT, 7), BadSeatError);
  });

  test("a socket that breaks ends the events with TransportError; one closed here ends them quietly", async () => {
    const broken = setUp();
    const socket = await broken.client.openPlainTableSocket("t1");
    setTimeout(() => broken.sockets[0]!.close(1006), 5);
    await assert.rejects(collect(socket, 2), TransportError);
    const quiet = setUp();
    const mine = await quiet.client.openPlainTableSocket("t1");
    const events = collect(mine, 2);
    setTimeout(() => mine.close(), 5);
    assert.deepEqual(await events, [["snapshot", 4]]);
    await assert.rejects(mine.chat("late"), TransportError);
  });

  test("the events end after the game's over, and a message not as documented ends the socket", async () => {
    const { client, sockets } = setUp((s) => {
      s.say(SNAPSHOT);
      s.say({ event: "over", id: 5, data: { ranking: [] } });
    });
    const socket = await client.openPlainTableSocket("t1");
    const kinds = [];
    for await (const event of socket.events()) kinds.push(event.kind);
    assert.deepEqual(kinds, ["snapshot", "over"]);
    sockets[0]!.say("not json");
    await assert.rejects(collect(socket, 1), UnexpectedResponseError);
    assert.equal(sockets[0]!.readyState, 3);
  });
});
