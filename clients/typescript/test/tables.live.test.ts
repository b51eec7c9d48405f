// Two people at one table against a running service (MANHATTAN_URL): each reads its own live
// stream and moves when the stream says it is its turn.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ManhattanClient,
  NotYourTurnError,
  StaleVersionError,
  TableFullError,
  type TableEvent,
} from "../src/index.js";

const url = process.env.MANHATTAN_URL;

async function sitAndPlay(client: ManhattanClient, tableId: string, token: string, seen: TableEvent[]): Promise<void> {
  let me: number | null | undefined;
  for await (const event of client.tableEvents(tableId, { token })) {
    seen.push(event);
    let toMove: number | null | undefined;
    if (event.kind === "snapshot") {
      me = event.data.you;
      toMove = event.data.status === "playing" ? event.data.toMove : undefined;
    } else if (event.kind === "started") {
      toMove = event.data["toMove"] as number;
    } else if (event.kind === "move") {
      toMove = event.data.toMove;
    }
    if (toMove !== undefined && toMove === me) {
      const table = await client.getTable(tableId, token);
      if (table.moves.length > 0) await client.tableMove(tableId, table.moves[0]!, table.version, { token });
    }
  }
}

describe("tables against the service at MANHATTAN_URL", { skip: url ? false : "MANHATTAN_URL is not set" }, () => {
  const client = new ManhattanClient(url ?? "");

  test("two people play a whole game live, and its record replays", async () => {
    const created = await client.createTable({ setup: { rounds: 1 }, seats: ["open", "open"] });
    const ann = await client.joinTable(created.tableId, "ann");
    const bo = await client.joinTable(created.tableId, "bo");
    await assert.rejects(client.joinTable(created.tableId, "cy"), TableFullError);
    const annSeen: TableEvent[] = [];
    const boSeen: TableEvent[] = [];
    const players = [
      sitAndPlay(client, created.tableId, ann.seatToken, annSeen),
      sitAndPlay(client, created.tableId, bo.seatToken, boSeen),
    ];
    while (annSeen.length === 0 || boSeen.length === 0) await new Promise((r) => setTimeout(r, 20));
    await client.startTable(created.tableId, created.hostToken);
    await Promise.all(players);

    const record = await client.tableRecord(created.tableId);
    for (const seen of [annSeen, boSeen]) {
      assert.equal(seen[0]!.kind, "snapshot");
      const last = seen[seen.length - 1]!;
      assert.ok(last.kind === "over" && last.data.ranking.length === 2);
      assert.equal(seen.filter((e) => e.kind === "move").length, record.moves.length);
      const versions = seen.map((e) => e.version!);
      assert.deepEqual(versions, versions.map((_, i) => versions[0]! + i)); // no gap
    }
    const history = await client.tableHistory(created.tableId, bo.seatToken);
    const moved = history.events.filter((e) => e.kind === "move");
    assert.deepEqual(moved.map((e) => e.kind === "move" && e.data.move), record.moves);
    assert.equal(history.events[history.events.length - 1]!.kind, "over");
    assert.ok(history.version >= record.moves.length && history.events.some((e) => e.kind === "started"));
    const replay = await client.replay({ setup: record.setup, moves: record.moves });
    assert.equal(replay.movesApplied, record.moves.length);

    const again = await client.rematch(created.tableId, bo.seatToken);
    assert.notEqual(again.tableId, created.tableId);
    assert.equal(again.table.status, "waiting");
    assert.equal(typeof again.seatToken, "string");
  });

  test("public waiting tables are listed, private ones are not", async () => {
    const open = await client.createTable({ seats: ["open", "open"], public: true, name: "lobby" });
    const hidden = await client.createTable({ seats: ["open", "open"], public: false });
    const ids = (await client.listTables()).map((t) => t.tableId);
    assert.ok(ids.includes(open.tableId));
    assert.ok(!ids.includes(hidden.tableId));
  });

  test("a stale version carries the table; another seat's move is not its turn", async () => {
    const created = await client.createTable({ setup: { rounds: 1 }, seats: ["open", "open"] });
    const ann = await client.joinTable(created.tableId, "ann");
    const bo = await client.joinTable(created.tableId, "bo");
    await client.startTable(created.tableId, bo.seatToken);
    const table = await client.getTable(created.tableId, ann.seatToken);
    await assert.rejects(
      client.tableMove(created.tableId, table.moves[0]!, table.version, { token: bo.seatToken }),
      NotYourTurnError,
    );
    const first = await client.tableMove(created.tableId, table.moves[0]!, table.version, { token: ann.seatToken, moveId: "m1" });
    const again = await client.tableMove(created.tableId, table.moves[0]!, table.version, { token: ann.seatToken, moveId: "m1" });
    assert.deepEqual(again, first);
    const error = await client
      .tableMove(created.tableId, table.moves[0]!, table.version, { token: ann.seatToken })
      .catch((e: unknown) => e);
    assert.ok(error instanceof StaleVersionError);
    assert.equal(error.table?.version, first.version);
    const chat = await client.chat(created.tableId, "gg", bo.seatToken);
    assert.equal(chat.message.text, "gg");
  });

  test("moves over the seat's socket, beside its events; HTTP once the socket is closed", async () => {
    const posts: string[] = [];
    const counting = new ManhattanClient(url ?? "", {
      fetch: (input, init) => {
        if (init.method === "POST") posts.push(input);
        return globalThis.fetch(input, init);
      },
    });
    const created = await counting.createTable({ setup: { rounds: 1 }, seats: ["open", "open"] });
    const ann = await counting.joinTable(created.tableId, "ann");
    const bo = await counting.joinTable(created.tableId, "bo");
    await counting.startTable(created.tableId, created.hostToken);
    const sockets = [await counting.openTableSocket(ann.seatToken), await counting.openTableSocket(bo.seatToken)];
    const seats = [ann.seatToken, bo.seatToken];
    const movesBefore = posts.filter((p) => p.endsWith("/moves")).length;
    let played = 0;
    const play = async (k: number): Promise<void> => {
      for await (const event of sockets[k]!.events(created.tableId)) {
        // the mover's own event carries its legal moves and the version: no GET per turn
        const data = event.data as { toMove?: number | null; moves?: unknown[]; you?: number; status?: string };
        if (event.kind === "over" || (event.kind === "snapshot" && data.status === "over")) return;
        const mine = data.toMove === k && Array.isArray(data.moves) && data.moves.length > 0;
        if (mine && event.version !== undefined) {
          const moved = await counting.tableMove(created.tableId, data.moves![0] as never, event.version, { token: seats[k]! });
          assert.equal(moved.version, event.version + 1);
          played += 1;
          if (played === 1) {
            // the same version again (a new move id) loses the compare-and-set, typed as over HTTP
            const again = { token: seats[k]! };
            const stale = await counting.tableMove(created.tableId, data.moves![0] as never, event.version, again).catch((e: unknown) => e);
            assert.ok(stale instanceof StaleVersionError && (stale.table?.version ?? 0) > event.version);
          }
        }
      }
    };
    await Promise.all([play(0), play(1)]);
    assert.ok(played > 4);
    assert.equal(posts.filter((p) => p.endsWith("/moves")).length, movesBefore, "no move went over HTTP");
    for (const socket of sockets) socket.close();
    await counting.chat(created.tableId, "gg", bo.seatToken); // the socket is closed: HTTP
    assert.ok(posts[posts.length - 1]!.endsWith("/chat"));
  });

  test("a whole game on the table's own sockets: no HTTP request a turn", async () => {
    const requests: string[] = [];
    const counting = new ManhattanClient(url ?? "", {
      fetch: (input, init) => {
        requests.push(`${init.method} ${input}`);
        return globalThis.fetch(input, init);
      },
    });
    const created = await counting.createTable({ setup: { rounds: 1 }, seats: ["open", "open"] });
    const seats = [await counting.joinTable(created.tableId, "ann"), await counting.joinTable(created.tableId, "bo")];
    const sockets = await Promise.all(seats.map((seat) => counting.openPlainTableSocket(created.tableId, seat.seatToken)));
    const chatted = await sockets[1]!.chat("hello");
    await counting.startTable(created.tableId, created.hostToken);
    const before = requests.length;
    let played = 0;
    const play = async (k: number): Promise<void> => {
      for await (const event of sockets[k]!.events()) {
        // the mover's own event (the start, a move) carries its legal moves and the version
        const data = event.data as { toMove?: number | null; moves?: unknown[] };
        if (data.toMove !== k || !Array.isArray(data.moves) || data.moves.length === 0 || event.version === undefined) continue;
        const version = await sockets[k]!.move(data.moves[0] as never, event.version);
        assert.equal(version, event.version + 1);
        played += 1;
        if (played === 1) {
          // the same version again (a new move id) loses the compare-and-set, typed as over HTTP
          const stale = await sockets[k]!.move(data.moves[0] as never, event.version).catch((e: unknown) => e);
          assert.ok(stale instanceof StaleVersionError && (stale.table?.version ?? 0) > event.version);
        }
      }
    };
    await Promise.all([play(0), play(1)]);
    assert.ok(played > 4);
    assert.deepEqual(requests.slice(before), [], "no HTTP request while the game was played");
    const record = await counting.tableRecord(created.tableId);
    assert.equal(record.moves.length, played);
    assert.ok(chatted > 0 && sockets.every((socket) => socket.lastEventId !== undefined));
    for (const socket of sockets) socket.close();
  });
});
