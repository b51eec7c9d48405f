// The service as this page uses it: the tables API (DESIGN §9) and the stateless endpoints,
// JSON over fetch, Server-Sent Events for a table's changes, and the seat tokens this tab holds.

import { known, t } from "./i18n.js";

export const ROOT = new URL("..", document.baseURI).pathname.replace(/\/$/, "");
const V1 = ROOT + "/v1";

// A refusal, said in the page's language: the catalogue's text for its code (wire/codes.py),
// with the service's own words as the detail where they name what was wrong; the service's
// message as it came for a code the catalogues do not know.
export class ApiError extends Error {
  constructor(status, body) {
    const code = body.code || `HTTP_${status}`;
    const detail = body.message || "";
    super(known(`error.${code}`) ? t(`error.${code}`, { detail }) : detail || t("error.http", { status }));
    this.status = status;
    this.code = code;
    this.body = body;
    this.detail = detail;
  }
}

export async function call(path, { body, bearer, method } = {}) {
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const response = await fetch(V1 + path, {
    method: method || (body === undefined ? "GET" : "POST"),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

// -- what this tab holds ------------------------------------------------------------------
// Session storage: per tab, survives a reload, gone with the tab. A seat token lets a reload or
// a lost connection rejoin the same seat; the host token lets the table's creator start it.
const key = (kind, tableId) => `manhattan.${kind}.${tableId}`;

export function seatOf(tableId) {
  const raw = sessionStorage.getItem(key("seat", tableId));
  return raw ? JSON.parse(raw) : null; // {seatToken, name}
}
export function keepSeat(tableId, seat) {
  sessionStorage.setItem(key("seat", tableId), JSON.stringify(seat));
}
export function dropSeat(tableId) {
  sessionStorage.removeItem(key("seat", tableId));
}
export function hostOf(tableId) {
  return sessionStorage.getItem(key("host", tableId));
}
export function keepHost(tableId, token) {
  sessionStorage.setItem(key("host", tableId), token);
}
export function savedLog(tableId) {
  const raw = sessionStorage.getItem(key("log", tableId));
  return { version: 0, lines: [], last: null, lastMove: null, ...(raw ? JSON.parse(raw) : {}) };
}
export function keepLog(tableId, log) {
  sessionStorage.setItem(key("log", tableId), JSON.stringify(log));
}
export function myName() {
  return localStorage.getItem("manhattan.name") || "";
}
export function keepName(name) {
  localStorage.setItem("manhattan.name", name);
}

// -- live events ----------------------------------------------------------------------------
const EVENT_TYPES = ["snapshot", "joined", "left", "started", "move", "chat", "timeout", "over"];

// Opens the table's stream (a seat asks for a single-use ticket first: EventSource sends no
// headers) and reopens it after a loss, with a fresh ticket. `onEvent(type, data, id)` for every
// event; `onState("live" | "reconnecting")` as the connection comes and goes.
export function follow(tableId, bearerFn, onEvent, onState) {
  let source = null;
  let stopped = false;
  let retry = 500;

  async function open() {
    if (stopped) return;
    let url = `${V1}/tables/${encodeURIComponent(tableId)}/events`;
    const bearer = bearerFn();
    try {
      if (bearer) {
        const { ticket } = await call(`/tables/${encodeURIComponent(tableId)}/ticket`, { body: {}, bearer });
        url += `?ticket=${encodeURIComponent(ticket)}`;
      }
    } catch (error) {
      if (stopped) return;
      onState("reconnecting", error);
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 8000);
      return;
    }
    if (stopped) return; // stopped while the ticket was on its way
    source = new EventSource(url);
    source.onopen = () => {
      retry = 500;
      onState("live");
    };
    source.onerror = () => {
      // The ticket was single use: the browser's own retry would be refused, so start over.
      source.close();
      if (stopped) return;
      onState("reconnecting");
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 8000);
    };
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        let data = null;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        onEvent(type, data, Number(message.lastEventId));
      });
    }
  }

  open();
  return {
    stop() {
      stopped = true;
      if (source) source.close();
    },
  };
}
