// The lobby: open a table (seats, setup, clock), or pick a public one to watch or join.

import * as api from "./api.js";
import { el } from "./board.js";
import { $, S, notice, params } from "./state.js";

// -- the lobby -------------------------------------------------------------------------------
export function showLobby() {
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

export async function listTables() {
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
