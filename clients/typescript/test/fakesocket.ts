// What the socket tests' fake WebSockets share: open on the next tick, listeners by type, what
// the client sent (parsed), and a close that says its code once.
import type { WebSocketLike } from "../src/index.js";

export type Listener = (event: any) => void;

export abstract class FakeWebSocket implements WebSocketLike {
  readyState = 0;
  readonly sent: any[] = [];
  private readonly listeners = new Map<string, Listener[]>();

  constructor() {
    setTimeout(() => {
      this.readyState = 1;
      this.emit("open", {});
    }, 0);
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    const message = JSON.parse(data);
    this.sent.push(message);
    this.received(message);
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.closed(code, reason);
  }

  /** What the fake service does with a message the client sent. */
  protected abstract received(message: any): void;

  /** Says the close: at once, or later (a subclass's choice). */
  protected closed(code: number, reason: string): void {
    this.emit("close", { code, reason });
  }

  /** A message from the fake service, on the next tick. */
  protected reply(message: unknown): void {
    const data = typeof message === "string" ? message : JSON.stringify(message);
    setTimeout(() => this.emit("message", { data }), 0);
  }

  protected emit(type: string, event: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}
