// The page's small parts: an element, a color chip (its shape in SVG, then its name), a player's
// name with their colors, and the notice line under the header.

import { colorName } from "./board.js";
import { t } from "./i18n.js";
import { $, S, me, playerColors, seatName } from "./state.js";
import { shapeIcon } from "./icons.js";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// A color chip: the shape in the color, then its name (or the name for screen readers only).
export function chip(color, withName = true) {
  const span = el("span", "chip");
  span.append(shapeIcon(color));
  if (withName) span.append(colorName(color));
  else {
    span.title = colorName(color);
    span.append(el("span", "sr-only", colorName(color)));
  }
  return span;
}

// "Ada (you) [red chip]" as a node: the name, then the player's color chips.
export function who(player, { chips = true } = {}) {
  const span = el("span", "who");
  span.append(el("b", "", seatName(player)));
  if (player === me()) span.append(el("span", "you", ` ${t("you")}`));
  if (chips) for (const c of playerColors(player)) span.append(" ", chip(c, false));
  return span;
}

// A notice stays until the table changes after it (a move, a join, a chat line), or is replaced.
export function notice(text) {
  const box = $("notice");
  box.textContent = text || "";
  box.hidden = !text;
  S.noticeAt = S.table?.version ?? 0;
}
export function clearStaleNotice(version) {
  if (version > (S.noticeAt ?? 0) && !$("notice").hidden) notice("");
}
