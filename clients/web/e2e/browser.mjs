// What the browser test drives the page with: Chromium contexts kept offline but for the
// service, a TCP relay whose connections can be cut, and one turn played by clicking.
import { readFileSync } from "node:fs";
import net from "node:net";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

export const out = { errors: [], offsite: [], moves: {}, checks: {}, tableGets: {} };
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
let browser = null;
let artifacts = ".";

export async function launch(executablePath, artifactsDir, extraArgs = []) {
  artifacts = artifactsDir;
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync", ...extraArgs],
  });
  return browser;
}

// A TCP relay in front of the service whose connections can be cut: a real lost connection for
// the page behind it (browser "offline" emulation leaves an open event stream alone). With
// `refuseSockets` set it drops each new WebSocket handshake (a network that lets no websocket
// through) and relays everything else; `silenceSockets()` stops relaying what the service sends
// on the open websockets, without closing them (a network that lost the way back without a
// word): what the page sends still arrives.
const UPGRADE = /\r\nupgrade:\s*websocket/i;
export async function relay(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let down = false;
  const line = {};
  const websockets = new Set();
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    client.once("data", (first) => {
      const upgrade = UPGRADE.test(first.toString("latin1"));
      if (line.refuseSockets && upgrade) return client.destroy();
      const upstream = net.connect(Number(port), hostname);
      if (upgrade) websockets.add([client, upstream]);
      upstream.write(first);
      for (const [a, b] of [[client, upstream], [upstream, client]]) {
        a.pipe(b);
        a.on("error", () => b.destroy());
        a.on("close", () => b.destroy());
      }
      sockets.add(upstream);
      upstream.on("close", () => sockets.delete(upstream));
    });
    client.on("error", () => client.destroy());
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(line, {
    refuseSockets: false,
    url: `http://127.0.0.1:${server.address().port}`,
    silenceSockets() {
      for (const [client, upstream] of websockets) {
        upstream.unpipe(client);
        upstream.removeAllListeners("data");
        upstream.on("data", () => {}); // read and dropped
      }
      websockets.clear();
    },
    cut(ms) {
      down = true;
      for (const socket of sockets) socket.destroy();
      setTimeout(() => (down = false), ms);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  });
}

// A person's browser: its own context (storage, language), offline for anything but `origin`.
export async function open(label, viewport, origin, { locale = "en-US" } = {}) {
  const context = await browser.newContext({ viewport, locale });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
    out.offsite.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => out.errors.push(`${label}: ${error}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource|EventSource|net::ERR|WebSocket connection to/.test(message.text())) {
      out.errors.push(`${label} console: ${message.text()}`);
    }
  });
  // Each GET of a table (GET /v1/tables/<id>) the page makes by itself, counted: a turn must
  // not need one (the stream's events carry the view and the legal moves).
  page.on("request", (request) => {
    if (request.method() !== "GET" || request.headers()["x-e2e"]) return;
    if (/\/v1\/tables\/[^/]+$/.test(new URL(request.url()).pathname)) out.tableGets[label] = (out.tableGets[label] ?? 0) + 1;
  });
  page.label = label;
  return page;
}

export const artifactsDir = () => artifacts;
export const shot = (page, name, fullPage = true) => page.screenshot({ path: `${artifacts}/web-${name}.png`, fullPage });
export const ready = (page) => page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
export const body = (page, key) => page.evaluate((k) => document.body.dataset[k], key);

// axe-core inside the page: the serious and critical violations, as "rule: target" lines.
// Evaluated through the DevTools protocol, not added as a script tag: the page's
// Content-Security-Policy (script-src 'self') refuses inline scripts, as it should.
export async function axe(page) {
  await page.evaluate(readFileSync(AXE, "utf8"));
  const found = await page.evaluate(async () => (await window.axe.run(document)).violations);
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

export function random(seed) {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
}

// The side of the board this page's seat sits at (the service's view, asked with the page's
// own seat token), and the block a card designates from there (RULES §2), computed here.
async function seatSide(page) {
  if (page.side !== undefined) return page.side;
  page.side = await page.evaluate(async () => {
    const id = new URLSearchParams(location.search).get("table");
    const seat = JSON.parse(sessionStorage.getItem(`manhattan.seat.${id}`));
    const table = await (await fetch(`../v1/tables/${id}`, { headers: { authorization: `Bearer ${seat.seatToken}`, "x-e2e": "side" } })).json();
    return table.view.rules.seats[table.view.player];
  });
  return page.side;
}
export function designated(card, side) {
  let [r, c] = [Math.floor(card / 3), card % 3];
  for (let i = 0; i < side; i++) [r, c] = [c, 2 - r];
  return r * 3 + c;
}

async function select(page, rng) {
  for (let guard = 0; guard < 12; guard++) {
    if (await page.isEnabled("#confirm-select")) break;
    const sizes = page.locator(".piece-button.size:not([disabled])");
    const n = await sizes.count();
    if (!n) throw new Error(`${page.label}: no size to choose and no selection to confirm`);
    await sizes.nth(Math.floor(rng() * n)).click();
  }
  await page.click("#confirm-select");
}

async function build(page, rng, shotName) {
  const pieces = page.locator("#action .piece-button");
  const n = await pieces.count();
  for (let k = 0; k < n; k++) {
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
    // The board is the same way up for everyone; each highlighted block is one a card of this
    // player designates from their own side of the board (RULES §2).
    const side = await seatSide(page);
    const cards = await page.$$eval("#hand .card", (cs) => cs.map((c) => Number(c.dataset.card)));
    const spots = await legal.evaluateAll((bs) => bs.map((b) => Number(b.dataset.b)));
    for (const spot of spots) {
      if (!cards.some((card) => designated(card, side) === spot)) {
        throw new Error(`${page.label}: block ${spot} lit without a card for it from side ${side} (${cards})`);
      }
    }
    out.checks.highlighted = (out.checks.highlighted ?? 0) + m;
    // (On a clock the turn may run out meanwhile: a bot plays it and the lit blocks go.)
    await legal.nth(Math.floor(rng() * m)).click({ timeout: 5_000 }).catch(() => {});
    // The preview arrives, or (on a clock) the turn ran out meanwhile and the table moved on.
    await page.waitForFunction(() => (document.querySelector(".confirm")?.dataset.preview ?? "ready") === "ready");
    if (!(await page.locator(".confirm").count())) return;
    if (await page.locator(".confirm .deltas").count()) out.checks.previews = (out.checks.previews ?? 0) + 1;
    const reach = await buildHereReach(page);
    if (reach) (out.buildHere ??= []).push(reach);
    if (shotName) {
      await shot(page, shotName);
      out.checks.midShots = [...(out.checks.midShots ?? []), shotName];
    }
    await page.click("#confirm-build", { timeout: 5_000 }).catch(() => {}); // or the clock beat it
    return;
  }
  throw new Error(`${page.label}: no piece has a legal block`);
}

// Where "Build here" is with the page at its top, on a 1280 x 800 screen: its bottom edge, the
// screen's height and the preview's lines of explanation above it.
export async function buildHereReach(page) {
  return page.evaluate(async () => {
    if (innerWidth !== 1280 || innerHeight !== 800) return null;
    window.scrollTo(0, 0);
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const button = document.getElementById("confirm-build");
    if (!button) return null;
    return { bottom: button.getBoundingClientRect().bottom, screen: innerHeight, lines: document.querySelectorAll(".confirm p.hint").length };
  });
}

// One turn of whoever's turn it is on `page`, by clicking: returns false if it was not its turn.
export async function playTurn(page, rng, shotName = null) {
  if ((await body(page, "myTurn")) !== "true") return false;
  const version = await body(page, "version");
  if ((await body(page, "phase")) === "select") await select(page, rng);
  else if (await page.locator("#action .card.forfeit").count()) {
    await page.locator("#action .card.forfeit").first().click();
    out.checks.forfeits = (out.checks.forfeits ?? 0) + 1;
  } else await build(page, rng, shotName);
  out.moves[page.label] = (out.moves[page.label] ?? 0) + 1;
  // (Up to 30 s for a socket gone silent to be given up, and a move on it sent again over HTTP.)
  await page.waitForFunction((v) => document.body.dataset.version !== v, version, { timeout: 45_000 });
  return true;
}
