// Plays a whole game on the /play page in headless Chromium, always clicking the first legal
// move, from the first selection to the final ranking; keeps a screenshot.
//   node drive.mjs <page url> <screenshot path> [chromium path]
// Prints one JSON line: {"clicks": n, "ranking": "...", "status": "...", "monsters": n}.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [url, screenshot, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const userDataDir = mkdtempSync(join(tmpdir(), "manhattan-e2e-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  viewport: { width: 1280, height: 1000 },
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
const errors = [];
page.on("pageerror", (error) => errors.push(String(error)));
try {
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 });
  await page.click("#start");
  let clicks = 0;
  for (;;) {
    const next = await Promise.race([
      page.waitForSelector("#moves button.move", { timeout: 20_000 }).then(() => "move"),
      page.waitForSelector("#ranking:not([hidden])", { timeout: 20_000 }).then(() => "over"),
    ]);
    if (next === "over") break;
    if (clicks === 0) await page.screenshot({ path: screenshot.replace(/\.png$/, "-first-selection.png") });
    await page.click("#moves button.move >> nth=0");
    clicks += 1;
    if (clicks > 400) throw new Error("the game did not end after 400 moves");
  }
  await page.screenshot({ path: screenshot, fullPage: true });
  const ranking = await page.textContent("#ranking");
  const status = await page.textContent("#status");
  const monsters = await page.locator("#board .monster").count();
  if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
  console.log(JSON.stringify({ clicks, ranking, status, monsters }));
} finally {
  await context.close();
}
