// Four seats handed over by seat links (/play/?table=<id>#seat=<token>), each on its own
// 1280 x 800 screen: every seat's layout is measured on its turn (the board 3 x 2, pieces,
// cards and clock in one screen), then again on a 360 x 740 phone.
import { body, open, out, playTurn, random, ready, shot } from "./browser.mjs";
import { keyboardSelect, keyboardTurn, layout } from "./checks.mjs";

async function api(base, path, payload, bearer) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const response = await fetch(`${base}/v1${path}`, { method: "POST", headers, body: JSON.stringify(payload) });
  return response.json();
}

export async function fourSeats(base) {
  const created = await api(base, "/tables", { name: "four seats", seats: ["open", "open", "open", "open"], setup: { rounds: 1 }, turnSeconds: 600, public: false });
  const names = ["Ann", "Ben", "Cleo", "Dan"];
  const tokens = [];
  for (const name of names) tokens.push((await api(base, `/tables/${created.tableId}/join`, { name })).seatToken);
  await api(base, `/tables/${created.tableId}/start`, {}, created.hostToken);
  const pages = await Promise.all(names.map(async (name, i) => {
    const page = await open(name, { width: 1280, height: 800 }, base);
    await page.goto(`${base}/play/?table=${created.tableId}#seat=${tokens[i]}`);
    await ready(page);
    return page;
  }));
  // The seat link seats the page and leaves the address bar without the token.
  out.seatLinks = await Promise.all(pages.map((p) => p.evaluate(() => ({
    seated: document.querySelector("#players .you") !== null,
    hash: location.hash,
    tokenInUrl: /seat=/.test(location.href),
    referrer: document.querySelector("meta[name=referrer]")?.content,
  }))));
  const desktop = {};
  const rngs = names.map((_, i) => random(20 + i));
  // Each seat's selection turn, then the first build turn: measured as the player sees it.
  for (let turn = 0; turn < 5; turn++) {
    let i = -1;
    for (let wait = 0; i < 0 && wait < 200; wait++) {
      const turns = await Promise.all(pages.map((p) => body(p, "myTurn")));
      i = turns.indexOf("true");
      if (i < 0) await pages[0].waitForTimeout(50);
    }
    if (i < 0) throw new Error("four seats: nobody's turn");
    desktop[`${names[i]}:${await body(pages[i], "phase")}`] = await layout(pages[i]);
    if (turn === 1) await shot(pages[i], "seat-desktop", false);
    if (turn === 0) out.keyboardSelect = await keyboardSelect(pages[i]); // by keyboard alone
    else if (turn < 4) await playTurn(pages[i], rngs[i]);
    else out.keyboardTurn = await keyboardTurn(pages[i]); // the first build, by keyboard alone
  }
  out.layoutDesktop = desktop;
  out.layoutPhone = {};
  for (const [i, page] of pages.entries()) {
    await page.setViewportSize({ width: 360, height: 740 });
    out.layoutPhone[names[i]] = await layout(page);
  }
  await shot(pages[1], "seat-phone");
  await Promise.all(pages.map((p) => p.context().close()));
}

// A waiting table whose every seat is taken, opened by someone without a seat: the status says
// it is full and offers to watch, no button offers a seat, and the chat's /join and /start
// answer with the status's own words.
export async function fullTable(base, locale = "en-US") {
  const created = await api(base, "/tables", { name: "full", seats: ["open", "open"], public: true });
  for (const name of ["Ann", "Bo"]) await api(base, `/tables/${created.tableId}/join`, { name });
  const zed = await open(`zed-${locale}`, { width: 1280, height: 800 }, base, { locale });
  await zed.goto(`${base}/play/?table=${created.tableId}`);
  await ready(zed);
  const seen = { status: await zed.textContent("#status .situation"), joinForms: await zed.locator(".join-form").count() };
  for (const command of ["/join zed", "/start"]) {
    await zed.fill("#chat-input", command);
    await zed.press("#chat-input", "Enter");
    await zed.waitForFunction(() => !document.getElementById("notice").hidden);
    seen[command] = await zed.textContent("#notice");
  }
  await zed.context().close();
  return seen;
}

// A waiting table renders again whenever it changes: a name being typed in the join form, and
// the focus in it, outlast another person taking a seat; then the form's Join seats the page.
export async function joinWhileOthersJoin(base) {
  const created = await api(base, "/tables", { name: "busy", seats: ["open", "open", "open"], public: true });
  const zoe = await open("zoe", { width: 1280, height: 800 }, base);
  await zoe.goto(`${base}/play/?table=${created.tableId}`);
  await ready(zoe);
  const input = zoe.locator(".join-form input");
  await input.fill("");
  await input.pressSequentially("Zo");
  await api(base, `/tables/${created.tableId}/join`, { name: "Bo" });
  await zoe.waitForFunction(() => document.getElementById("players").textContent.includes("Bo"));
  await input.pressSequentially("e");
  const seen = {
    forms: await zoe.locator(".join-form").count(),
    value: await input.inputValue(),
    focused: await input.evaluate((node) => node === document.activeElement),
  };
  await zoe.click("#join-button");
  await zoe.waitForFunction(() => document.querySelector("#players .you") !== null);
  seen.seatedAs = await zoe.evaluate(() => document.querySelector("#players .you").parentElement.textContent);
  await zoe.context().close();
  return seen;
}
