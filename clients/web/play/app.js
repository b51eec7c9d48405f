// Manhattan reference frontend: tables (DESIGN §9), people and bots at one game.
//
// The page holds only what the service gives its seat: the table as that seat may see it (its
// player's view, its own legal moves), its seat token (session storage: a reload or a lost
// connection rejoins the same seat) and the live events of the table. Everything a rule decides
// (which blocks a piece may take, the score change of a move, why a block is refused) comes
// from the service: the page only draws it.

import * as api from "./api.js";
import { COLORS, HOODS, SPOTS, chip, drawBoard, drawCard, el, placeOf } from "./board.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

const S = {
  rules: null,
  tableId: params.get("table"),
  table: null,
  seat: null, // {seatToken, name}
  host: null,
  pick: [0, 0, 0, 0], // the selection being put together (counts of 1..4-floor pieces)
  pickColor: null,
  piece: null, // {color, floors}: the piece chosen to build (or forfeit)
  target: null, // {key, move, preview, error}: the block clicked, waiting for confirmation
  hoverCard: null,
  why: new Map(), // "n:b:color:floors" -> the service's explanation of a refused block
  log: { version: 0, lines: [] },
  stream: null,
  busy: false,
  timer: null,
};

// -- names: one label per player everywhere ------------------------------------------------
function seatName(index) {
  const seat = S.table?.seats[index];
  if (!seat) return `Seat ${index + 1}`;
  if (seat.name) return seat.name;
  return seat.kind === "bot" ? `Bot ${index + 1}` : `Seat ${index + 1}`;
}
const me = () => (S.table?.view?.player ?? null);
function playerColors(player) {
  return S.table?.view?.rules.colors[player] ?? [];
}
function colorOwner(color) {
  const colors = S.table?.view?.rules.colors ?? [];
  return colors.findIndex((cs) => cs.includes(color));
}
// "Ada ●" as a node: the name, then the player's color chips (shape + name on hover).
function who(player, { chips = true } = {}) {
  const span = el("span", "who");
  span.append(el("b", "", seatName(player)));
  if (player === me()) span.append(el("span", "you", " (you)"));
  if (chips) for (const c of playerColors(player)) span.append(" ", chip(c, false));
  return span;
}
function whoText(player) {
  const colors = playerColors(player).map((c) => `${COLORS[c].shape} ${COLORS[c].name}`);
  return `${seatName(player)}${player === me() ? " (you)" : ""}${colors.length ? ` (${colors.join(", ")})` : ""}`;
}
const colorText = (c) => `${COLORS[c].shape} ${COLORS[c].name}`;
function side() {
  const view = S.table?.view;
  if (!view) return 0;
  return view.player === null || view.player === undefined ? 0 : view.rules.seats[view.player];
}
const blockText = ([n, r, c]) => `${HOODS[n]} ${SPOTS[placeOf(n, r * 3 + c, side()).spot]}`;
const piecesText = (pieces) =>
  pieces.map((k, i) => (k ? `${k}×${i + 1}` : "")).filter(Boolean).join(" ") + " floors";

function notice(text) {
  const box = $("notice");
  box.textContent = text || "";
  box.hidden = !text;
}

// -- the lobby -------------------------------------------------------------------------------
function showLobby() {
  $("lobby").hidden = false;
  $("table").hidden = true;
  document.title = "Manhattan: open a table";
  const form = $("create");
  form.elements.name.value = api.myName();
  fill(form.elements.edition, S.rules.editions);
  fill(form.elements.monster, ["", ...S.rules.monsters], (m) => m || "none");
  // Options in the address (?players=3&bot=greedy&monster=baby&rounds=2) fill the form; one
  // the service does not know is said out loud, never dropped.
  const problems = [];
  const players = params.has("players") ? Number(params.get("players")) : 4;
  if (!S.rules.players.includes(players)) problems.push(`players=${params.get("players")} (2 to 4)`);
  const bot = params.get("bot");
  if (bot !== null && !S.rules.bots.includes(bot)) {
    problems.push(`bot=${bot} (bots: ${S.rules.bots.join(", ")})`);
  }
  const monster = params.get("monster");
  if (monster !== null && monster !== "" && !S.rules.monsters.includes(monster)) {
    problems.push(`monster=${monster} (monsters: ${S.rules.monsters.join(", ")})`);
  } else if (monster) form.elements.monster.value = monster;
  const edition = params.get("edition");
  if (edition !== null && !S.rules.editions.includes(edition)) {
    problems.push(`edition=${edition} (editions: ${S.rules.editions.join(", ")})`);
  } else if (edition) form.elements.edition.value = edition;
  if (params.has("rounds")) form.elements.rounds.value = params.get("rounds");
  const turn = params.get("turnSeconds");
  if (turn !== null) {
    if (/^[1-9][0-9]*$/.test(turn)) {
      const select = form.elements.turnSeconds;
      if (![...select.options].some((o) => o.value === turn)) select.append(new Option(`${turn} s`, turn));
      select.value = turn;
    } else problems.push(`turnSeconds=${turn} (seconds, a whole number)`);
  }
  if (params.has("seed")) problems.push("seed (a table's seed is always drawn by the service)");
  if (problems.length) notice(`Not understood, left out: ${problems.join("; ")}.`);
  const count = S.rules.players.includes(players) ? players : 4;
  const kinds = [];
  for (let i = 1; i < 4; i++) kinds.push(i < count ? (bot && S.rules.bots.includes(bot) ? bot : "open") : "none");
  seatRows(kinds);
  listTables();
}

function fill(select, values, label = (v) => v) {
  select.replaceChildren(...values.map((v) => {
    const option = el("option", "", label(v));
    option.value = v;
    return option;
  }));
}

// Seats 2 to 4: "open" (a person with the link), a bot level, or no seat.
function seatRows(kinds) {
  const rows = kinds.map((kind, i) => {
    const label = el("label", "", `Seat ${i + 2} `);
    const select = el("select");
    select.name = `seat${i + 2}`;
    fill(select, ["open", ...S.rules.bots, "none"], (v) =>
      v === "open" ? "open (a person)" : v === "none" ? "no seat" : `bot: ${v}`);
    select.value = kind;
    label.append(select);
    return label;
  });
  $("seat-rows").replaceChildren(el("label", "", "Seat 1: you"), ...rows);
}

async function listTables() {
  if (!$("lobby").hidden) {
    try {
      const { tables } = await api.call("/tables");
      const items = tables.map((t) => {
        const item = el("li");
        const link = el("a", "", t.name || `table ${t.tableId}`);
        link.href = `?table=${encodeURIComponent(t.tableId)}`;
        const filled = t.seats.filter((s) => s.kind !== "open").length;
        item.append(link, ` · ${filled} of ${t.seats.length} seats taken`);
        return item;
      });
      $("table-list").replaceChildren(...(items.length ? items : [el("li", "hint", "none yet")]));
    } catch (error) {
      $("table-list").replaceChildren(el("li", "hint", `cannot list tables: ${error.message}`));
    }
    setTimeout(listTables, 5000);
  }
}

async function createTable(event) {
  event.preventDefault();
  const form = $("create").elements;
  const name = form.name.value.trim();
  if (!name) return;
  api.keepName(name);
  const variants = {};
  for (const v of ["antiTrust", "slowGrowth", "urbanRules", "reshuffleEachRound"]) {
    if (form[v].checked) variants[v] = true;
  }
  if (form.monster.value) variants.monster = form.monster.value;
  const setup = { edition: form.edition.value };
  if (form.rounds.value) setup.rounds = Number(form.rounds.value);
  if (Object.keys(variants).length) setup.variants = variants;
  const seats = ["open"];
  for (let i = 2; i <= 4; i++) {
    const kind = form[`seat${i}`].value;
    if (kind === "open") seats.push("open");
    else if (kind !== "none") seats.push({ bot: { level: kind } });
  }
  const body = { setup, seats, public: form.public.checked, name: form.table.value.trim() || `${name}'s table` };
  if (form.turnSeconds.value) body.turnSeconds = Number(form.turnSeconds.value);
  $("create-button").disabled = true;
  try {
    const created = await api.call("/tables", { body });
    api.keepHost(created.tableId, created.hostToken);
    const joined = await api.call(`/tables/${created.tableId}/join`, { body: { name, seat: 0 } });
    api.keepSeat(created.tableId, { seatToken: joined.seatToken, name });
    location.search = `?table=${encodeURIComponent(created.tableId)}`;
  } catch (error) {
    notice(`Could not open the table: ${error.message}`);
    $("create-button").disabled = false;
  }
}

// -- a table ---------------------------------------------------------------------------------
async function showTable() {
  $("lobby").hidden = true;
  $("table").hidden = false;
  S.seat = api.seatOf(S.tableId);
  S.host = api.hostOf(S.tableId);
  S.log = api.savedLog(S.tableId);
  drawLog();
  $("share-link").value = `${location.origin}${location.pathname}?table=${encodeURIComponent(S.tableId)}`;
  await refresh();
  follow();
  S.timer = setInterval(drawClock, 1000);
}

// The live stream: a seat's (with a ticket), or a spectator's of a public table. A private
// table shows nothing live to someone without a seat until they join.
function follow() {
  S.stream?.stop();
  S.stream = null;
  if (!S.seat && S.table && S.table.public === false) {
    $("connection").textContent = "private table: take a seat to follow it live";
    $("connection").className = "";
    return;
  }
  S.stream = api.follow(S.tableId, () => S.seat?.seatToken, onEvent, (state) => {
    $("connection").textContent = state === "live" ? "● live" : "○ reconnecting…";
    $("connection").className = state;
    if (state === "live") refresh(); // catch up on whatever happened while away
  });
}

const bearer = () => S.seat?.seatToken || S.host || null;

async function refresh() {
  try {
    take(await api.call(`/tables/${encodeURIComponent(S.tableId)}`, { bearer: S.seat?.seatToken }));
  } catch (error) {
    if (error.code === "BAD_SEAT" && S.seat) {
      // The seat is gone (left, or a token of another server's past): watch instead.
      api.dropSeat(S.tableId);
      S.seat = null;
      notice("Your seat at this table is no longer yours; you are watching.");
      return refresh();
    }
    if (error.code === "TABLE_NOT_FOUND") {
      notice("There is no such table (it may have ended long ago).");
      return;
    }
    notice(`The service does not answer: ${error.message}`);
  }
}

let refreshing = null;
function refreshSoon() {
  // Events arrive in bursts (a move, then bots' moves): one refresh for a burst.
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    refreshing = null;
    await refresh();
  }, 60);
}

function take(table) {
  if (S.table && table.version < S.table.version) return; // an older answer overtaken
  // A chat line or a join changes the version but not what this seat may do: keep the piece
  // chosen and the block clicked unless the legal moves changed.
  const turnChanged = !S.table || JSON.stringify(S.table.moves) !== JSON.stringify(table.moves);
  S.table = table;
  if (turnChanged) {
    if (!table.moves.length) {
      S.piece = null;
      S.pick = [0, 0, 0, 0];
    }
    S.target = null;
    S.why.clear();
    $("why").textContent = "";
  }
  render();
}

function onEvent(type, data, version) {
  if (type === "chat") drawChatLine(data);
  if (type === "snapshot") {
    if (S.log.version && data.version > S.log.version) addLine(data.version, "(reconnected: caught up with the table)");
    take(data);
  } else {
    logEvent(type, data, version);
    refreshSoon();
  }
}

// -- what happened, in order, one line per event ----------------------------------------------
function addLine(version, text, cls = "") {
  S.log.lines.push({ version, text, cls });
  if (S.log.lines.length > 400) S.log.lines.splice(0, S.log.lines.length - 400);
  S.log.version = Math.max(S.log.version, version);
  api.keepLog(S.tableId, S.log);
  const item = el("li", cls, text);
  $("log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

function drawLog() {
  $("log").replaceChildren(...S.log.lines.map((l) => el("li", l.cls, l.text)));
}

function logEvent(type, data, version) {
  if (version && version <= S.log.version) return; // seen before a reconnect
  const name = (player) => whoText(player);
  switch (type) {
    case "joined":
      addLine(version, `${data.name ?? "Someone"} sits down${data.seat !== undefined ? ` at seat ${data.seat + 1}` : ""}.`);
      break;
    case "left":
      addLine(version, `${data.name ?? "Someone"} leaves${S.table?.status === "playing" ? "; a bot plays their seat" : ""}.`);
      break;
    case "started":
      addLine(version, `The game starts with ${data.players} players.`, "head");
      break;
    case "timeout":
      addLine(version, `${data.player !== undefined ? name(data.player) : "A player"} ran out of time: a bot plays this turn.`);
      break;
    case "over":
      addLine(version, "The game is over.", "head");
      break;
    case "move":
      for (const event of data.events) {
        const line = eventText(event, data);
        if (line) addLine(version, line, event.type === "roundScored" ? "head" : "");
      }
      S.log.version = Math.max(S.log.version, version);
      break;
    default:
      break;
  }
}

function eventText(event, move) {
  const by = (p) => `${seatName(p)}${p === me() ? " (you)" : ""}`;
  switch (event.type) {
    case "piecesSelected":
      return `${by(event.player)} takes ${colorText(event.color)} pieces for the round: ${piecesText(event.pieces)}.`;
    case "piecePlaced":
      return `${by(event.player)} builds ${event.floors} floor${event.floors > 1 ? "s" : ""} of ${colorText(event.color)} on ${blockText(event.block)}: ${event.height} high${move.bot ? " (bot)" : ""}.`;
    case "takeover":
      return `${colorText(event.to)} takes the building on ${blockText(event.block)} from ${colorText(event.from)}.`;
    case "pieceForfeited":
      return `${by(event.player)} cannot build: gives up a ${event.floors}-floor piece.`;
    case "monsterMoved":
      return `The monster moves to ${blockText(event.to)}.`;
    case "buildingDestroyed":
      return `The monster destroys the building on ${blockText(event.block)}.`;
    case "pieceRemoved":
      return `The monster knocks the top piece off ${blockText(event.block)}.`;
    case "deckReshuffled":
      return "The deck is reshuffled.";
    case "cardDrawn":
      return event.player === me() ? `You draw a card: the ${SPOTS[event.card]} block.` : null;
    case "roundScored": {
      const totals = (S.table?.view?.rules.colors ?? []).map((cs, p) =>
        `${seatName(p)} +${cs.reduce((s, c) => s + event.scores[c].total, 0)}`);
      return `Round ${event.round} scored: ${totals.join(", ")}.`;
    }
    case "urbanRevealed":
      return `Urban card revealed: ${event.card ?? event.name ?? ""}.`;
    case "roundStarted":
      return `Round ${event.round} begins.`;
    default:
      return null;
  }
}

// -- chat --------------------------------------------------------------------------------------
function drawChatLine(message) {
  const item = el("li");
  item.append(el("b", "", `${message.name ?? "?"}: `), message.text);
  $("chat").append(item);
  item.scrollIntoView({ block: "nearest" });
}

async function sendChat(event) {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  // The platform's commands (seeds 001, 004): /join, then /start; and /leave.
  const [command, ...rest] = text.split(/\s+/);
  try {
    if (command === "/join") await join(rest.join(" ") || api.myName());
    else if (command === "/start") await start();
    else if (command === "/leave") await leave();
    else if (command.startsWith("/")) notice("Commands: /join name, /start, /leave.");
    else if (!S.seat) notice("Sit down to chat: /join your name.");
    else await api.call(`/tables/${S.tableId}/chat`, { body: { text }, bearer: S.seat.seatToken });
  } catch (error) {
    notice(error.message);
  }
}

async function join(name) {
  name = (name || "").trim();
  if (!name) return notice("Give a name: /join Ada");
  if (S.seat) return notice("You already have a seat at this table.");
  api.keepName(name);
  const joined = await api.call(`/tables/${S.tableId}/join`, { body: { name } });
  S.seat = { seatToken: joined.seatToken, name };
  api.keepSeat(S.tableId, S.seat);
  notice("");
  take(joined.table);
  follow();
}

async function start() {
  if (!bearer()) return notice("Only someone seated (or the host) can start: /join first.");
  take((await api.call(`/tables/${S.tableId}/start`, { body: {}, bearer: bearer() })).table);
}

async function leave() {
  if (!S.seat) return notice("You are not seated.");
  if (S.table?.status === "playing" && !confirm("Leave the game? A bot plays your seat to the end.")) return;
  await api.call(`/tables/${S.tableId}/leave`, { body: {}, bearer: S.seat.seatToken });
  api.dropSeat(S.tableId);
  S.seat = null;
  await refresh();
  follow();
}

async function rematch() {
  const answer = await api.call(`/tables/${S.tableId}/rematch`, { body: {}, bearer: bearer() });
  const id = answer.tableId ?? answer.table?.tableId;
  if (answer.seatToken) api.keepSeat(id, { seatToken: answer.seatToken, name: S.seat?.name });
  if (answer.hostToken) api.keepHost(id, answer.hostToken);
  location.search = `?table=${encodeURIComponent(id)}`;
}

// -- moves -----------------------------------------------------------------------------------
async function play(move) {
  if (S.busy) return;
  S.busy = true;
  const body = { move: strip(move), version: S.table.version, moveId: crypto.randomUUID() };
  try {
    await api.call(`/tables/${S.tableId}/moves`, { body, bearer: S.seat.seatToken });
    S.piece = null;
    S.pick = [0, 0, 0, 0];
    S.target = null;
    await refresh();
  } catch (error) {
    if (error.code === "STALE_VERSION" && error.body.table) {
      notice("The table changed meanwhile; here it is now.");
      take(error.body.table);
    } else {
      notice(`${error.code}: ${error.message}`);
      await refresh();
    }
  } finally {
    S.busy = false;
  }
}

// A move as the contract takes it in (MoveIn): no player, block or notation.
function strip(move) {
  const out = { type: move.type };
  for (const k of ["color", "pieces", "card", "neighborhood", "floors"]) if (move[k] !== undefined && move[k] !== null) out[k] = move[k];
  return out;
}

// What-if questions (explanations, previews) go to the table itself with the seat token: the
// service answers them from this seat's own view, on its turn.
const seatAsk = (what, body) =>
  api.call(`/tables/${encodeURIComponent(S.tableId)}/${what}`, { body, bearer: S.seat?.seatToken });

async function explain(n, b) {
  const piece = S.piece;
  const key = `${n}:${b}:${piece.color}:${piece.floors}`;
  if (S.why.has(key)) return S.why.get(key);
  const view = S.table.view;
  const cards = view.hand.filter((card) => rotate(card, side()) === b);
  let text;
  if (!cards.length) {
    text = "None of your cards shows this block.";
  } else {
    const move = { type: "build", card: cards[0], neighborhood: n, floors: piece.floors, color: piece.color };
    try {
      const verdict = await seatAsk("validate", { move });
      text = verdict.legal ? "legal" : humane(verdict.message);
    } catch (error) {
      text = error.message;
    }
  }
  S.why.set(key, text);
  return text;
}

// The service's explanations name colors and blocks by number ("color 2", "[0, 1, 0]"): say
// them as the page does everywhere else (● Red, "Manhattan top left" from where you sit).
function humane(text) {
  return String(text ?? "")
    .replace(/\bcolor (\d)\b/g, (_, c) => colorText(Number(c)))
    .replace(/\[(\d), (\d), (\d)\]/g, (_, n, r, c) => blockText([Number(n), Number(r), Number(c)]));
}

async function previewOf(move) {
  if (!S.seat?.seatToken) return null;
  const { preview } = await seatAsk("preview", { move: strip(move) });
  return preview;
}

function rotate(card, seatSide) {
  let r = Math.floor(card / 3);
  let c = card % 3;
  for (let i = 0; i < seatSide; i++) [r, c] = [c, 2 - r];
  return r * 3 + c;
}

// The legal builds of the chosen piece, by block ("n:b").
function legalBuilds() {
  const out = new Map();
  if (!S.piece || !S.table) return out;
  for (const move of S.table.moves) {
    if (move.type !== "build" || move.floors !== S.piece.floors) continue;
    if (move.color !== undefined && move.color !== null && move.color !== S.piece.color) continue;
    const key = `${move.block[0]}:${move.block[1] * 3 + move.block[2]}`;
    if (!out.has(key)) out.set(key, move);
  }
  return out;
}

async function onBlock(n, b) {
  const table = S.table;
  if (!table.moves.length || table.view.phase !== "build") return;
  if (!S.piece) return notice("First pick a piece: click a size under the board.");
  const key = `${n}:${b}`;
  const move = legalBuilds().get(key);
  if (!move) {
    const allowed = table.view.hand.some((card) => rotate(card, side()) === b);
    notice(allowed ? await explain(n, b) : `No card in your hand allows the ${SPOTS[placeOf(n, b, side()).spot]} block.`);
    return;
  }
  notice("");
  S.target = { key, move, preview: undefined };
  render();
  try {
    S.target.preview = await previewOf(move);
  } catch (error) {
    S.target.preview = { explanation: `no preview: ${error.message}` };
  }
  if (S.target?.move === move) render();
}

// A block your cards allow but the chosen piece cannot take: hovering (or focusing) it asks the
// service why, and says it beside the board and in the block's tooltip.
function explainOnHover() {
  if (!S.piece) return;
  for (const block of $("board").querySelectorAll(".block.allowed")) {
    const show = async () => {
      const text = await explain(Number(block.dataset.n), Number(block.dataset.b));
      block.title = `${block.dataset.label}. ${text}`;
      $("why").textContent = text;
    };
    block.addEventListener("mouseenter", show);
    block.addEventListener("focus", show);
  }
}

// -- drawing -----------------------------------------------------------------------------------
function render() {
  const table = S.table;
  if (!table) return;
  document.title = `Manhattan: ${table.name || "table"}`;
  $("table-name").textContent = table.name || "";
  document.body.dataset.status = table.status;
  document.body.dataset.myTurn = String(table.moves.length > 0);
  document.body.dataset.phase = table.view?.phase ?? "";
  document.body.dataset.version = String(table.version);
  drawStatus();
  drawPlayers();
  drawSeatActions();
  if (table.view) {
    drawBoard($("board"), table.view, side(), marks, onBlock);
    explainOnHover();
    drawAction();
    drawHand();
  } else {
    const waiting = el("div", "waiting");
    const seated = table.seats.filter((s) => s.kind !== "open").length;
    waiting.append(el("h2", "", `Waiting for players: ${seated} of ${table.seats.length} seats taken`));
    waiting.append(el("p", "", S.seat
      ? "Send the link to the people you want to play with. Anyone seated can start (the button, or /start in the chat); open seats left at the start are dropped."
      : "Take a seat with your name (or type /join your name in the chat)."));
    if (table.turnSeconds) waiting.append(el("p", "hint", `Time per turn: ${table.turnSeconds} s; when it runs out a bot plays the turn and the seat is marked away.`));
    $("board").replaceChildren(waiting);
    $("action").replaceChildren();
    $("hand").replaceChildren();
  }
  $("hand-area").hidden = !table.view || me() === null;
  if ($("chat").childElementCount === 0 && table.chat) for (const m of table.chat) drawChatLine(m);
  drawEnding();
  document.body.dataset.ready = "true";
}

function marks(n, b) {
  const key = `${n}:${b}`;
  const view = S.table.view;
  const mine = S.table.moves.length > 0 && view.phase === "build";
  // The card under the pointer shows its blocks, whoever's turn it is.
  const pointed = S.hoverCard !== null && me() !== null && rotate(S.hoverCard, side()) === b;
  const out = { legal: false, allowed: false, pointed, selected: S.target?.key === key, why: "" };
  if (!mine) return out;
  out.allowed = view.hand.some((card) => rotate(card, side()) === b);
  if (S.piece) {
    out.legal = legalBuilds().has(key);
    out.why = S.why.get(`${key}:${S.piece.color}:${S.piece.floors}`) ?? "";
  }
  return out;
}

function drawStatus() {
  const { table } = S;
  const status = $("status");
  status.replaceChildren();
  if (table.status === "waiting") {
    const seated = table.seats.filter((s) => s.kind !== "open").length;
    status.append(`Waiting for players: ${seated} of ${table.seats.length} seats taken. `);
    status.append(S.seat ? "Start when everyone is here (/start)." : "Type /join your name in the chat, or use the button, to play.");
    return;
  }
  const view = table.view;
  if (table.status === "over") {
    status.append("The game is over.");
    return;
  }
  status.append(`Round ${view.round} of ${view.rules.rounds} · `);
  if (table.moves.length) {
    status.append(el("b", "", view.phase === "select" ? "Your turn: choose your pieces for the round." : "Your turn: pick a piece, then a highlighted block."));
  } else {
    status.append(who(table.toMove), view.phase === "select" ? " is choosing pieces" : " is building");
  }
  status.append(el("span", "clock", ""));
  drawClock();
}

function drawClock() {
  const clock = document.querySelector("#status .clock");
  if (!clock || !S.table) return;
  const deadline = S.table.deadline;
  if (!deadline || S.table.status !== "playing") {
    clock.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  clock.textContent = ` · ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
  clock.classList.toggle("urgent", left <= 10);
}

function drawPlayers() {
  const { table } = S;
  const view = table.view;
  const items = table.seats.map((seat, index) => {
    const item = el("li", `seat ${seat.kind}`);
    item.dataset.player = String(index);
    if (seat.kind === "open") {
      item.append(el("span", "hint", "open seat"));
      return item;
    }
    if (table.status !== "waiting") item.append(who(index));
    else {
      item.append(el("b", "", seatName(index)));
      if (index === table.you) item.append(el("span", "you", " (you)"));
    }
    if (seat.kind === "bot") item.append(el("span", "tag", "bot"));
    if (seat.away) item.append(el("span", "tag away", "away"));
    if (seat.kind === "human" && !seat.connected) item.append(el("span", "tag", "offline"));
    if (view && table.toMove === index && table.status === "playing") {
      item.classList.add("to-move");
      item.append(el("span", "tag turn", "to move"));
    }
    if (view) {
      const line = el("div", "colors");
      for (const c of view.rules.colors[index]) {
        const part = el("span", "color-line");
        part.append(chip(c), ` ${view.scores[c]} pts`);
        const sel = view.selected[c];
        if (sel.some(Boolean)) part.append(el("span", "hint", ` · to build: ${piecesText(sel)}`));
        const left = view.supply[c].reduce((s, k) => s + k, 0);
        part.append(el("span", "hint", ` · ${left} in supply`));
        line.append(part);
      }
      item.append(line);
    }
    return item;
  });
  $("players").replaceChildren(...items);
  $("share").hidden = table.status !== "waiting";
}

function drawSeatActions() {
  const { table } = S;
  const box = $("seat-actions");
  box.replaceChildren();
  if (table.status === "waiting") {
    if (!S.seat && table.seats.some((s) => s.kind === "open")) {
      const form = el("form", "join-form");
      const input = el("input");
      input.name = "name";
      input.placeholder = "your name";
      input.value = api.myName();
      input.required = true;
      const button = el("button", "", "Take a seat");
      button.type = "submit";
      button.id = "join-button";
      form.append(input, button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        join(input.value).catch((error) => notice(error.message));
      });
      box.append(form);
    }
    if (bearer()) {
      const button = el("button", "primary", "Start the game");
      button.id = "start-button";
      const filled = table.seats.filter((s) => s.kind !== "open").length;
      button.disabled = filled < 2;
      button.addEventListener("click", () => start().catch((error) => notice(error.message)));
      box.append(button);
    }
  } else if (!S.seat) {
    box.append(el("p", "hint", "You are watching this table."));
  }
  if (S.seat && table.status !== "over") {
    const button = el("button", "quiet", "Leave the table");
    button.addEventListener("click", () => leave().catch((error) => notice(error.message)));
    box.append(button);
  }
}

// Under the board: what to do now (select pieces, pick a piece and a block, confirm).
function drawAction() {
  const box = $("action");
  const { table } = S;
  const view = table.view;
  if (!table.moves.length) {
    box.replaceChildren();
    return;
  }
  if (view.phase === "select") return drawSelect(box);
  const builds = table.moves.filter((m) => m.type === "build");
  if (!builds.length) return drawForfeit(box);
  const colors = playerColors(me());
  const title = el("h2", "", "Pick a piece");
  const pieces = el("div", "pieces");
  for (const c of colors) {
    for (let f = 1; f <= 4; f++) {
      const count = view.selected[c][f - 1];
      if (!count) continue;
      const button = el("button", "piece-button");
      button.type = "button";
      button.dataset.color = String(c);
      button.dataset.floors = String(f);
      button.append(chip(c), el("span", "floors", `${f} floor${f > 1 ? "s" : ""}`), el("span", "count", `×${count}`));
      button.append(tower(c, f));
      if (S.piece?.color === c && S.piece?.floors === f) button.classList.add("chosen");
      button.addEventListener("click", () => {
        S.piece = { color: c, floors: f };
        S.target = null;
        $("why").textContent = "";
        notice("");
        render();
      });
      pieces.append(button);
    }
  }
  box.replaceChildren(title, pieces);
  if (S.target) box.append(confirmPanel());
  else if (S.piece) {
    const n = legalBuilds().size;
    box.append(el("p", "hint", n ? `${n} highlighted block${n > 1 ? "s" : ""}: click one to see what it would change.` : "This piece has no legal block: pick another."));
  }
}

function tower(color, floors) {
  const t = el("span", `tower c${color}`);
  t.style.setProperty("--floors", String(floors));
  return t;
}

function confirmPanel() {
  const { move, preview } = S.target;
  const panel = el("div", "confirm");
  panel.append(el("p", "", `Build ${move.floors} floor${move.floors > 1 ? "s" : ""} of ${colorText(move.color ?? playerColors(me())[0])} on ${blockText(move.block)}?`));
  if (preview === undefined) panel.append(el("p", "hint", "Asking the service what it would change…"));
  else if (preview === null) panel.append(el("p", "hint", "(The service offers no preview to this table's seats.)"));
  else {
    const deltas = el("p", "deltas");
    deltas.append("If the round ended now: ");
    const parts = (S.table.view.rules.colors).map((cs, p) => {
      const d = cs.reduce((s, c) => s + (preview.deltas?.[c] ?? 0), 0);
      const span = el("span", d > 0 ? "up" : d < 0 ? "down" : "", `${seatName(p)} ${d > 0 ? "+" : ""}${d}`);
      return span;
    });
    parts.forEach((part, i) => deltas.append(i ? ", " : "", part));
    panel.append(deltas);
    for (const t of preview.takeovers ?? []) panel.append(el("p", "hint", `Takes the building from ${colorText(t.ownerBefore)} (${t.heightBefore} → ${t.heightAfter} floors).`));
    for (const m of preview.majorities ?? []) panel.append(el("p", "hint", humane(m.explanation)));
    for (const t of preview.tallest ?? []) if (t.explanation) panel.append(el("p", "hint", humane(t.explanation)));
  }
  const yes = el("button", "primary", "Build here");
  yes.id = "confirm-build";
  yes.addEventListener("click", () => play(move));
  const no = el("button", "quiet", "Cancel");
  no.addEventListener("click", () => {
    S.target = null;
    render();
  });
  panel.append(yes, " ", no);
  return panel;
}

function drawSelect(box) {
  const view = S.table.view;
  const moves = S.table.moves.filter((m) => m.type === "select");
  const colors = [...new Set(moves.map((m) => m.color))];
  if (!colors.includes(S.pickColor)) S.pickColor = colors[0];
  const options = moves.filter((m) => m.color === S.pickColor);
  const need = view.rules.piecesPerRound;
  const chosen = S.pick.reduce((s, k) => s + k, 0);
  const fits = (pick) => options.some((m) => m.pieces.every((k, i) => k >= pick[i]));
  const exact = options.find((m) => m.pieces.every((k, i) => k === S.pick[i]));
  box.replaceChildren();
  const head = el("h2", "");
  head.append(`Choose ${need} pieces for `, chip(S.pickColor), ` (${chosen} of ${need})`);
  box.append(head);
  const sizes = el("div", "pieces");
  for (let f = 1; f <= 4; f++) {
    const more = S.pick.slice();
    more[f - 1] += 1;
    const button = el("button", "piece-button size");
    button.type = "button";
    button.dataset.floors = String(f);
    button.append(el("span", "floors", `${f} floor${f > 1 ? "s" : ""}`), el("span", "count", `${S.pick[f - 1]} chosen · ${view.supply[S.pickColor][f - 1]} in supply`));
    button.append(tower(S.pickColor, f));
    button.disabled = chosen >= need || !fits(more);
    button.addEventListener("click", () => {
      S.pick = more;
      render();
    });
    sizes.append(button);
  }
  box.append(sizes);
  const clear = el("button", "quiet", "Start over");
  clear.disabled = chosen === 0;
  clear.addEventListener("click", () => {
    S.pick = [0, 0, 0, 0];
    render();
  });
  const confirm = el("button", "primary", "Take these pieces");
  confirm.id = "confirm-select";
  confirm.disabled = !exact;
  confirm.addEventListener("click", () => play(exact));
  box.append(confirm, " ", clear);
}

// RULES D5: with no legal build, a card is discarded and a piece given up. One row per piece,
// with the cards to discard drawn as cards: pick the pair in one click.
function drawForfeit(box) {
  const moves = S.table.moves.filter((m) => m.type === "forfeit");
  box.replaceChildren(el("h2", "", "No block can take any of your pieces"));
  box.append(el("p", "hint", "Give up one piece and discard one card (RULES D5): click the card beside the piece."));
  const rows = new Map();
  for (const move of moves) {
    const color = move.color ?? playerColors(me())[0];
    const key = `${color}:${move.floors}`;
    if (!rows.has(key)) {
      const row = el("div", "forfeit-row");
      row.append(chip(color), ` ${move.floors} floor${move.floors > 1 ? "s" : ""}, discard: `);
      rows.set(key, row);
      box.append(row);
    }
    const card = drawCard(move.card, { onClick: () => play(move) });
    card.classList.add("forfeit");
    card.title = `give up a ${move.floors}-floor ${COLORS[color].name} piece and discard the ${SPOTS[move.card]} card`;
    rows.get(key).append(card);
  }
}

function drawHand() {
  const view = S.table.view;
  const building = S.table.moves.length > 0 && view.phase === "build";
  const cards = (view.hand ?? []).map((position) =>
    drawCard(position, {
      chosen: S.hoverCard === position,
      onHover: (p) => {
        S.hoverCard = p;
        drawBoard($("board"), view, side(), marks, onBlock);
        explainOnHover();
      },
    }));
  $("hand").replaceChildren(...cards);
  $("hand").classList.toggle("active", building);
}

function drawEnding() {
  const box = $("ending");
  const { table } = S;
  if (table.status !== "over" || !table.view) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const view = table.view;
  box.replaceChildren(el("h2", "", "Final ranking"));
  const ranking = el("ol", "ranking");
  for (const r of table.ranking ?? []) {
    const item = el("li");
    item.append(`${r.place}. `, who(r.player), ` ${r.score} points`);
    ranking.append(item);
  }
  box.append(ranking);
  // Each round's breakdown, per player (summed over a player's colors).
  const grid = el("table", "breakdown");
  const head = el("tr");
  head.append(el("th", "", "round"), ...view.rules.colors.map((_, p) => el("th", "", seatName(p))));
  grid.append(head);
  const urban = Boolean(view.rules.variants.urbanRules);
  for (const record of view.history) {
    const row = el("tr");
    row.append(el("th", "", String(record.round)));
    view.rules.colors.forEach((cs) => {
      const part = (k) => cs.reduce((s, c) => s + record.scores[c][k], 0);
      // The majorities' points are what the total holds beyond the other parts (edition-free).
      const sum = (k) => (k === "majorities" ? part("total") - part("buildings") - part("tallest") - part("urban") : part(k));
      const cell = el("td");
      cell.append(el("b", "", String(sum("total"))));
      cell.append(el("span", "hint", ` = ${sum("buildings")} + ${sum("majorities")} + ${sum("tallest")}${urban ? ` + ${sum("urban")}` : ""}`));
      row.append(cell);
    });
    grid.append(row);
  }
  box.append(grid, el("p", "hint", `Each round: total = buildings + majorities + tallest${urban ? " + urban" : ""}.`));
  if (bearer()) {
    const again = el("button", "primary", table.rematch ? "Go to the rematch" : "Rematch");
    again.id = "rematch";
    // The service seats the caller at the rematch, whether they open it or join it.
    again.addEventListener("click", () => rematch().catch((error) => notice(error.message)));
    box.append(again);
  }
}

// -- start -------------------------------------------------------------------------------------
async function init() {
  $("create").addEventListener("submit", createTable);
  $("chat-form").addEventListener("submit", sendChat);
  $("copy-link").addEventListener("click", () => {
    $("share-link").select();
    navigator.clipboard?.writeText($("share-link").value).catch(() => {});
  });
  try {
    S.rules = await api.call("/rules");
  } catch (error) {
    notice(`The service does not answer: ${error.message}`);
    return;
  }
  if (S.tableId) await showTable();
  else {
    showLobby();
    document.body.dataset.ready = "true";
  }
}

init();
