// Measurements the browser test takes inside the page: the layout's geometry, the marks on a
// block, the keyboard path through a build.

// Where things are, in page coordinates, and whether the status line stays in view when the
// page is scrolled to its end.
export async function layout(page) {
  return page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const bottom = (selector) => {
      const rects = [...document.querySelectorAll(selector)].filter((n) => n.offsetParent).map((n) => n.getBoundingClientRect());
      return rects.length ? Math.max(...rects.map((r) => r.bottom + scrollY)) : null;
    };
    const hoods = [...document.querySelectorAll("#board .hood")].map((h) => h.getBoundingClientRect());
    const near = (a, b) => Math.abs(a - b) < 2;
    const threeByTwo = hoods.length === 6
      && [1, 2].every((i) => near(hoods[i].top, hoods[0].top) && near(hoods[i + 3].top, hoods[3].top))
      && hoods[3].top >= hoods[0].bottom - 1 && hoods[0].left < hoods[1].left && hoods[1].left < hoods[2].left
      && [0, 1, 2].every((i) => near(hoods[i].left, hoods[i + 3].left));
    const out = {
      viewport: [innerWidth, innerHeight],
      threeByTwo,
      board: bottom("#board"),
      pieces: bottom("#action .piece-button"),
      hand: bottom("#hand .card"),
      clock: bottom("#status .clock"),
      scrollWidth: document.documentElement.scrollWidth,
    };
    window.scrollTo(0, document.body.scrollHeight);
    await frame();
    const status = document.getElementById("status").getBoundingClientRect();
    out.statusInView = status.top >= -1 && status.bottom <= innerHeight && scrollY > 0 ? true : scrollY === 0;
    window.scrollTo(0, 0);
    await frame();
    return out;
  });
}

// On every built block: the tower, the crown, the monster, the height and the owner's badge do
// not overlap; the tower has one piece per piece of the building (from its label's floors), each
// piece with its color's shape when tall enough to carry it; the owner's badge has a border.
export async function blockMarks(page) {
  return page.evaluate(() => {
    const problems = [];
    let crowns = 0;
    let shapes = 0;
    const parts = [".tower-stack", ".crown", ".monster-mark", ".height", ".owner"];
    for (const block of document.querySelectorAll("#board .block.built")) {
      const found = parts.map((s) => [s, block.querySelector(s)?.getBoundingClientRect()]).filter(([, r]) => r);
      crowns += block.querySelector(".crown") ? 1 : 0;
      shapes += block.querySelectorAll(".floor-shape").length;
      for (let i = 0; i < found.length; i++) {
        for (let j = i + 1; j < found.length; j++) {
          const [a, ra] = found[i];
          const [b, rb] = found[j];
          const overlap = ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5 && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5;
          if (overlap) problems.push(`${block.dataset.name}: ${a} overlaps ${b}`);
        }
      }
      const tower = block.querySelectorAll(".tower-stack .piece");
      const floors = [...tower].length;
      if (!floors) problems.push(`${block.dataset.name}: no tower`);
      const badge = block.querySelector(".owner rect");
      if (!badge || badge.getAttribute("stroke") === null) problems.push(`${block.dataset.name}: owner has no backing`);
      if (!/: \d+ (floors?|étages?) \(/.test(block.getAttribute("aria-label"))) problems.push(`${block.dataset.name}: no height in its label`);
    }
    return { problems, crowns, shapes, width: document.querySelector("#board .block")?.getBoundingClientRect().width };
  });
}

// A build by keyboard on the explained position: the piece with Enter (the focus goes on to the
// board), arrows across the board, Enter on a lit block opens the confirmation with "Build
// here" focused, Escape takes it back (the focus back on the block), Escape again the piece.
export async function keyboardBuild(page, pieceSelector) {
  const steps = {};
  const focused = () => page.evaluate(() => {
    const node = document.activeElement;
    return node === document.body ? "body" : node.id || node.dataset.name || node.className;
  });
  await page.focus(pieceSelector);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#board .block.legal");
  steps.onBoard = await page.evaluate(() => document.activeElement.classList.contains("legal"));
  const first = await focused();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  steps.moved = first !== (await focused());
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowLeft");
  steps.back = first === (await focused());
  await page.keyboard.press("Enter");
  await page.waitForSelector(".confirm");
  steps.confirmFocused = (await focused()) === "confirm-build";
  await page.keyboard.press("Escape");
  steps.escaped = (await page.locator(".confirm").count()) === 0 && (await focused()) === first;
  await page.keyboard.press("Escape");
  steps.pieceDropped = (await page.locator("#action .piece-button.chosen").count()) === 0 && (await focused()) !== "body";
  steps.focusVisible = await page.evaluate(() => {
    const node = document.querySelector("#board .block[tabindex='0']");
    node.focus();
    return getComputedStyle(node).outlineStyle !== "none";
  });
  return steps;
}

// A whole build turn by keyboard on a real table, from the moment the turn comes: the keys
// pressed (counted), where the focus was after each (never the body), and whether it built.
export async function keyboardTurn(page) {
  const where = () => page.evaluate(() => {
    const node = document.activeElement;
    if (!node || node === document.body) return "body";
    return node.id || (node.classList.contains("block") ? `block${node.classList.contains("legal") ? ".legal" : ""}` : node.className);
  });
  await page.waitForFunction(() => document.activeElement?.classList.contains("piece-button"), null, { timeout: 10_000 });
  const seen = { start: await where(), keys: [], focus: [] };
  const version = await page.evaluate(() => document.body.dataset.version);
  const press = async (key) => {
    await page.keyboard.press(key);
    seen.keys.push(key);
    seen.focus.push(await where());
  };
  if ((await page.locator("#action .piece-button").count()) > 1) await press("ArrowRight");
  await press("Enter"); // the piece: its lit blocks, the focus on the first
  await page.waitForFunction(() => document.activeElement?.classList.contains("legal"), null, { timeout: 10_000 });
  await press("Enter"); // the block: the confirmation, "Build here" focused
  await page.waitForFunction(() => document.activeElement?.id === "confirm-build", null, { timeout: 10_000 });
  await press("Enter"); // built
  await page.waitForFunction((v) => document.body.dataset.version !== v && document.body.dataset.myTurn === "false", version, { timeout: 30_000 });
  seen.after = await where();
  seen.built = true;
  return seen;
}

// A selection turn by keyboard: Enter on the focused size until the choice is complete (the
// focus moving on to "Take these pieces"), then Enter; the focus never left on the body.
export async function keyboardSelect(page) {
  const where = () => page.evaluate(() => {
    const node = document.activeElement;
    return !node || node === document.body ? "body" : node.id || node.className;
  });
  await page.waitForFunction(() => document.activeElement?.classList.contains("size"), null, { timeout: 10_000 });
  const version = await page.evaluate(() => document.body.dataset.version);
  const seen = { keys: 0, focus: [] };
  for (let i = 0; i < 8 && (await where()).includes("size"); i++) {
    await page.keyboard.press("Enter");
    seen.keys += 1;
    seen.focus.push(await where());
  }
  await page.keyboard.press("Enter");
  seen.keys += 1;
  await page.waitForFunction((v) => document.body.dataset.version !== v, version, { timeout: 30_000 });
  seen.after = await where();
  return seen;
}
