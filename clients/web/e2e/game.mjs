// Three people (two desktops and a 360 px phone in French) and a spectator play one table to
// its end by clicking, with what makes a game easy to follow checked along the way: the last
// move marked and announced, "your turn" in the title, a beep and a notification, the round
// recap, notices that clear, one name per block, axe on the lobby, a game and its end; then a
// reload at the end, the replay (also from a shared link) and the rematch.
import { artifactsDir, axe, body, open, out, playTurn, random, ready, relay, shot } from "./browser.mjs";
import { blockMarks } from "./checks.mjs";

// Ada's browser counts its beeps; Bea's tab is hidden and records its notifications.
const countBeeps = () => {
  window.beeps = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.beeps += 1;
    return start.apply(this, args);
  };
};
const hiddenWithNotifications = () => {
  Object.defineProperty(Document.prototype, "hidden", { get: () => true });
  window.notified = [];
  window.Notification = class {
    static permission = "default";
    static async requestPermission() {
      window.Notification.permission = "granted";
      return "granted";
    }
    constructor(title, options) {
      window.notified.push(`${title}: ${options?.body ?? ""}`);
    }
  };
};

async function setUp(base, rounds) {
  const ada = await open("Ada", { width: 1280, height: 800 }, base);
  await ada.context().addInitScript(countBeeps);
  const bea = await open("Bea", { width: 1024, height: 800 }, base);
  await bea.context().addInitScript(hiddenWithNotifications);
  const cyLine = await relay(base);
  const cy = await open("Cy", { width: 360, height: 740 }, cyLine.url, { locale: "fr-FR" });
  const spectator = await open("spectator", { width: 1100, height: 900 }, base);
  await ada.goto(`${base}/play/?players=3&rounds=${rounds}`);
  await ready(ada);
  out.axe = { lobby: await axe(ada) };
  out.checks.roundsPlaceholderFits = await ada.evaluate(() => {
    const input = document.querySelector("input[name=rounds]");
    const style = getComputedStyle(input);
    const context = document.createElement("canvas").getContext("2d");
    context.font = `${style.fontSize} ${style.fontFamily}`;
    return context.measureText(input.placeholder).width <= input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });
  await ada.fill("#create input[name=name]", "Ada");
  await ada.fill("#create input[name=table]", "e2e table");
  await shot(ada, "lobby");
  await ada.click("#create-button");
  await ada.waitForSelector("body[data-status=waiting]");
  await ada.check("#sound");
  const link = await ada.inputValue("#share-link");
  // The lobby lists the public table with what the service says of it.
  await spectator.goto(`${base}/play/`);
  await spectator.waitForSelector("#table-list li.listed:has-text('e2e table')");
  out.lobbyListing = await spectator.textContent("#table-list li.listed:has-text('e2e table')");
  return { ada, bea, cy, spectator, cyLine, link };
}

async function seatEveryone({ ada, bea, cy, spectator, cyLine, link }, base) {
  await bea.goto(link);
  await ready(bea);
  await bea.fill(".join-form input[name=name]", "Bea");
  await bea.click("#join-button");
  await bea.check("#notify");
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
  // The service's refusal in the page's language (a start once started), gone after a move.
  await cy.fill("#chat-input", "/start");
  await cy.press("#chat-input", "Enter");
  await cy.waitForFunction(() => !document.getElementById("notice").hidden);
  out.checks.frenchError = await cy.textContent("#notice");
  // A notice (an unknown command) stays until the table changes.
  await ada.fill("#chat-input", "/nope");
  await ada.press("#chat-input", "Enter");
  out.checks.noticeShown = await ada.isVisible("#notice");
}

// What the game looks like to follow, taken once mid-game.
async function followChecks({ ada, bea, cy, spectator }) {
  const version = await body(ada, "version");
  for (const page of [bea, cy, spectator]) {
    await page.waitForFunction((v) => Number(document.body.dataset.version) >= Number(v), version, { timeout: 20_000 });
  }
  out.checks.noticeCleared = await ada.isHidden("#notice");
  out.checks.frenchErrorCleared = await cy.isHidden("#notice");
  out.checks.lastMarked = await spectator.locator("#board .block.last").count();
  // The last build, named in every status line (Cy's in French), the same block for all.
  out.checks.lastMoveStatus = await Promise.all([ada, bea, cy, spectator].map((p) => p.textContent("#status .last-move")));
  out.checks.lastMarkedAt = await Promise.all([ada, bea, cy, spectator].map((p) => p.getAttribute("#board .block.last", "data-name")));
  out.checks.announced = await spectator.textContent("#announce");
  out.checks.edges = await spectator.$$eval("#board .edge", (es) => es.map((e) => e.textContent).join("|"));
  out.checks.beeps = await ada.evaluate(() => window.beeps);
  out.checks.notified = await bea.evaluate(() => window.notified);
  out.axe.play = await axe(ada);
}

async function playToTheEnd(pages, rounds) {
  const { ada, bea, cy, spectator, cyLine } = pages;
  const players = [ada, bea, cy];
  const rngs = [random(1), random(2), random(3)];
  let moves = 0;
  const getsBefore = { ...out.tableGets };
  const midShots = { Ada: "mid-game", Cy: "mid-game-phone" };
  for (let idleSince = Date.now(); ; ) {
    if ((await body(ada, "status")) === "over") break;
    let played = false;
    for (let i = 0; i < 3; i++) {
      const page = players[i];
      const mine = (await body(page, "myTurn")) === "true";
      if (mine && page === ada && !out.checks.title) out.checks.title = await ada.title();
      const due = moves >= 16 && mine && (await body(page, "phase")) === "build";
      const name = due ? midShots[page.label] : null;
      if (name && page === ada) await shot(spectator, "mid-game-spectator");
      if (await playTurn(page, rngs[i], name)) {
        if (name) delete midShots[page.label];
        played = true;
        moves += 1;
      }
    }
    if (moves >= 5 && out.checks.lastMarked === undefined) await followChecks(pages);
    if (!out.recap && (await ada.isVisible("#recap"))) {
      out.recap = await ada.textContent("#recap");
      out.recapRows = await ada.locator("#recap .recap-table tr").count();
      // Per neighborhood, each player's building points add up to the round's parts.
      out.recapHoods = await ada.evaluate(() => {
        const rows = [...document.querySelectorAll("#recap .recap-hoods tr")].slice(1);
        const cells = (row) => [...row.querySelectorAll("td")];
        const sums = rows.length ? cells(rows[0]).map((_, p) => rows.reduce((s, r) => s + Number(cells(r)[p].dataset.points), 0)) : [];
        const parts = [...document.querySelectorAll("#recap .recap-table tr")].slice(1)
          .map((r) => cells(r).slice(0, 3).reduce((s, c) => s + parseInt(c.textContent, 10), 0));
        return { rows: rows.length, sums, parts, text: document.querySelector("#recap .recap-hoods")?.textContent ?? "" };
      });
      if (await cy.isVisible("#recap")) {
        await cy.locator("#recap").screenshot({ path: `${artifactsDir()}/web-recap-phone.png` });
        // On Cy's phone, in French, every column of the recap is on the screen (no sideways scroll).
        out.recapFitsPhone = await cy.evaluate(() => [...document.querySelectorAll("#recap table")].map((table) => table.scrollWidth - table.clientWidth));
      }
      await ada.click("#close-recap");
    }
    if (!out.wentOffline && moves >= 6 && (await body(cy, "myTurn")) !== "true") {
      // Cy's connection drops for a moment (her websocket with it): the page reconnects (the
      // SSE stream with a fresh ticket, the socket a few seconds later) and catches up.
      const linkBefore = await body(cy, "link");
      cyLine.cut(1500);
      await cy.waitForSelector("#connection.reconnecting", { timeout: 20_000 });
      await cy.waitForSelector("#connection.live", { timeout: 30_000 });
      out.wentOffline = true;
      out.cyLink = { before: linkBefore, after: await body(cy, "link") };
    }
    if (!out.reloaded && moves >= 10 && (await body(bea, "myTurn")) !== "true") {
      // Bea reloads mid-game: the seat token in session storage brings her back to her seat.
      await bea.reload();
      await ready(bea);
      await bea.waitForSelector("#players .you");
      out.reloaded = true;
      out.checks.reloadedInSeat = (await bea.locator("#hand .card").count()) === 4;
    }
    if (played) idleSince = Date.now();
    else {
      if (Date.now() - idleSince > 30_000) throw new Error("nobody could move for 30 s");
      await ada.waitForTimeout(50);
    }
    if (moves > 400) throw new Error("the game did not end after 400 moves");
  }
  out.moveCount = moves;
  // The table's GETs while the game was played, per page (a reload, a reconnect, the end and
  // a quiet table's check of who is connected may ask; a turn does not).
  const labels = ["Ada", "Bea", "Cy", "spectator"];
  out.gameTableGets = Object.fromEntries(labels.map((l) => [l, (out.tableGets[l] ?? 0) - (getsBefore[l] ?? 0)]));
}

async function theEnd({ ada, bea, cy, spectator }) {
  for (const page of [ada, bea, cy, spectator]) await page.waitForSelector("#ending:not([hidden])");
  out.rankings = await Promise.all([ada, bea, cy, spectator].map((p) => p.textContent("#ending .ranking")));
  out.breakdownRows = await spectator.locator("#ending .breakdown tr").count();
  out.log = await spectator.$$eval("#log li", (items) => items.map((i) => i.textContent));
  out.adaLog = await ada.$$eval("#log li", (items) => items.map((i) => i.textContent));
  out.beaLog = await bea.$$eval("#log li", (items) => items.map((i) => i.textContent));
  out.rematchButton = await ada.locator("#rematch").count();
  out.checks.spectatorHand = await spectator.locator("#hand .card").count();
  out.ownSeatTags = await ada.$$eval("#players .seat:has(.you) .tag", (ts) => ts.map((t) => t.textContent));
  out.french = await cy.evaluate(() => ({ lang: document.documentElement.lang, hand: document.querySelector("#hand-area h2").textContent, status: document.getElementById("status").textContent }));
  out.phoneMarks = await blockMarks(cy);
  out.axe.end = await axe(ada);
  out.spectatorText = await spectator.evaluate(() => document.body.innerText);
  await shot(ada, "end");
  await shot(cy, "end-phone");
  await bea.reload();
  await ready(bea);
  out.overAfterReload = await bea.evaluate(() => document.body.innerText.split("The game is over.").length - 1);
}

async function replay({ spectator, link }, base) {
  await spectator.click("#open-replay");
  await spectator.waitForSelector("#replay-status");
  const step = () => spectator.evaluate(() => Number(document.body.dataset.replayStep));
  const built = () => spectator.locator("#board .block.built").count();
  const seen = { end: await step(), builtAtEnd: await built() };
  await spectator.click("#replay-first");
  await spectator.waitForFunction(() => document.body.dataset.replayStep === "0");
  seen.builtAtStart = await built();
  seen.firstIcon = await spectator.locator("#replay-first svg.icon").count();
  await spectator.click("#replay-forward");
  await spectator.waitForFunction(() => document.body.dataset.replayStep === "1");
  seen.afterForward = await step();
  const second = await spectator.$eval("#replay-round", (s) => s.options[1].value);
  await spectator.selectOption("#replay-round", second);
  await spectator.waitForFunction((v) => document.body.dataset.replayStep === v, second);
  seen.round2 = await spectator.textContent("#replay-status");
  await spectator.click("#replay-back");
  await spectator.waitForFunction((v) => document.body.dataset.replayStep === String(Number(v) - 1), second);
  seen.afterBack = await step();
  seen.hash = await spectator.evaluate(() => location.hash);
  await shot(spectator, "replay");
  // The shared link opens the replay in a fresh browser.
  const friend = await open("friend", { width: 1100, height: 900 }, base);
  await friend.goto(`${link}#replay`);
  await ready(friend);
  await friend.waitForSelector("#replay-status");
  seen.shared = await friend.textContent("#replay-status");
  await spectator.click("#close-replay");
  seen.closed = await spectator.isVisible("#ending");
  out.replay = seen;
}

async function rematch({ ada, bea, link }, base) {
  await ada.click("#rematch");
  await ada.waitForSelector("body[data-status=waiting]");
  await bea.waitForSelector("#rematch:text('Go to the rematch')");
  await bea.click("#rematch");
  await bea.waitForSelector("body[data-status=waiting]");
  await ada.waitForFunction(() => document.querySelectorAll("#players .seat.human").length === 3 - 1);
  out.rematch = { ada: new URL(ada.url()).search, bea: new URL(bea.url()).search, from: new URL(link).search };
  return new URL(ada.url()).searchParams.get("table");
}

// At the rematch, Cy's seat is kept for Cy (the table's keptFor): a stranger sees for whom, and
// no way to join. (Where the service does not say so yet, its answer is given the field.)
export async function keptSeat(tableId, base) {
  const stranger = await open("stranger", { width: 1100, height: 800 }, base);
  await stranger.route(`${base}/v1/tables/${tableId}`, async (route) => {
    const table = await (await route.fetch()).json();
    const open = table.seats.find((seat) => seat.kind === "open");
    if (open && !table.seats.some((seat) => seat.keptFor)) open.keptFor = "Cy";
    return route.fulfill({ json: table });
  });
  await stranger.route(`${base}/v1/tables/${tableId}/events**`, (route) => route.abort());
  await stranger.goto(`${base}/play/?table=${tableId}`);
  await ready(stranger);
  out.kept = {
    players: await stranger.textContent("#players"),
    joinForms: await stranger.locator(".join-form").count(),
  };
  await stranger.close(); // its stream, refused on purpose, would go on retrying
}

export async function threePeople(base, rounds) {
  const pages = await setUp(base, rounds);
  await seatEveryone(pages, base);
  await playToTheEnd(pages, rounds);
  await theEnd(pages);
  await replay(pages, base);
  const again = await rematch(pages, base);
  pages.cyLine.close();
  return { link: pages.link, rematchId: again };
}
