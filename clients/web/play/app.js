// Manhattan reference frontend: a whole game against bots through the public REST API (/v1).
//
// What this page holds (DESIGN §7): player 0's view and a sealed token issued to player 0 (an
// opaque string it cannot read, and which the service answers only as player 0). It never
// receives a full state or a full-information token: every request carries the header
// `Manhattan-Player: 0`, so the service addresses every answer to player 0, and the page refuses
// an answer that carries a state. Bots move on the server through POST /v1/advance, each
// deciding from its own seat's view; the page sends the game id it started with, so a token of
// another game is refused.

const API = new URL("..", document.baseURI).pathname.replace(/\/$/, "") + "/v1";
const ME = 0;
const NAMES = ["Manhattan", "Cairo", "São Paulo", "Frankfurt", "Sydney", "Hong Kong"];
const COLOR_NAMES = ["Red", "Blue", "Green", "Yellow"];
const FILLS = ["#d1495b", "#2e6fd8", "#2a9d5c", "#f2c14e"];
const $ = (id) => document.getElementById(id);

const table = { token: null, gameId: null, view: null, bot: "greedy", seed: 0, busy: false };

async function api(path, body) {
  const response = await fetch(API + path, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "manhattan-player": String(ME),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${answer.code || response.status}: ${answer.message || ""}`);
  if ("state" in answer || "stateId" in answer) throw new Error("the service sent a full state");
  return answer;
}

function say(text) {
  $("status").textContent = text;
}

function log(text) {
  const item = document.createElement("li");
  item.textContent = text;
  $("log").prepend(item);
}

// -- game flow -------------------------------------------------------------------------------
async function start(event) {
  event.preventDefault();
  const form = new FormData($("setup"));
  const setup = { players: Number(form.get("players")) };
  if (form.get("seed")) setup.seed = String(form.get("seed"));
  if (form.get("rounds")) setup.rounds = Number(form.get("rounds"));
  if (form.get("monster")) setup.variants = { monster: String(form.get("monster")) };
  table.bot = String(form.get("bot"));
  table.seed = 0;
  $("log").replaceChildren();
  $("ranking").hidden = true;
  try {
    const game = await api("/games", setup); // addressed to player 0: a view and their token
    table.gameId = game.gameId;
    take(game);
    await advance();
  } catch (error) {
    say(`Could not start: ${error.message}`);
  }
}

function take(answer) {
  table.token = answer.token;
  table.view = answer.view;
  draw();
}

// The human's move (if any), then the bots for every other seat until it is the human's turn or
// the game is over: one request.
async function advance(move) {
  say(move ? "Playing your move; the bots are thinking…" : "The bots are thinking…");
  const step = await api("/advance", {
    state: { token: table.token, game: table.gameId },
    ...(move ? { move } : {}),
    bot: { level: table.bot, seed: table.seed },
  });
  table.seed += step.moves.length;
  // The log shows the newest first: this step's events, headed by the moves that made them.
  for (const event of step.events) describe(event);
  if (step.moves.length) log(step.moves.map((m) => `${who(m.player)}: ${m.notation}`).join(" · "));
  take(step);
  if (table.view.phase === "over") {
    finish();
  } else {
    await offerMoves();
  }
}

async function offerMoves() {
  const { moves } = await api("/legal-moves", { state: { token: table.token, game: table.gameId } });
  const phase = table.view.phase === "select" ? "select your pieces" : "build";
  say(`Round ${table.view.round} of ${table.view.rules.rounds}: your turn to ${phase}.`);
  const buttons = moves.map((move) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.dataset.notation = move.notation;
    button.textContent = label(move);
    button.addEventListener("click", () => choose(move));
    return button;
  });
  $("moves").replaceChildren(...buttons);
}

async function choose(move) {
  if (table.busy) return;
  table.busy = true;
  $("moves").replaceChildren();
  try {
    await advance(move);
  } catch (error) {
    say(`Error: ${error.message}`);
  } finally {
    table.busy = false;
  }
}

function finish() {
  const last = table.view.history.length;
  say(`Game over after ${last} rounds.`);
  $("moves").replaceChildren();
}

// -- text ------------------------------------------------------------------------------------
function label(move) {
  if (move.type === "select") {
    return `${move.notation}  ${COLOR_NAMES[move.color]}: ${move.pieces.join(" / ")} × 1-4 floors`;
  }
  if (move.type === "build") {
    const [n, r, c] = move.block;
    return `${move.notation}  card ${move.card} → ${move.floors} floor(s) on ${NAMES[n]} (${r},${c})`;
  }
  return `${move.notation}  discard card ${move.card}, forfeit a ${move.floors}-floor piece`;
}

const who = (player) => (player === ME ? "you" : `player ${player}`);
const where = ([n, r, c]) => `${NAMES[n]} (${r},${c})`;

function describe(event) {
  switch (event.type) {
    case "piecePlaced":
      log(`  ${COLOR_NAMES[event.color]} builds on ${where(event.block)}, now ${event.height} high`);
      break;
    case "takeover":
      log(`  ${COLOR_NAMES[event.to]} takes the building from ${COLOR_NAMES[event.from]}`);
      break;
    case "cardDrawn":
      if (event.player === ME) log(`  you draw card ${event.card}`);
      break; // other players' draws are private (RULES §11)
    case "roundScored":
      log(`Round ${event.round} scored: ${event.totals.map((t, c) => `${COLOR_NAMES[c]} ${t}`).join(", ")}`);
      break;
    case "gameOver":
      showRanking(event.ranking);
      break;
    case "pieceForfeited":
      log(`  ${who(event.player)} cannot build: forfeits a ${event.floors}-floor piece`);
      break;
    case "monsterMoved":
      log(`  the monster moves to ${where(event.to)}`);
      break;
    case "buildingDestroyed":
      log(`  the monster destroys the building on ${where(event.block)}`);
      break;
    case "pieceRemoved":
      log(`  the monster knocks the top piece off ${where(event.block)}`);
      break;
    default:
      break;
  }
}

function showRanking(ranking) {
  const lines = ranking.map((p) => `${p.place}. player ${p.player}${p.player === ME ? " (you)" : ""}: ${p.score}`);
  const box = $("ranking");
  box.replaceChildren(...["Final ranking", ...lines].map((text) => {
    const line = document.createElement("div");
    line.textContent = text;
    return line;
  }));
  box.hidden = false;
}

// -- drawing ---------------------------------------------------------------------------------
function draw() {
  drawBoard(table.view);
  drawHand(table.view);
  drawPieces(table.view);
  drawScores(table.view);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawBoard(view) {
  const heights = view.board.flatMap((hood) => hood.map((b) => b.reduce((s, [, f]) => s + f, 0)));
  const top = Math.max(...heights);
  const tallest = top > 0 && heights.filter((h) => h === top).length === 1 ? heights.indexOf(top) : -1;
  const hoods = view.board.map((blocks, n) => {
    const owners = blocks.filter((b) => b.length).map((b) => b[b.length - 1][0]);
    const counts = COLOR_NAMES.map((_, c) => owners.filter((o) => o === c).length);
    const best = Math.max(...counts);
    const majority = best > 0 && counts.filter((k) => k === best).length === 1 ? counts.indexOf(best) : -1;
    const box = el("div", majority >= 0 ? "hood majority" : "hood");
    box.dataset.neighborhood = String(n);
    if (majority >= 0) box.style.borderColor = FILLS[majority];
    box.append(el("h3", "", `${n} ${NAMES[n]}${majority >= 0 ? ` · ${COLOR_NAMES[majority]}` : ""}`));
    const grid = el("div", "blocks");
    blocks.forEach((building, b) => grid.append(drawBlock(view, n, b, building, n * 9 + b === tallest)));
    box.append(grid);
    return box;
  });
  $("board").replaceChildren(...hoods);
}

function drawBlock(view, n, b, building, tallest) {
  const block = el("div", "block");
  const height = building.reduce((s, [, f]) => s + f, 0);
  block.title = `${NAMES[n]} (${Math.floor(b / 3)},${b % 3})`;
  if (building.length) {
    const owner = building[building.length - 1][0];
    block.classList.add("owned");
    block.style.borderColor = FILLS[owner];
    block.title += `: ${height} floors, owner ${COLOR_NAMES[owner]}`;
    const stack = el("div", "stack");
    for (const [color, floors] of building) {
      const piece = el("div", "piece");
      piece.style.height = `${Math.max(2, Math.min(5, 34 / height) * floors)}px`;
      piece.style.background = FILLS[color];
      stack.append(piece);
    }
    block.append(stack, el("span", "height", String(height)));
  }
  if (tallest) {
    block.classList.add("tallest");
    block.title += " (tallest)";
  }
  const monster = view.monster;
  if (monster && monster[0] === n && monster[1] * 3 + monster[2] === b) block.append(el("span", "monster", "M"));
  return block;
}

function drawHand(view) {
  const cards = view.hand.map((card) => {
    const grid = el("div", "card");
    grid.append(el("span", "card-label", `card ${card}`));
    for (let i = 0; i < 9; i++) grid.append(el("span", i === card ? "on" : ""));
    return grid;
  });
  $("hand").replaceChildren(...cards);
}

function drawPieces(view) {
  const rows = [el("tr")];
  rows[0].append(el("th", "", "color"), el("th", "", "supply 1/2/3/4"), el("th", "", "selected"));
  view.rules.colors.forEach((colors, player) => {
    for (const c of colors) {
      const row = el("tr");
      const name = el("td");
      const swatch = el("span", "swatch");
      swatch.style.background = FILLS[c];
      name.append(swatch, `P${player} ${COLOR_NAMES[c]}`);
      row.append(name, el("td", "", view.supply[c].join("/")), el("td", "", view.selected[c].join("/")));
      rows.push(row);
    }
  });
  $("pieces").replaceChildren(...rows);
}

function drawScores(view) {
  const head = el("tr");
  head.append(el("th", "", "player"), ...view.history.map((r) => el("th", "", `R${r.round}`)), el("th", "", "total"));
  const rows = view.rules.colors.map((colors, player) => {
    const row = el("tr");
    row.append(el("td", "", player === ME ? "you" : `P${player}`));
    for (const record of view.history) {
      row.append(el("td", "", String(colors.reduce((s, c) => s + record.scores[c].total, 0))));
    }
    row.append(el("td", "", String(colors.reduce((s, c) => s + view.scores[c], 0))));
    return row;
  });
  $("scores").replaceChildren(head, ...rows);
}

// -- start -----------------------------------------------------------------------------------
async function init() {
  $("setup").addEventListener("submit", start);
  const params = new URLSearchParams(location.search);
  for (const name of ["players", "rounds", "seed", "monster"]) {
    if (params.has(name)) $("setup").elements[name].value = params.get(name);
  }
  try {
    const rules = await api("/rules");
    const levels = Array.isArray(rules.bots) ? rules.bots : ["random"];
    $("bot").replaceChildren(...levels.map((level) => el("option", "", String(level))));
    // The service's default bot (greedy) unless the query string names another.
    $("bot").value = params.get("bot") ?? (levels.includes("greedy") ? "greedy" : String(levels[0]));
    document.body.dataset.ready = "true";
  } catch (error) {
    say(`The service does not answer: ${error.message}`);
  }
}

init();
