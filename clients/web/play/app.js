// Manhattan reference frontend: tables (DESIGN §9), people and bots at one game.
//
// The page holds only what the service gives its seat: the table as that seat may see it (its
// player's view, its own legal moves), its seat token (session storage: a reload or a lost
// connection rejoins the same seat) and the live events of the table. Everything a rule decides
// (which blocks a piece may take, the score change of a move, why a block is refused) comes
// from the service: the page only draws it.
//
// The modules run one way: what the page holds (state.js, board.js, choices.js, the service's
// api.js and live.js), then the drawing (render.js and what it draws with), then the actions
// (actions.js, building.js, connection.js, replay.js). Drawing asks for what a person wants
// through the bus (bus.js); this file gives each request its one answer.

import * as api from "./api.js";
import { answer, onFailure } from "./bus.js";
import { LANGUAGES, lang, setLanguage, t, translatePage } from "./i18n.js";
import { notice } from "./nodes.js";
import { $, S } from "./state.js";
import { createTable, showLobby } from "./lobby.js";
import { showTable } from "./connection.js";
import { join, leave, pick, play, rematch, sendChat, start } from "./actions.js";
import { onBlock, pickPiece, showWhy, takeBack } from "./building.js";
import { closeReplay, openReplay, stepTo } from "./replay.js";
import { setUpAlerts } from "./alerts.js";
import { startEmbed } from "./embed.js";

function languageSwitch() {
  const select = $("language");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = lang;
  select.addEventListener("change", () => setLanguage(select.value));
}

// Every request the drawing may make, and the action that answers it.
function answerRequests() {
  onFailure((error) => notice(error.message));
  answer("piece", pickPiece);
  answer("block", onBlock);
  answer("why", showWhy);
  answer("build", play);
  answer("select", play);
  answer("forfeit", play);
  answer("cancel", takeBack);
  answer("pick", pick);
  answer("join", join);
  answer("start", start);
  answer("leave", leave);
  answer("rematch", rematch);
  answer("openReplay", openReplay);
  answer("closeReplay", closeReplay);
  answer("replayStep", stepTo);
}

async function init() {
  translatePage();
  startEmbed();
  answerRequests();
  languageSwitch();
  setUpAlerts();
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && takeBack()) event.preventDefault();
  });
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
