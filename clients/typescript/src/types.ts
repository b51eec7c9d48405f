/**
 * Names for the wire types, all taken from the generated OpenAPI types
 * (`npm run generate` writes src/generated/openapi.ts from schema/openapi.json).
 */
import type { components } from "./generated/openapi.js";

type Schemas = components["schemas"];

export type State = Schemas["state"];
export type View = Schemas["view"];
export type Move = Schemas["move"];
export type MoveIn = Schemas["MoveIn"];
export type StateRef = Schemas["StateRef"];
export type RulesInfo = Schemas["rules"];
export type Breakdown = Schemas["breakdown"];
export type ErrorBody = Schemas["Error"];
export type ErrorCode = ErrorBody["code"];
export type GameEvent = Schemas["Event"];
/** A state as the service hands it out (GraphQL `SealedState`, Python `SealedState`). */
export type SealedState = Schemas["SealedState"];
/** @deprecated the old name of `SealedState`. */
export type Sealed = SealedState;
export type Transition = Schemas["Transition"];
export type LegalMoves = Schemas["LegalMoves"];
export type Validation = Schemas["Validation"];
export type Score = Schemas["Score"];
export type Suggestion = Schemas["Suggestion"];
export type Replay = Schemas["Replay"];
export type Setup = Schemas["Setup"];
export type GameRecord = Schemas["GameRecord"];
export type BotChoice = Schemas["BotChoice"];
/** random, greedy or ismcts (the default bot everywhere: greedy). */
export type BotLevel = NonNullable<BotChoice["level"]>;

/** What a `state` argument may be: a state, `{id}`, `{token}`, or any result carrying a token. */
export type StateLike = StateRef | SealedState | Transition | Replay;
