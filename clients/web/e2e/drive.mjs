// Plays whole games on the /play page in headless Chromium (playwright-core driving Debian's
// chromium), only by clicking what a person clicks:
//   1. three separate browser contexts (two desktops, one 360 px phone) open, join and play one
//      3-player table to its end, choosing pieces by size and building by clicking highlighted
//      blocks; a fourth context watches it as a spectator; one player reloads mid-game and
//      carries on in the same seat;
//   2. one person against two bots at a table opened with bot seats;
//   3. GraphiQL at /graphql renders with every request kept on the service (no CDN).
// Every request to another origin is refused and counted. Screenshots go to <artifacts dir>.
//   node drive.mjs <service url> <artifacts dir> <chromium path> [rounds]
// Prints one JSON line with what happened.
import net from "node:net";
import { chromium } from "playwright-core";

const [base, artifacts, executablePath = "/usr/bin/chromium", roundsArg = "2"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const started = Date.now();
const out = { errors: [], offsite: [], moves: {}, checks: {} };
const relays = [];

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

// A TCP relay in front of the service whose connections can be cut: a real lost connection for
// the page behind it (browser "offline" emulation leaves an open event stream alone).
async function relay(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => b.destroy());
    }
    sockets.add(client);
    sockets.add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    cut(ms) {
      down = true;
      for (const socket of sockets) socket.destroy();
      setTimeout(() => (down = false), ms);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

async function open(label, viewport, origin = base) {
  const context = await browser.newContext({ viewport });
  // Offline for anything but the service: a page that needs a CDN fails here.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
    out.offsite.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => out.errors.push(`${label}: ${error}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource|EventSource|net::ERR/.test(message.text())) {
      out.errors.push(`${label} console: ${message.text()}`);
    }
  });
  page.label = label;
  return page;
}

const shot = (page, name, fullPage = true) => page.screenshot({ path: `${artifacts}/web-${name}.png`, fullPage });
const ready = (page) => page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
const body = (page, key) => page.evaluate((k) => document.body.dataset[k], key);

// One turn of whoever's turn it is on `page`, by clicking: returns false if it was not its turn.
async function playTurn(page, rng, shotName = null) {
  if ((await body(page, "myTurn")) !== "true") return false;
  const version = await body(page, "version");
  const phase = await body(page, "phase");
  if (phase === "select") {
    for (let guard = 0; guard < 12; guard++) {
      if (await page.isEnabled("#confirm-select")) break;
      const sizes = page.locator(".piece-button.size:not([disabled])");
      const n = await sizes.count();
      if (!n) throw new Error(`${page.label}: no size to choose and no selection to confirm`);
      await sizes.nth(Math.floor(rng() * n)).click();
    }
    await page.click("#confirm-select");
  } else if (await page.locator("#action .card.forfeit").count()) {
    await page.locator("#action .card.forfeit").first().click();
    out.checks.forfeits = (out.checks.forfeits ?? 0) + 1;
  } else {
    const pieces = page.locator("#action .piece-button");
    const n = await pieces.count();
    let clicked = false;
    for (let k = 0; k < n && !clicked; k++) {
      await pieces.nth((k + Math.floor(rng() * n)) % n).click();
      const legal = page.locator("#board .block.legal");
      const m = await legal.count();
      if (!m) continue;
      // A block a card allows but this piece cannot take says why when hovered.
      const refused = page.locator("#board .block.allowed:not(.legal)");
      if (!out.checks.why && (await refused.count())) {
        await refused.first().hover();
        await page.waitForFunction(() => document.getElementById("why").textContent.length > 0);
        out.checks.why = await page.textContent("#why");
      }
      // Each highlighted block sits, on this player's turned board, where one of their cards
      // points: the rotation of RULES §2 as the player sees it.
      const cards = await page.$$eval("#hand .card", (cs) => cs.map((c) => c.dataset.card));
      const spots = await legal.evaluateAll((bs) => bs.map((b) => b.dataset.spot));
      for (const spot of spots) {
        if (!cards.includes(spot)) throw new Error(`${page.label}: block at ${spot} lit without a card there (${cards})`);
      }
      out.checks.highlighted = (out.checks.highlighted ?? 0) + m;
      await legal.nth(Math.floor(rng() * m)).click();
      await page.waitForSelector("#confirm-build");
      await page.waitForFunction(() => !/Asking the service/.test(document.querySelector(".confirm")?.textContent ?? ""));
      const text = await page.textContent(".confirm");
      if (/If the round ended now/.test(text)) out.checks.previews = (out.checks.previews ?? 0) + 1;
      if (shotName) {
        await shot(page, shotName);
        out.checks.midShots = [...(out.checks.midShots ?? []), shotName];
      }
      await page.click("#confirm-build");
      clicked = true;
    }
    if (!clicked) throw new Error(`${page.label}: no piece has a legal block`);
  }
  out.moves[page.label] = (out.moves[page.label] ?? 0) + 1;
  await page.waitForFunction((v) => document.body.dataset.version !== v, version, { timeout: 30_000 });
  return true;
}

function random(seed) {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
}

try {
  // -- 1. three people, one spectator ------------------------------------------------------
  const ada = await open("Ada", { width: 1280, height: 900 });
  const bea = await open("Bea", { width: 1024, height: 800 });
  const cyLine = await relay(base);
  relays.push(cyLine);
  const cy = await open("Cy", { width: 360, height: 740 }, cyLine.url);
  const spectator = await open("spectator", { width: 1100, height: 900 });

  await ada.goto(`${base}/play/?players=3&rounds=${rounds}`);
  await ready(ada);
  await ada.fill("#create input[name=name]", "Ada");
  await ada.fill("#create input[name=table]", "e2e table");
  await shot(ada, "lobby");
  await ada.click("#create-button");
  await ada.waitForSelector("body[data-status=waiting]");
  const link = await ada.inputValue("#share-link");

  await bea.goto(link);
  await ready(bea);
  await bea.fill(".join-form input[name=name]", "Bea");
  await bea.click("#join-button");
  await cy.goto(link.replace(base, cyLine.url));
  await ready(cy);
  await cy.fill("#chat-input", "/join Cy"); // the platform's command, typed in the chat
  await cy.press("#chat-input", "Enter");
  await spectator.goto(link);
  await ready(spectator);
  await ada.waitForFunction(() => document.querySelectorAll("#players .seat.human").length === 3);
  await ada.fill("#chat-input", "hello, ready?");
  await ada.press("#chat-input", "Enter");
  await shot(ada, "lobby-table-waiting");
  await ada.fill("#chat-input", "/start");
  await ada.press("#chat-input", "Enter");
  for (const page of [ada, bea, cy, spectator]) await page.waitForSelector("body[data-status=playing]");
  out.checks.chatSeen = (await spectator.textContent("#chat")).includes("hello, ready?");

  const players = [ada, bea, cy];
  const rngs = [random(1), random(2), random(3)];
  let moves = 0;
  let reloaded = false;
  let wentOffline = false;
  const midShots = { Ada: "mid-game", Cy: "mid-game-phone" };
  for (let idleSince = Date.now(); ; ) {
    if ((await body(ada, "status")) === "over") break;
    let played = false;
    for (let i = 0; i < 3; i++) {
      const due = moves >= 16 && (await body(players[i], "myTurn")) === "true" && (await body(players[i], "phase")) === "build";
      const name = due ? midShots[players[i].label] : null;
      if (name && players[i] === ada) await shot(spectator, "mid-game-spectator");
      if (await playTurn(players[i], rngs[i], name)) {
        if (name) delete midShots[players[i].label];
        played = true;
        moves += 1;
      }
    }
    if (!wentOffline && moves >= 6 && (await body(cy, "myTurn")) !== "true") {
      // Cy's connection drops for a moment: the page reconnects (a fresh ticket) and catches up.
      cyLine.cut(1500);
      await cy.waitForSelector("#connection.reconnecting", { timeout: 20_000 });
      await cy.waitForSelector("#connection.live", { timeout: 30_000 });
      wentOffline = true;
    }
    if (!reloaded && moves >= 10 && (await body(bea, "myTurn")) !== "true") {
      // Bea reloads mid-game: the seat token in session storage brings her back to her seat.
      await bea.reload();
      await ready(bea);
      await bea.waitForSelector("#players .you");
      reloaded = true;
      out.checks.reloadedInSeat = (await bea.locator("#hand .card").count()) === 4;
    }
    if (played) idleSince = Date.now();
    else {
      if (Date.now() - idleSince > 30_000) throw new Error("nobody could move for 30 s");
      await ada.waitForTimeout(50);
    }
    if (moves > 400) throw new Error("the game did not end after 400 moves");
  }
  for (const page of [ada, bea, cy, spectator]) await page.waitForSelector("#ending:not([hidden])");
  out.rankings = await Promise.all([ada, bea, cy, spectator].map((p) => p.textContent("#ending .ranking")));
  out.breakdownRows = await spectator.locator("#ending .breakdown tr").count();
  out.log = await spectator.$$eval("#log li", (items) => items.map((i) => i.textContent));
  out.adaLog = await ada.$$eval("#log li", (items) => items.map((i) => i.textContent));
  out.rematchButton = await ada.locator("#rematch").count();
  out.checks.spectatorHand = await spectator.locator("#hand .card").count();
  await shot(ada, "end");
  await shot(cy, "end-phone");
  // Rematch: Ada opens it, Bea follows; both sit at the same new table.
  await ada.click("#rematch");
  await ada.waitForSelector("body[data-status=waiting]");
  await bea.waitForSelector("#rematch:text('Go to the rematch')");
  await bea.click("#rematch");
  await bea.waitForSelector("body[data-status=waiting]");
  await ada.waitForFunction(() => document.querySelectorAll("#players .seat.human").length === 2);
  out.rematch = { ada: new URL(ada.url()).search, bea: new URL(bea.url()).search, from: new URL(link).search };
  out.reloaded = reloaded;
  out.wentOffline = wentOffline;
  out.firstGameSeconds = (Date.now() - started) / 1000;

  // -- 2. against bots ---------------------------------------------------------------------
  const solo = await open("solo", { width: 1280, height: 900 });
  // Options the service does not know are said, not dropped (nor sent as 'null').
  await solo.goto(`${base}/play/?bot=smart&monster=kong`);
  await ready(solo);
  out.unknownOptions = await solo.textContent("#notice");
  // With 2 s per turn: Solo lets the first turn run out, a bot plays it and the seat shows
  // "away"; Solo's next move clears it.
  await solo.goto(`${base}/play/?players=3&bot=greedy&rounds=1&turnSeconds=2&monster=baby`);
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
      // Solo's own move clears "away" (on a loaded machine a later 2 s turn may run out again,
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

  // -- 3. a forfeit (RULES D5): rare in play, so the table answer is one with only forfeits --
  const tableId = new URL(link).searchParams.get("table");
  const fake = await (await fetch(`${base}/v1/tables/${tableId}`)).json();
  Object.assign(fake, { status: "playing", version: 10_000, toMove: 0, deadline: null, ranking: undefined });
  Object.assign(fake.view, { player: 0, phase: "build", hand: [0, 4, 8, 2] });
  fake.moves = [[0, 1], [4, 1], [0, 2]].map(([card, floors]) => ({ type: "forfeit", card, floors, color: 0, player: 0 }));
  const forfeit = await open("forfeit", { width: 800, height: 900 });
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

  // -- 4. previews and explanations from the service, with a seat's sealed token ----------
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
  const why = await open("why", { width: 1100, height: 900 });
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
      return route.fulfill({ json: await post(stateless[what], { ...asked, state: { token: step.token, game: step.gameId } }) });
    });
    await why.goto(link);
    await ready(why);
    await why.click(`#action .piece-button[data-color="${pick.color}"][data-floors="${pick.floors}"]`);
    const refused = why.locator("#board .block.allowed:not(.legal)");
    out.checks.refusedBlocks = await refused.count();
    await refused.first().hover();
    await why.waitForFunction(() => document.getElementById("why").textContent.length > 0);
    out.checks.serviceWhy = await why.textContent("#why");
    await why.locator("#board .block.legal").first().click();
    await why.waitForSelector(".confirm .deltas");
    out.checks.servicePreview = await why.textContent(".confirm");
    await shot(why, "preview");
  }

  // -- 5. GraphiQL, offline ----------------------------------------------------------------
  await solo.goto(`${base}/graphql`);
  await solo.waitForSelector(".graphiql-container .graphiql-editors", { timeout: 30_000 });
  out.checks.graphiql = true;
  out.seconds = (Date.now() - started) / 1000;
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
  for (const line of relays) line.close();
}
