// A whole game against a running service: MANHATTAN_URL names it (tests/clients starts one).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KNOWN_ERROR_CODES, ManhattanClient, NotYourTurnError, type StateLike } from "../src/index.js";

const url = process.env.MANHATTAN_URL;

describe("against the service at MANHATTAN_URL", { skip: url ? false : "MANHATTAN_URL is not set" }, () => {
  const client = new ManhattanClient(url ?? "");

  test("plays a whole 2-player game, each seat from its own view and token", async () => {
    const game = await client.newGame({ players: 2, seed: "ts-live", rounds: 2 });
    assert.equal(typeof game.token, "string");
    let state: StateLike = game;
    let applied = 0;
    for (;;) {
      const { moves } = await client.legalMoves(state);
      if (moves.length === 0) break;
      const suggestion = await client.suggest(state, { bot: "random", seed: applied });
      const step = await client.apply(state, suggestion.move);
      assert.ok(step.events.length > 0);
      state = step;
      applied += 1;
    }
    const score = await client.score(state);
    assert.equal(score.phase, "over");
    assert.deepEqual(score.ranking.map((p) => p.player).sort(), [0, 1]);
    assert.ok(applied > 10);
  });

  test("a player's token sees a view and cannot move for another player", async () => {
    const game = await client.newGame({ players: 4, seed: "ts-view" });
    const seat = await client.view(game, 0);
    assert.equal(seat.state, undefined);
    assert.equal(seat.view?.player, 0);
    const step = await client.apply(seat, "s0:6,0,0,0");
    await assert.rejects(client.apply(step, "s1:6,0,0,0"), NotYourTurnError);
  });

  test("this client has a class for every code the service may answer", async () => {
    const rules = (await client.rules()) as { errorCodes: Record<string, number> };
    assert.deepEqual([...KNOWN_ERROR_CODES].sort(), Object.keys(rules.errorCodes).sort());
  });
});
