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

// On every built block: the stack, the crown, the height and the owner do not overlap; the owner
// sits on an opaque background with a dark border (readable on the gold frame).
export async function blockMarks(page) {
  return page.evaluate(() => {
    const problems = [];
    let crowns = 0;
    for (const block of document.querySelectorAll("#board .block.built")) {
      const parts = [".stack", ".crown", ".height", ".owner"].map((s) => [s, block.querySelector(s)?.getBoundingClientRect()]).filter(([, r]) => r);
      crowns += block.querySelector(".crown") ? 1 : 0;
      for (let i = 0; i < parts.length; i++) {
        for (let j = i + 1; j < parts.length; j++) {
          const [a, ra] = parts[i];
          const [b, rb] = parts[j];
          const overlap = ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5 && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5;
          if (overlap) problems.push(`${block.dataset.name}: ${a} overlaps ${b}`);
        }
      }
      const owner = getComputedStyle(block.querySelector(".owner"));
      if (owner.backgroundColor === "rgba(0, 0, 0, 0)" || owner.borderTopWidth === "0px") problems.push(`${block.dataset.name}: owner has no backing`);
    }
    return { problems, crowns, width: document.querySelector("#board .block")?.getBoundingClientRect().width };
  });
}

// A build by keyboard alone: the piece with Enter, arrows across the board, Escape to cancel
// the block chosen, Enter on a lit block, and the confirmation focused.
export async function keyboardBuild(page, pieceSelector) {
  const steps = {};
  await page.focus(pieceSelector);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#board .block.legal");
  await page.focus("#board .block[tabindex='0']");
  const at = () => page.evaluate(() => document.activeElement?.dataset.name ?? null);
  const first = await at();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  steps.moved = first !== (await at());
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowLeft");
  steps.back = first === (await at());
  steps.onLegal = await page.evaluate(() => document.activeElement.classList.contains("legal"));
  await page.keyboard.press("Enter");
  await page.waitForSelector(".confirm");
  steps.confirmOpened = true;
  await page.keyboard.press("Escape");
  steps.escaped = (await page.locator(".confirm").count()) === 0;
  steps.focusVisible = await page.evaluate(() => {
    const node = document.querySelector("#board .block[tabindex='0']");
    node.focus();
    return getComputedStyle(node).outlineStyle !== "none";
  });
  return steps;
}
