// Pages opened mid-game, and presence to the end on the socket:
//   1. Ann's seat is open in her browser from the start while the table plays (moves sent to the
//      service directly, as the other people's devices would); then, mid-game, a spectator opens
//      the public table and Bo opens his seat's link in a new browser. Both get "What happened"
//      from the service: the spectator the same lines as Ann (but her own drawn cards), Bo the
//      same moves; all three mark the same last build and name it in the status line.
//   2. Cy opens her seat too; the three pages follow the table over the GraphQL websocket while
//      the game is played to its end, a move every few tenths of a second (faster than the
//      service's heartbeat, set low by whoever runs this), for longer than a seat's presence
//      lasts unrefreshed. At the end, and a while after, every page shows the others connected.
//   node history.mjs <service url> <artifacts dir> <chromium path>
// Prints one JSON line with what happened.
import { body, launch, open, out, ready, shot } from "./browser.mjs";

const [base, artifacts, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const browser = await launch(executablePath, artifacts);
const MID_GAME = 14; // moves before the late pages open (more than the table's recent events)

async function api(path, payload, bearer) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const init = payload === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(payload) };
  return (await fetch(`${base}/v1${path}`, init)).json();
}

// One move of whoever is to move, sent by their seat (its first legal move); false at the end.
async function oneMove(tableId, tokens) {
  const anyone = await api(`/tables/${tableId}`);
  if (anyone.status !== "playing") return false;
  const seat = tokens[anyone.toMove];
  const mine = await api(`/tables/${tableId}`, undefined, seat);
  const answer = await api(`/tables/${tableId}/moves`, { move: mine.moves[0], version: mine.version }, seat);
  if (answer.code) throw new Error(`a move was refused: ${JSON.stringify(answer)}`);
  return true;
}

const logOf = (page) => page.$$eval("#log li", (items) => items.map((i) => i.textContent));
const atVersion = (page, version) =>
  page.waitForFunction((v) => Number(document.body.dataset.version) >= v, version, { timeout: 30_000 });
const seen = async (page) => ({
  log: await logOf(page),
  lastMarked: await page.locator("#board .block.last").count(),
  lastAt: await page.getAttribute("#board .block.last", "data-name").catch(() => null),
  lastMove: await page.textContent("#status .last-move").catch(() => null),
});
const offline = (page) => page.$$eval("#players .seat", (seats) =>
  seats.filter((s) => s.querySelector(".tag.offline")).map((s) => s.textContent));

try {
  const created = await api("/tables", { name: "late pages", seats: ["open", "open", "open"], setup: { rounds: 2 }, public: true });
  const id = created.tableId;
  const names = ["Ann", "Bo", "Cy"];
  const tokens = [];
  for (const name of names) tokens.push((await api(`/tables/${id}/join`, { name })).seatToken);
  await api(`/tables/${id}/start`, {}, created.hostToken);
  const link = (i) => `${base}/play/?table=${id}#seat=${tokens[i]}`;

  // 1. Ann from the start; the spectator and Bo's new browser mid-game.
  const ann = await open("Ann", { width: 1280, height: 800 }, base);
  await ann.goto(link(0));
  await ready(ann);
  for (let i = 0; i < MID_GAME; i++) await oneMove(id, tokens);
  const version = (await api(`/tables/${id}`)).version;
  await atVersion(ann, version);
  const spectator = await open("spectator", { width: 1280, height: 800 }, base);
  await spectator.goto(`${base}/play/?table=${id}`);
  const bo = await open("Bo", { width: 1280, height: 800 }, base);
  await bo.goto(link(1));
  for (const page of [spectator, bo]) {
    await ready(page);
    await atVersion(page, version);
    await page.waitForFunction(() => document.querySelectorAll("#log li").length > 0, null, { timeout: 30_000 });
  }
  // A page draws its last-move ring a frame after its version moves on: wait (bounded) until the
  // three pages ring one block, so what is compared is what each page settles on.
  const lastAt = (page) => page.getAttribute("#board .block.last", "data-name").catch(() => null);
  for (let i = 0; i < 50; i++) {
    const at = [await lastAt(ann), await lastAt(spectator), await lastAt(bo)];
    if (at[0] !== null && at.every((a) => a === at[0])) break;
    await new Promise((done) => setTimeout(done, 200));
  }
  out.midGame = { version, ann: await seen(ann), spectator: await seen(spectator), bo: await seen(bo) };
  await shot(spectator, "history-spectator");

  // 2. Everyone's seat on the socket to the end, moves coming faster than the heartbeat.
  await spectator.context().close();
  const cy = await open("Cy", { width: 1280, height: 800 }, base);
  await cy.goto(link(2));
  await ready(cy);
  const pages = [ann, bo, cy];
  for (const page of pages) await page.waitForSelector("body[data-link=socket]", { timeout: 30_000 });
  const started = Date.now();
  let moves = 0;
  while (await oneMove(id, tokens)) {
    moves += 1;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  out.end = { moves, seconds: (Date.now() - started) / 1000 };
  for (const page of pages) await page.waitForSelector("body[data-status=over]", { timeout: 30_000 });
  await ann.waitForTimeout(1500); // (the pages' last look at the table is the end's)
  out.end.links = await Promise.all(pages.map((p) => body(p, "link")));
  out.end.offline = await Promise.all(pages.map(offline));
  out.end.connected = (await api(`/tables/${id}`)).seats.map((s) => s.connected);
  await shot(ann, "history-end");
} catch (error) {
  out.failure = `${error.stack ?? error}`;
  process.exitCode = 1;
} finally {
  console.log(JSON.stringify(out));
  await browser.close();
}
