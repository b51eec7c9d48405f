// A table inside a platform's page: the page of http://platform.example (an allowed origin,
// MANHATTAN_EMBED_ORIGINS; fulfilled by the browser's router, nothing leaves the machine)
// frames a seat of a table against a bot, plays it to its end by clicking inside the frame, and
// records the messages the frame posts; the page of http://other.example (not allowed) frames
// the same seat, which the browser refuses, and receives nothing.
//   node embed.mjs <service url> <artifacts dir> <chromium path>
// Prints one JSON line with what happened.
import { launch, out, playTurn, random } from "./browser.mjs";

const [base, artifacts, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
// The platforms' pages are answered by the browser's router, so Chromium cannot tell that they
// are on this machine too, and its local network checks would refuse a public page a frame on
// 127.0.0.1: off here, where the service is on the loopback only because it is a test.
const browser = await launch(executablePath, artifacts, ["--disable-features=LocalNetworkAccessChecks"]);

async function api(path, payload, bearer) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  return (await fetch(`${base}/v1${path}`, { method: "POST", headers, body: JSON.stringify(payload) })).json();
}

const parentPage = (src) => `<!doctype html><meta charset="utf-8"><title>A platform</title>
<h1>Our league</h1><iframe id="table" src="${src}" width="1000" height="760"></iframe>
<script>window.got = []; addEventListener("message", (e) => window.got.push({ origin: e.origin, data: e.data }));</script>`;

async function platform(origin, src) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.route(`${origin}/**`, (route) => route.fulfill({ contentType: "text/html", body: parentPage(src) }));
  const page = await context.newPage();
  page.on("pageerror", (error) => out.errors.push(`${origin}: ${error}`));
  await page.goto(`${origin}/league`);
  return page;
}

try {
  const created = await api("/tables", { name: "embedded", seats: ["open", { bot: { level: "random" } }], setup: { rounds: 1 }, public: false });
  const joined = await api(`/tables/${created.tableId}/join`, { name: "Ann" });
  const src = `${base}/play/?table=${created.tableId}&embed=1#seat=${joined.seatToken}`;
  // A platform not listed: the browser refuses to show the frame, so nothing is posted.
  const other = await platform("http://other.example", src);
  const league = await platform("http://platform.example", src);
  const frame = league.frameLocator("#table");
  await frame.locator("body[data-status=waiting]").waitFor({ timeout: 30_000 });
  const inner = league.frames().find((f) => f.url().startsWith(base));
  inner.label = "Ann";
  out.chrome = await inner.evaluate(() => ({
    title: getComputedStyle(document.querySelector("header h1")).display,
    language: getComputedStyle(document.querySelector("header .language")).display,
    embedded: document.body.classList.contains("embedded"),
  }));
  await api(`/tables/${created.tableId}/start`, {}, created.hostToken);
  const rng = random(5);
  try {
    for (let guard = 0; (await inner.evaluate(() => document.body.dataset.status)) !== "over"; guard++) {
      if (!(await playTurn(inner, rng))) await inner.waitForTimeout(50);
      if (guard > 3000) throw new Error("the embedded game did not end");
    }
  } catch (error) {
    await league.screenshot({ path: `${artifacts}/web-embedded-failed.png` });
    const notice = await inner.textContent("#notice").catch(() => "?");
    throw new Error(`${error.message}; the frame's notice: ${notice}`);
  }
  await league.waitForFunction(() => window.got.some((m) => m.data?.type === "manhattan:over"), null, { timeout: 30_000 });
  out.messages = await league.evaluate(() => window.got);
  out.tableId = created.tableId;
  out.serviceOrigin = new URL(base).origin;
  out.otherFrameLoaded = await other.evaluate(() => {
    try {
      return Boolean(document.getElementById("table").contentDocument?.body?.dataset.ready);
    } catch {
      return false;
    }
  });
  out.otherFrames = other.frames().filter((f) => f.url().startsWith(base)).length;
  out.otherFrameReady = await Promise.all(other.frames().filter((f) => f.url().startsWith(base)).map((f) => f.evaluate(() => document.body?.dataset.ready ?? null).catch(() => null)));
  out.otherMessages = await other.evaluate(() => window.got);
  await league.screenshot({ path: `${artifacts}/web-embedded.png` });
  console.log(JSON.stringify(out));
} finally {
  await browser.close();
}
