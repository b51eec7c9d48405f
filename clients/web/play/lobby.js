// The lobby: open a table (seats, setup, clock), or pick a public one to watch or join.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { el, notice } from "./nodes.js";
import { $, S, params } from "./state.js";

// -- the lobby -------------------------------------------------------------------------------
export function showLobby() {
  $("lobby").hidden = false;
  $("table").hidden = true;
  document.title = `Manhattan: ${t("lobby.title")}`;
  const form = $("create");
  form.elements.name.value = api.myName();
  fill(form.elements.edition, S.rules.editions);
  fill(form.elements.monster, ["", ...S.rules.monsters], (m) => m || t("lobby.noMonster"));
  // Options in the address (?players=3&bot=greedy&monster=baby&rounds=2) fill the form; one
  // the service does not know is said out loud, never dropped.
  const problems = [];
  const players = params.has("players") ? Number(params.get("players")) : 4;
  if (!S.rules.players.includes(players)) problems.push(`players=${params.get("players")} (${t("lobby.badPlayers")})`);
  const bot = params.get("bot");
  if (bot !== null && !S.rules.bots.includes(bot)) {
    problems.push(`bot=${bot} (${t("lobby.bots")}: ${S.rules.bots.join(", ")})`);
  }
  const monster = params.get("monster");
  if (monster !== null && monster !== "" && !S.rules.monsters.includes(monster)) {
    problems.push(`monster=${monster} (${t("lobby.monsters")}: ${S.rules.monsters.join(", ")})`);
  } else if (monster) form.elements.monster.value = monster;
  const edition = params.get("edition");
  if (edition !== null && !S.rules.editions.includes(edition)) {
    problems.push(`edition=${edition} (${t("lobby.editions")}: ${S.rules.editions.join(", ")})`);
  } else if (edition) form.elements.edition.value = edition;
  if (params.has("rounds")) form.elements.rounds.value = params.get("rounds");
  const turn = params.get("turnSeconds");
  if (turn !== null) {
    if (/^[1-9][0-9]*$/.test(turn)) {
      const select = form.elements.turnSeconds;
      if (![...select.options].some((o) => o.value === turn)) select.append(new Option(`${turn} s`, turn));
      select.value = turn;
    } else problems.push(`turnSeconds=${turn} (${t("lobby.badSeconds")})`);
  }
  if (params.has("seed")) problems.push(`seed (${t("lobby.noSeed")})`);
  if (problems.length) notice(t("lobby.notUnderstood", { problems: problems.join("; ") }));
  const count = S.rules.players.includes(players) ? players : 4;
  const kinds = [];
  for (let i = 1; i < 4; i++) kinds.push(i < count ? (bot && S.rules.bots.includes(bot) ? bot : "open") : "none");
  seatRows(kinds);
  listTables();
}

export function fill(select, values, label = (v) => v) {
  select.replaceChildren(...values.map((v) => {
    const option = el("option", "", label(v));
    option.value = v;
    return option;
  }));
}

// Seats 2 to 4: "open" (a person with the link), a bot level, or no seat.
export function seatRows(kinds) {
  const rows = kinds.map((kind, i) => {
    const label = el("label", "", `${t("lobby.seat", { n: i + 2 })} `);
    const select = el("select");
    select.name = `seat${i + 2}`;
    fill(select, ["open", ...S.rules.bots, "none"], (v) =>
      v === "open" ? t("lobby.seatOpen") : v === "none" ? t("lobby.seatNone") : t("lobby.seatBot", { level: v }));
    select.value = kind;
    label.append(select);
    return label;
  });
  $("seat-rows").replaceChildren(el("label", "", t("lobby.seatYou")), ...rows);
}

// One public table: its name, who is seated, its setup as the lobby answer gives it (players,
// edition, variants, clock) and its seats; a seat kept for a rematch names its person.
function tableItem(table) {
  const item = el("li", "listed");
  const link = el("a", "", table.name || t("lobby.unnamed", { id: table.tableId }));
  link.href = `?table=${encodeURIComponent(table.tableId)}`;
  const seated = table.seats.filter((s) => s.kind !== "open");
  const setup = [t("lobby.players", { n: table.seats.length })];
  setup.push(table.turnSeconds ? t("lobby.clock", { s: table.turnSeconds }) : t("lobby.noClock"));
  for (const key of ["edition", "rounds"]) if (table.setup?.[key]) setup.push(`${key} ${table.setup[key]}`);
  const variants = Object.keys(table.setup?.variants ?? {});
  if (variants.length) setup.push(variants.join(", "));
  const host = table.host ?? seated[0]?.name;
  const line = el("span", "hint");
  line.append(host ? ` · ${t("lobby.host", { name: host })}` : "", ` · ${setup.join(" · ")}`);
  const seats = table.seats.map((s) =>
    s.kind === "open" ? (s.keptFor ? `${t("seat.open")} (${s.keptFor})` : t("seat.open")) : s.kind === "bot" ? `${s.name ?? ""} (${t("tag.bot")})` : s.name);
  line.append(` · ${t("lobby.seatsTaken", { filled: seated.length, all: table.seats.length })}: ${seats.join(", ")}`);
  item.append(link, line);
  return item;
}

// The lobby comes in pages, newest activity first: the first page is refreshed every five
// seconds until the "more tables" button asks for the next one, whose tables are appended (then the list stays put).
let extraPages = false;

function moreItem(next) {
  const item = el("li", "listed");
  const button = el("button", "with-icon");
  button.type = "button";
  button.append(icon("more"), el("span", "sr-only", t("lobby.more")));
  button.addEventListener("click", async () => {
    button.disabled = true;
    extraPages = true;
    try {
      const page = await api.call(`/tables?cursor=${encodeURIComponent(next)}`);
      item.replaceWith(...page.tables.map(tableItem), ...(page.next ? [moreItem(page.next)] : []));
    } catch (error) {
      item.replaceWith(el("li", "hint", t("lobby.cannotList", { error: error.message })));
    }
  });
  item.append(button);
  return item;
}

export async function listTables() {
  if (!$("lobby").hidden) {
    if (!extraPages) {
      try {
        const { tables, next } = await api.call("/tables");
        const items = tables.map(tableItem);
        if (next) items.push(moreItem(next));
        $("table-list").replaceChildren(...(items.length ? items : [el("li", "hint", t("lobby.none"))]));
      } catch (error) {
        $("table-list").replaceChildren(el("li", "hint", t("lobby.cannotList", { error: error.message })));
      }
    }
    setTimeout(listTables, 5000);
  }
}

export async function createTable(event) {
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
  const body = { setup, seats, public: form.public.checked, name: form.table.value.trim() || t("lobby.defaultName", { name }) };
  if (form.turnSeconds.value) body.turnSeconds = Number(form.turnSeconds.value);
  $("create-button").disabled = true;
  try {
    const created = await api.call("/tables", { body });
    api.keepHost(created.tableId, created.hostToken);
    const joined = await api.call(`/tables/${created.tableId}/join`, { body: { name, seat: 0 } });
    api.keepSeat(created.tableId, { seatToken: joined.seatToken, name });
    location.search = `?table=${encodeURIComponent(created.tableId)}`;
  } catch (error) {
    notice(t("lobby.cannotOpen", { error: error.message }));
    $("create-button").disabled = false;
  }
}
