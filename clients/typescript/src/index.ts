export {
  botChoice,
  DEFAULT_RETRY,
  graphqlResult,
  ManhattanClient,
  newMoveId,
  retryDelays,
  stateRef,
  STREAM_RETRY,
} from "./client.js";
export type {
  AdvanceOptions,
  ClientOptions,
  FetchLike,
  GraphQLMoveRejected,
  RetryPolicy,
  SuggestOptions,
  TableMoveOptions,
} from "./client.js";
export { DEFAULT_IDLE_TIMEOUT_MS, endsGame, tableEventOf, type TableEventsOptions } from "./events.js";
export { PlainTableSocket, REFUSED } from "./plainsocket.js";
export { GRAPHQL_TRANSPORT_WS, TableSocket, type WebSocketFactory, type WebSocketLike } from "./socket.js";
export { LineSplitter, SSEParser, type ServerSentEvent } from "./sse.js";
export { TABLE_EVENT_KINDS } from "./tables.js";
export {
  KEY_HEADER,
  reservedSeat,
  signWebhook,
  verifyWebhook,
  WebhookSignatureError,
  type Rating,
  type RatingList,
  type SeatToken,
  type VerifyWebhookOptions,
} from "./platforms.js";
export type * from "./tables.js";
export * from "./errors.js";
export type * from "./types.js";
export type { components, paths } from "./generated/openapi.js";
