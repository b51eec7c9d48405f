// Manhattan reference frontend: tables (DESIGN §9), people and bots at one game.
//
// The page holds only what the service gives its seat: the table as that seat may see it (its
// player's view, its own legal moves), its seat token (session storage: a reload or a lost
// connection rejoins the same seat) and the live events of the table. Everything a rule decides
// (which blocks a piece may take, the score change of a move, why a block is refused) comes
// from the service: the page only draws it.

import * as api from "./api.js";
import { LANGUAGES, lang, setLanguage, t, translatePage } from "./i18n.js";
import { $, S, notice } from "./state.js";
import { createTable, showLobby } from "./lobby.js";
import { showTable } from "./connection.js";
import { sendChat } from "./actions.js";
import { setUpAlerts } from "./alerts.js";
import { render } from "./render.js";

function languageSwitch() {
  const select = $("language");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = lang;
  select.addEventListener("change", () => setLanguage(select.value));
}

// Escape takes back the last choice of a turn: the block clicked, then the piece picked.
function onEscape(event) {
  if (event.key !== "Escape" || !S.table) return;
  if (S.target) S.target = null;
  else if (S.piece) S.piece = null;
  else return;
  render();
  document.querySelector("#action .piece-button, #board .block[tabindex='0']")?.focus();
}

async function init() {
  translatePage();
  languageSwitch();
  setUpAlerts();
  document.addEventListener("keydown", onEscape);
  $("create").addEventListener("submit", createTable);
  $("chat-form").addEventListener("submit", sendChat);
  $("copy-link").addEventListener("click", () => {
    $("share-link").select();
    navigator.clipboard?.writeText($("share-link").value).catch(() => {});
  });
  try {
    S.rules = await api.call("/rules");
  } catch (error) {
    notice(t("conn.noAnswer", { error: error.message }));
    return;
  }
  if (S.tableId) await showTable();
  else {
    showLobby();
    document.body.dataset.ready = "true";
  }
}

init();
