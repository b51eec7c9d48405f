/**
 * Server-Sent Events, parsed as the HTML standard says (§9.2.6), from text chunks of any size:
 * what `fetch` + `ReadableStream` hand over in browsers and Node 18+. No I/O here, so tests feed
 * it strings.
 */

export interface ServerSentEvent {
  /** `"message"` unless the event named itself. */
  event: string;
  data: string;
  /** The last event id seen (it carries over from earlier events). */
  id: string | undefined;
  retry: number | undefined;
}

/** Splits a stream of text chunks into lines; a line ends at `\r\n`, `\n` or `\r`. */
export class LineSplitter {
  private buffer = "";
  private pendingCR = false;

  push(chunk: string): string[] {
    const lines: string[] = [];
    let text = chunk;
    if (this.pendingCR) {
      // A "\r" that ended the last chunk already ended its line; skip its "\n" if one follows.
      this.pendingCR = false;
      if (text.startsWith("\n")) text = text.slice(1);
    }
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c !== "\n" && c !== "\r") continue;
      lines.push(this.buffer + text.slice(start, i));
      this.buffer = "";
      if (c === "\r") {
        if (i + 1 === text.length) this.pendingCR = true;
        else if (text[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.buffer += text.slice(start);
    return lines;
  }

  /** Forget a partial line (the connection broke). */
  reset(): void {
    this.buffer = "";
    this.pendingCR = false;
  }
}

/**
 * Feed it lines; it returns an event when a blank line ends one. Comment lines (`: ping`, the
 * service's heartbeat) dispatch nothing. An `id:` counts once its event is dispatched, so an
 * event cut off by a broken connection is asked for again with `Last-Event-ID`.
 */
export class SSEParser {
  lastEventId: string | undefined;
  retry: number | undefined;
  private idBuffer: string | undefined;
  private eventType = "";
  private data: string[] = [];
  private firstLine = true;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
  }

  feed(rawLine: string): ServerSentEvent | undefined {
    let line = rawLine;
    if (this.firstLine) {
      this.firstLine = false;
      if (line.startsWith("\ufeff")) line = line.slice(1);
    }
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") this.eventType = value;
    else if (name === "data") this.data.push(value);
    else if (name === "id") {
      if (!value.includes("\0")) this.idBuffer = value;
    } else if (name === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return undefined;
  }

  /** Forget a half-received event; the last dispatched id stays. */
  reset(): void {
    this.eventType = "";
    this.data = [];
    this.idBuffer = undefined;
    this.firstLine = true;
  }

  private dispatch(): ServerSentEvent | undefined {
    if (this.idBuffer !== undefined) this.lastEventId = this.idBuffer;
    const event = this.eventType || "message";
    const data = this.data;
    this.eventType = "";
    this.data = [];
    if (data.length === 0) return undefined;
    return { event, data: data.join("\n"), id: this.lastEventId, retry: this.retry };
  }
}
