/**
 * Platforms (DESIGN §10): what a platform's server calls with its key (`new ManhattanClient(url,
 * { key })`, sent as `Manhattan-Key`): reserved seats, its players' tables and their ratings;
 * and `verifyWebhook`, the Standard Webhooks signature check of a delivery.
 */
import type { components } from "./generated/openapi.js";
import { ManhattanClientError } from "./errors.js";

type Schemas = components["schemas"];

/** The request header that carries a platform's key. */
export const KEY_HEADER = "manhattan-key";

/** A player's OpenSkill (Plackett-Luce) rating under the calling key; ordinal = mu - 3 sigma. */
export type Rating = Schemas["Rating"];
/** A page of the key's ratings, best ordinal first; `next` is the following page's cursor. */
export type RatingList = Schemas["RatingList"];
/** A reserved seat's token, for the platform to hand to player `id`. */
export type SeatToken = Schemas["SeatToken"];

/** A seat of `createTable({ seats })` kept for a platform's player (its token in `seatTokens`). */
export function reservedSeat(id: string, name: string): { reserved: { id: string; name: string } } {
  return { reserved: { id, name } };
}

/** A delivery whose headers are missing, too old or too new, or whose signature does not match. */
export class WebhookSignatureError extends ManhattanClientError {
  override name = "WebhookSignatureError";
}

export interface VerifyWebhookOptions {
  /** Seconds a delivery's timestamp may be from now (default 300). */
  toleranceSeconds?: number;
  /** Now, in seconds since the epoch (default: the clock). */
  now?: number;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The `webhook-signature` value of a delivery: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export async function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    fromBase64(secret.replace(/^whsec_/, "")),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const head = new TextEncoder().encode(`${id}.${timestamp}.`);
  const data = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const content = new Uint8Array(head.length + data.length);
  content.set(head);
  content.set(data, head.length);
  const digest = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, content));
  return `v1,${toBase64(digest)}`;
}

function equal(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Throws `WebhookSignatureError` unless the delivery (its headers and raw body) was signed with
 * `secret` (`whsec_...`) within the tolerance. Several space-separated signatures (a rotated
 * secret) pass when one matches.
 */
export async function verifyWebhook(
  secret: string,
  headers: Record<string, string> | Headers,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<void> {
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name);
    return found?.[1];
  };
  const id = get("webhook-id");
  const stamp = get("webhook-timestamp");
  const signatures = get("webhook-signature");
  if (!id || !stamp || !signatures) {
    throw new WebhookSignatureError("missing webhook-id, webhook-timestamp or webhook-signature");
  }
  const timestamp = Number(stamp);
  if (!Number.isInteger(timestamp)) throw new WebhookSignatureError("webhook-timestamp is not a number");
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookSignatureError("webhook-timestamp is too far from now");
  }
  const expected = await signWebhook(secret, id, timestamp, body);
  if (!signatures.split(" ").some((given) => given.startsWith("v1,") && equal(given, expected))) {
    throw new WebhookSignatureError("no signature matches");
  }
}
