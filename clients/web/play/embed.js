// A table inside a platform's own page (/play/?table=<id>&embed=1#seat=<token>, in an iframe):
// the lobby's chrome is dropped, and the parent page is told what happens at the table with
// window.postMessage, {type: "manhattan:turn" | "manhattan:move" | "manhattan:over", tableId,
// version, toMove}, sent only to the parent's origin and only when the service allows that
// origin to frame the page (embed.json beside this page: MANHATTAN_EMBED_ORIGINS; the
// Content-Security-Policy's frame-ancestors refuses the others in the first place).

import { S, params } from "./state.js";

const embedded = params.get("embed") === "1" && window.parent !== window;
let target = null; // the parent's origin, once known to be allowed
const waiting = []; // messages said before the allowed origins came

// The parent's origin as the browser knows it (Chromium, Safari), else as the page was told.
function parentOrigin() {
  const known = location.ancestorOrigins?.[0];
  return known && known !== "null" ? known : params.get("origin");
}

export async function startEmbed() {
  if (!embedded) return;
  document.body.classList.add("embedded");
  const origin = parentOrigin();
  let allowed = [];
  try {
    allowed = (await (await fetch("embed.json", { headers: { accept: "application/json" } })).json()).origins ?? [];
  } catch {
    allowed = [];
  }
  if (!origin || !(origin === location.origin || allowed.includes(origin))) return;
  target = origin;
  for (const message of waiting.splice(0)) window.parent.postMessage(message, target);
}

// Tells the parent page: `type` is "turn" (the turn came to this seat), "move" or "over".
export function tellParent(type, version, toMove = S.table?.toMove ?? null) {
  if (!embedded) return;
  const message = { type: `manhattan:${type}`, tableId: S.tableId, version, toMove };
  if (target) window.parent.postMessage(message, target);
  else if (waiting.length < 50) waiting.push(message);
}
