// The service's GraphQL websocket (graphql-transport-ws), as much of the protocol as the page
// needs: connection_init with the seat token (once: README, "Moves over the websocket"), a
// subscription, one-answer operations (mutations), ping and pong. The browser's WebSocket only.

// The socket went away (closed by either side, never acknowledged, or silent): what was sent on
// it may or may not have arrived.
export class SocketLost extends Error {}

const PROTOCOL = "graphql-transport-ws";
const OPEN_TIMEOUT = 5_000; // from the WebSocket's creation to the connection_ack
const PING_EVERY = 15_000; // a pong must come back before the next ping, or the socket is dead

const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

// A socket to `url` for the seat of `token` (none: a spectator's), once the service
// acknowledged it; rejects with SocketLost if it cannot open (refused, blocked, no answer).
export function openSocket(url, token) {
  return new Promise((resolve, reject) => {
    let ws;
    try {
      ws = new WebSocket(url, PROTOCOL);
    } catch (error) {
      reject(new SocketLost(String(error)));
      return;
    }
    const fail = (why) => {
      clearTimeout(timer);
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      ws.close();
      reject(new SocketLost(why));
    };
    const timer = setTimeout(() => fail("no connection_ack"), OPEN_TIMEOUT);
    ws.onopen = () => ws.send(JSON.stringify({ type: "connection_init", payload: token ? { seatToken: token } : {} }));
    ws.onmessage = (message) => {
      if (parse(message.data)?.type !== "connection_ack") return;
      clearTimeout(timer);
      resolve(new Socket(ws));
    };
    ws.onerror = () => fail("the socket failed");
    ws.onclose = (event) => fail(`closed before its ack (${event.code})`);
  });
}

class Socket {
  constructor(ws) {
    this.ws = ws;
    this.operations = new Map(); // id -> {next(payload), end(error?)}
    this.count = 0;
    this.closed = false;
    this.awaitingPong = false;
    ws.onmessage = (message) => this.receive(parse(message.data));
    ws.onerror = () => {};
    ws.onclose = () => this.shut(new SocketLost("the socket closed"));
    this.pinger = setInterval(() => this.ping(), PING_EVERY);
  }

  get isOpen() {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  // An operation with many answers: `next(payload)` for each, then `end()` once, with an error
  // for the protocol's `error` message (its payload: GraphQL errors) or a lost socket.
  subscribe(query, variables, { next, end }) {
    if (!this.isOpen) throw new SocketLost("the socket is not open");
    const id = String(++this.count);
    this.operations.set(id, { next, end });
    this.ws.send(JSON.stringify({ id, type: "subscribe", payload: { query, variables } }));
    return id;
  }

  // An operation with one answer (a mutation): its `data`, or GraphQLFailure, or SocketLost.
  request(query, variables) {
    return new Promise((resolve, reject) => {
      let answer = null;
      this.subscribe(query, variables, {
        next: (payload) => (answer = payload),
        end: (error) => {
          if (error) reject(error);
          else if (answer?.errors?.length || !answer?.data) reject(new GraphQLFailure(answer?.errors));
          else resolve(answer.data);
        },
      });
    });
  }

  close() {
    if (this.closed) return;
    this.ws.close(1000, "done");
    this.shut(new SocketLost("closed by the page"));
  }

  ping() {
    if (this.awaitingPong) {
      // No pong since the last ping: a connection gone silent (a network that dropped it).
      this.ws.close(4408, "no pong");
      this.shut(new SocketLost("the socket went silent"));
      return;
    }
    if (!this.isOpen) return;
    this.awaitingPong = true;
    this.ws.send(JSON.stringify({ type: "ping" }));
  }

  receive(message) {
    if (!message || this.closed) return;
    if (message.type === "ping") return this.ws.send(JSON.stringify({ type: "pong" }));
    if (message.type === "pong") return (this.awaitingPong = false);
    const operation = this.operations.get(message.id);
    if (!operation) return;
    if (message.type === "next") operation.next(message.payload);
    else if (message.type === "error" || message.type === "complete") {
      this.operations.delete(message.id);
      operation.end(message.type === "error" ? new GraphQLFailure(message.payload) : undefined);
    }
  }

  shut(why) {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pinger);
    const operations = [...this.operations.values()];
    this.operations.clear();
    for (const operation of operations) operation.end(why);
  }
}

// GraphQL errors (not a table's refusal, which is data): the first one's code and message.
export class GraphQLFailure extends Error {
  constructor(errors) {
    const first = Array.isArray(errors) ? errors[0] : null;
    super(first?.message ?? "the operation failed");
    this.code = first?.extensions?.code ?? "GRAPHQL_ERROR";
  }
}
