// Plays whole games on the /play page in headless Chromium (playwright-core driving Debian's
// chromium), only by clicking or typing what a person would:
//   1. three people (one on a 360 px phone, in French) and a spectator play one table to its
//      end, then replay it and rematch (game.mjs);
//   2. then, all at once: four seats opened by seat links, each measured on its own 1280 x 800
//      screen and on a phone (seats.mjs); one person against two bots on a clock; a forfeit and
//      the service's explanations on prepared answers; a table that is gone; the rematch's seat
//      kept for the player who did not come back yet; a full table; a name typed in the join
//      form while someone else takes a seat;
//   3. GraphiQL at /graphql renders with every request kept on the service (no CDN).
// Every request to another origin is refused and counted. Screenshots go to <artifacts dir>.
//   node drive.mjs <service url> <artifacts dir> <chromium path> [rounds]
// Prints one JSON line with what happened.
import { body, buildHereReach, launch, open, out, playTurn, random, ready, relay, shot } from "./browser.mjs";
import { blockMarks, keyboardBuild } from "./checks.mjs";
import { keptSeat, threePeople } from "./game.mjs";
import { fourSeats, fullTable, joinWhileOthersJoin } from "./seats.mjs";

const [base, artifacts, executablePath = "/usr/bin/chromium", roundsArg = "2"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const started = Date.now();
const browser = await launch(executablePath, artifacts);

async function againstBots() {
  const solo = await open("solo", { width: 1280, height: 900 }, base);
  // Options the service does not know are said, not dropped (nor sent as 'null').
  await solo.goto(`${base}/play/?bot=smart&monster=kong`);
  await ready(solo);
  out.unknownOptions = await solo.textContent("#notice");
  // With 5 s per turn: Solo lets the first turn run out, a bot plays it and the seat shows
  // "away"; Solo's next move clears it. (With 2 s, a heavily loaded machine's browser could
  // not move in time in any turn of the game.)
  await solo.goto(`${base}/play/?players=3&bot=greedy&rounds=1&turnSeconds=5&monster=baby`);
  await ready(solo);
  await solo.fill("#create input[name=name]", "Solo");
  await solo.click("#create-button");
  await solo.waitForSelector("body[data-status=waiting]");
  await solo.click("#start-button");
  await solo.waitForSelector("body[data-status=playing]");
  await solo.waitForSelector("body[data-my-turn=true]");
  out.checks.clock = await solo.textContent("#status .clock");
  await solo.waitForSelector("#players .seat:has(.you) .tag.away", { timeout: 30_000 });
  out.checks.awaySeen = true;
  await shot(solo, "away");
  const rng = random(9);
  for (let guard = 0; (await body(solo, "status")) !== "over"; guard++) {
    if (await playTurn(solo, rng)) {
      // Solo's own move clears "away" (on a loaded machine a later 5 s turn may run out again,
      // so this is checked after the move rather than at the end).
      // (A move the clock beat is refused as stale; then the next turn tries again.)
      if (!out.checks.awayCleared) {
        out.checks.awayCleared = await solo
          .waitForSelector("#players .seat:has(.you) .tag.away", { state: "detached", timeout: 3_000 })
          .then(() => true, () => false);
      }
    } else await solo.waitForTimeout(50);
    if (guard > 2000) throw new Error("the game against bots did not end");
  }
  await solo.waitForSelector("#ending:not([hidden])");
  out.botRanking = await solo.textContent("#ending .ranking");
  out.checks.monsters = await solo.locator("#board .monster-mark").count();
  out.checks.awayAtEnd = await solo.locator("#players .seat:has(.you) .tag.away").count();
}

// RULES D5: a forfeit is rare in play, so the table answer is one with only forfeits.
async function aForfeit(link) {
  const tableId = new URL(link).searchParams.get("table");
  const fake = await (await fetch(`${base}/v1/tables/${tableId}`)).json();
  Object.assign(fake, { status: "playing", version: 10_000, toMove: 0, deadline: null, ranking: undefined });
  Object.assign(fake.view, { player: 0, phase: "build", hand: [0, 4, 8, 2] });
  // One building taller than any other, of four owners' pieces: its crown and its stack, measured.
  fake.view.board[0][4] = [[1, 4], [2, 4], [0, 4], [3, 4], [3, 4], [3, 4], [3, 4], [3, 4]];
  fake.moves = [[0, 1], [4, 1], [0, 2]].map(([card, floors]) => ({ type: "forfeit", card, floors, color: 0, player: 0 }));
  const forfeit = await open("forfeit", { width: 800, height: 900 }, base);
  await forfeit.context().addInitScript((id) => sessionStorage.setItem(`manhattan.seat.${id}`, JSON.stringify({ seatToken: "t", name: "Ada" })), tableId);
  let posted = null;
  await forfeit.route(`${base}/v1/tables/${tableId}**`, (route) => {
    const request = route.request();
    const path = new URL(request.url()).pathname;
    if (path.endsWith(tableId) && request.method() === "GET") return route.fulfill({ json: fake });
    if (path.endsWith("/moves")) {
      posted = request.postDataJSON();
      return route.fulfill({ json: { version: 10_001, view: fake.view, events: [] } });
    }
    return route.abort();
  });
  await forfeit.goto(link);
  await ready(forfeit);
  out.checks.forfeitCards = await forfeit.locator("#action .card.forfeit").count();
  await forfeit.locator("#action .card.forfeit").nth(1).click();
  for (let i = 0; i < 500 && !posted; i++) await forfeit.waitForTimeout(20); // up to 10 s
  out.checks.forfeitPosted = posted && posted.move;
  await forfeit.setViewportSize({ width: 360, height: 740 });
  out.fakeMarks = await blockMarks(forfeit);
  // A piece drops in when built, unless the person asked for less motion.
  const dropping = () => forfeit.evaluate(() => {
    const piece = document.querySelector("#board .tower-stack .piece:last-of-type");
    piece.classList.add("drop");
    return getComputedStyle(piece).animationName;
  });
  out.motion = { normal: await dropping() };
  await forfeit.emulateMedia({ reducedMotion: "reduce" });
  out.motion.reduced = await dropping();
  await forfeit.locator("#board").screenshot({ path: `${artifacts}/web-crown-phone.png` });
}

// Previews and explanations from the service, with a seat's sealed token.
async function previewsAndWhy(link) {
  const tableId = new URL(link).searchParams.get("table");
  // The page asks the table's /preview and /validate with its seat token. A real player-0
  // token and view (POST /v1/games, /v1/advance as player 0) stand in for the table's answer,
  // so what the page shows is the real service's preview and explanation.
  const asZero = { "content-type": "application/json", "manhattan-player": "0" };
  const post = async (path, payload) => (await fetch(`${base}/v1${path}`, { method: "POST", headers: asZero, body: JSON.stringify(payload) })).json();
  let step = await post("/games", { players: 2, seed: "e2e-why" });
  let pick = null;
  for (let turn = 0; turn < 40 && !pick; turn++) {
    const ref = { token: step.token, game: step.gameId };
    const { moves } = await post("/legal-moves", { state: ref });
    if (step.view.phase === "build") {
      // A piece some card-allowed block refuses: there is something to explain.
      const legal = new Set(moves.filter((m) => m.type === "build").map((m) => `${m.color}:${m.floors}:${m.block.join(",")}`));
      for (const m of moves.filter((x) => x.type === "build")) {
        const refused = moves.some((o) => o.type === "build" && (o.color !== m.color || o.floors !== m.floors)
          && !legal.has(`${m.color}:${m.floors}:${o.block.join(",")}`));
        if (refused) pick = { moves, color: m.color, floors: m.floors };
        if (pick) break;
      }
    }
    if (!pick) step = await post("/advance", { state: ref, move: moves[0], bot: { level: "greedy", seed: turn } });
  }
  if (!pick) throw new Error("no position with a refused block in 40 turns");
  const why = await open("why", { width: 1280, height: 800 }, base);
  {
    const shown = await (await fetch(`${base}/v1/tables/${tableId}`)).json();
    Object.assign(shown, { status: "playing", version: 20_000, toMove: 0, deadline: null, ranking: undefined });
    shown.seats = shown.seats.slice(0, 2);
    Object.assign(shown, { view: step.view, moves: pick.moves });
    await why.context().addInitScript((id) => sessionStorage.setItem(`manhattan.seat.${id}`, JSON.stringify({ seatToken: "t", name: "Ada" })), tableId);
    // The page asks the table's /validate and /preview with its seat token; here they are
    // answered by the stateless endpoints on the real player-0 token, which compute the same
    // thing from the same view (tests/tables/test_seat_questions.py checks the table routes).
    const stateless = { validate: "/validate", preview: "/preview" };
    await why.route(`${base}/v1/tables/${tableId}**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path.endsWith(tableId)) return route.fulfill({ json: shown });
      const what = path.split("/").pop();
      if (!(what in stateless)) return route.abort();
      const asked = JSON.parse(route.request().postData() ?? "{}");
      const answer = await post(stateless[what], { ...asked, state: { token: step.token, game: step.gameId } });
      // A preview with three lines of explanation: "Build here" must stay on the screen.
      if (what === "preview") {
        const long = { neighborhood: 1, color: 0, change: "lost", winner: 1, counts: [2, 3, 0, 0] };
        answer.preview.majorities = [...(answer.preview.majorities ?? []), long, long, long].slice(0, 3);
        answer.preview.tallest = [{ color: 0, change: "cancelled", height: 9, owner: null }];
      }
      return route.fulfill({ json: answer });
    });
    await why.goto(link);
    await ready(why);
    const piece = `#action .piece-button[data-color="${pick.color}"][data-floors="${pick.floors}"]`;
    out.keyboard = await keyboardBuild(why, piece);
    await why.click(piece);
    const refused = why.locator("#board .block.allowed:not(.legal)");
    out.checks.refusedBlocks = await refused.count();
    await refused.first().hover();
    await why.waitForFunction(() => document.getElementById("why").textContent.length > 0);
    out.checks.serviceWhy = await why.textContent("#why");
    await why.locator("#board .block.legal").first().click();
    await why.waitForSelector(".confirm .deltas");
    out.checks.servicePreview = await why.textContent(".confirm");
    out.longPreview = await buildHereReach(why);
    await shot(why, "preview", false);
  }
}

// A table that is gone: an unknown id at once; a known one whose stream cannot resume (the
// service lost it: every answer about it is TABLE_NOT_FOUND) after a lost connection.
async function goneTables(link) {
  const unknown = await open("unknown", { width: 1100, height: 800 }, base);
  await unknown.goto(`${base}/play/?table=no-such-table`);
  await unknown.waitForSelector("body[data-status=gone]");
  out.gone = { unknown: await unknown.textContent("#gone"), lobbyLink: await unknown.getAttribute("#gone a", "href") };
  const line = await relay(base);
  const lost = await open("lost", { width: 1100, height: 800 }, line.url);
  await lost.goto(link.replace(base, line.url));
  await ready(lost);
  await lost.waitForSelector("#connection.live");
  const tableId = new URL(link).searchParams.get("table");
  await lost.route(`**/v1/tables/${tableId}**`, (route) => route.fulfill({ status: 404, json: { code: "TABLE_NOT_FOUND", message: "no such table" } }));
  line.cut(500);
  await lost.waitForSelector("body[data-status=gone]", { timeout: 20_000 });
  out.gone.lost = await lost.textContent("#gone");
  out.gone.connection = await lost.textContent("#connection");
  await shot(lost, "gone");
  line.close();
}

try {
  const { link, rematchId } = await threePeople(base, rounds);
  out.firstGameSeconds = (Date.now() - started) / 1000;
  const full = async () => {
    out.fullTable = { en: await fullTable(base), fr: await fullTable(base, "fr-FR") };
    out.joinWhileOthersJoin = await joinWhileOthersJoin(base);
  };
  await Promise.all([againstBots(), fourSeats(base), aForfeit(link), previewsAndWhy(link), goneTables(link), keptSeat(rematchId, base), full()]);
  // GraphiQL, offline.
  const graphiql = await open("graphiql", { width: 1100, height: 800 }, base);
  await graphiql.goto(`${base}/graphql`);
  await graphiql.waitForSelector(".graphiql-container .graphiql-editors", { timeout: 30_000 });
  out.checks.graphiql = true;
  out.seconds = (Date.now() - started) / 1000;
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
}
