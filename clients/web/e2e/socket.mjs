// Two people play a table on the /play page over the service's GraphQL websocket, and go on
// over HTTP when the service closes it (issue 26, item 2):
//   1. with the socket up, every move and chat line goes over it: no POST of a move or a chat;
//   2. the service restarts (its store on disk keeps the table), which closes the socket, and
//      the network in front of it (a relay) now drops websocket handshakes: the pages follow the
//      table on its SSE stream and send their moves and chat as HTTP POSTs, and the game goes on;
//   3. the network lets websockets through again: the pages go back to the socket by themselves,
//      and play a few moves on it with no POST;
//   4. the network loses what the service sends on the sockets without closing them, while the
//      page's own frames still arrive, and lets no new websocket through: the next move goes out
//      on the socket and is applied, its answer never comes; the page gives the silent socket up
//      (no pong within 15 s) and sends the move again over HTTP with the same moveId, which the
//      service answers as the first time (200, not STALE_VERSION); the game ends over HTTP.
// The service's restart is asked of whoever runs this (tests/clients/test_web_socket.py): a line
// "RESTART" on stdout, answered by a line on stdin once the service is back.
//   node socket.mjs <service url> <artifacts dir> <chromium path>
// Prints one JSON line with what happened (and, if it failed, what was sent until then).
import { createInterface } from "node:readline";
import { body, launch, open, out, playTurn, random, ready, relay, shot } from "./browser.mjs";

const [base, artifacts, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const browser = await launch(executablePath, artifacts);
const input = createInterface({ input: process.stdin });
const lines = input[Symbol.asyncIterator]();

// What a page sends, per phase: POSTs of moves and chat lines, and GraphQL operations on its
// websockets by field name.
const phases = ["socket", "http", "back", "silent"];
let phase = "socket";
const sent = Object.fromEntries(phases.map((p) => [p, { postMoves: 0, postMovesOk: 0, postChat: 0, tableMove: 0, sendChat: 0, moves: 0, socketMovesBy: {} }]));
function count(page) {
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() !== "POST") return;
    if (/\/v1\/tables\/[^/]+\/moves$/.test(path)) sent[phase].postMoves += 1;
    if (/\/v1\/tables\/[^/]+\/chat$/.test(path)) sent[phase].postChat += 1;
  });
  page.on("response", (response) => {
    const request = response.request();
    const path = new URL(request.url()).pathname;
    if (request.method() === "POST" && /\/moves$/.test(path) && response.status() === 200) sent[phase].postMovesOk += 1;
  });
  page.on("websocket", (ws) => {
    ws.on("framesent", ({ payload }) => {
      const field = /\b(tableMove|sendChat)\(/.exec(String(payload))?.[1];
      if (field) sent[phase][field] += 1;
      if (field === "tableMove") sent[phase].socketMovesBy[page.label] = (sent[phase].socketMovesBy[page.label] ?? 0) + 1;
    });
  });
}

async function say(page, text) {
  await page.fill("#chat-input", text);
  await page.press("#chat-input", "Enter");
}

// Plays turns of both pages until `n` moves were made (or the game ended).
async function play(pages, rngs, n) {
  let idle = Date.now();
  for (let made = 0; made < n && (await body(pages[0], "status")) !== "over"; ) {
    let moved = false;
    for (const [i, page] of pages.entries()) {
      if (made < n && (await playTurn(page, rngs[i]))) {
        made += 1;
        sent[phase].moves += 1;
        moved = true;
      }
    }
    if (moved) idle = Date.now();
    else if (Date.now() - idle > 30_000) throw new Error(`nobody could move for 30 s (${phase})`);
    else await pages[0].waitForTimeout(50);
  }
}

const linked = (page, how, timeout = 30_000) => page.waitForSelector(`body[data-link=${how}]`, { timeout });

const line = await relay(base);
try {
  const ann = await open("Ann", { width: 1280, height: 800 }, line.url);
  const ben = await open("Ben", { width: 1280, height: 800 }, line.url);
  for (const page of [ann, ben]) count(page);
  const csp = await (await fetch(`${line.url}/play/`)).headers.get("content-security-policy");
  out.connectSrc = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("connect-src"));
  await ann.goto(`${line.url}/play/?players=2&rounds=1`);
  await ready(ann);
  await ann.fill("#create input[name=name]", "Ann");
  await ann.click("#create-button");
  await ann.waitForSelector("body[data-status=waiting]");
  await ben.goto(await ann.inputValue("#share-link"));
  await ready(ben);
  await ben.fill(".join-form input[name=name]", "Ben");
  await ben.click("#join-button");
  await ann.waitForFunction(() => document.querySelectorAll("#players .seat.human").length === 2);
  // (A page that never says it is on the socket plays anyway: what it sends is counted.)
  out.linkedAtStart = await Promise.all([linked(ann, "socket"), linked(ben, "socket")]).then(() => true, () => false);
  await say(ann, "/start");
  for (const page of [ann, ben]) await page.waitForSelector("body[data-status=playing]");
  const pages = [ann, ben];
  const rngs = [random(5), random(6)];

  // 1. Over the socket.
  await say(ben, "hello over the socket");
  await ann.waitForSelector("#chat li:has-text('hello over the socket')");
  await play(pages, rngs, 4);

  // 2. The service restarts; no websocket gets through meanwhile.
  phase = "http";
  line.refuseSockets = true;
  console.log("RESTART");
  await lines.next();
  await Promise.all([linked(ann, "http"), linked(ben, "http")]);
  out.connectionAfterRestart = await ann.textContent("#connection");
  await say(ann, "hello over http");
  await ben.waitForSelector("#chat li:has-text('hello over http')");
  await play(pages, rngs, 4);
  await shot(ann, "socket-fallback");

  // 3. Websockets get through again: the pages go back to the socket on their own.
  phase = "back";
  line.refuseSockets = false;
  await Promise.all([linked(ann, "socket", 90_000), linked(ben, "socket", 90_000)]);
  await play(pages, rngs, 4);

  // 4. The way back goes silent on the open sockets; no new websocket gets through.
  phase = "silent";
  line.refuseSockets = true;
  line.silenceSockets();
  await play(pages, rngs, 1000);
  out.links = await Promise.all(pages.map((p) => body(p, "link")));
  out.notices = await Promise.all(pages.map((p) => p.textContent("#notice")));
  await ann.waitForSelector("#ending:not([hidden])");
  out.rankings = await Promise.all(pages.map((p) => p.textContent("#ending .ranking")));
} catch (error) {
  // What was sent up to the failure is printed all the same: it says more than a timeout.
  out.failure = `${phase}: ${error.stack ?? error}`;
  process.exitCode = 1;
} finally {
  out.sent = sent;
  console.log(JSON.stringify(out));
  input.close();
  line.close();
  await browser.close();
}
