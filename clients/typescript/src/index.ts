export { botChoice, DEFAULT_RETRY, ManhattanClient, retryDelays, stateRef } from "./client.js";
export type { AdvanceOptions, ClientOptions, FetchLike, RetryPolicy, SuggestOptions } from "./client.js";
export * from "./errors.js";
export type * from "./types.js";
export type { components, paths } from "./generated/openapi.js";
