"""The service's settings, read once from environment variables (documented in the README).

Every variable is optional; the defaults run a single embedded process with no Redis, an
ephemeral token key and generous limits. A malformed value stops the service at start with a
message naming the variable, rather than running with a surprise.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: The reference web page (clients/web/play) in a source checkout; served at /play if it exists.
DEFAULT_WEB_DIR = str(Path(__file__).resolve().parents[2] / "clients" / "web" / "play")


class SettingsError(ValueError):
    """An environment variable that cannot be read as the setting it names."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    #: Redis for the state cache; empty means the in-process LRU (the embedded default).
    redis_url: str = ""
    #: Seconds a cached state or result lives in Redis.
    cache_ttl: int = 86_400
    #: Entries the in-process LRU keeps (states and results together).
    lru_size: int = 10_000
    #: Socket connect/read timeout for Redis, seconds; short so an outage costs little.
    redis_timeout: float = 0.25
    redis_pool_size: int = 32
    #: After a Redis failure, seconds to skip Redis before trying again.
    redis_retry_after: float = 1.0
    max_body_bytes: int = 256 * 1024
    max_moves_per_request: int = 2_000
    graphql_max_depth: int = 10
    graphql_max_aliases: int = 15
    graphql_max_tokens: int = 2_000
    introspection: bool = True
    # -- bounds on every request's work (issue 17) -------------------------------------------
    #: Values in one GraphQL request's variables (lists are capped by max_moves_per_request).
    graphql_max_input_values: int = 20_000
    #: Cost of one GraphQL operation, in moves applied (bots and previews weighted).
    graphql_max_cost: int = 4_000
    #: Bytes of parsed GraphQL documents kept (the parse/validation cache, and compiled plans).
    graphql_cache_bytes: int = 8 << 20
    #: Characters of one GraphQL query document (a token inline is up to max_token_chars).
    graphql_max_query_chars: int = 32_768
    #: A request's head (request line and headers): bytes and header lines; beyond them, 431.
    max_header_bytes: int = 16_384
    max_headers: int = 100
    #: Seconds a client has to send a request's whole head (408), and then its whole body.
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    graphql_ide: bool = True
    #: The GraphQL fast path (compiled plans, one-loop completion); off: strawberry's general
    #: path answers everything. Also off, with a warning, on untested strawberry/graphql-core.
    graphql_fast_path: bool = True
    #: Accept states only as sealed tokens or cached ids, never as plain JSON (DESIGN §7).
    strict_states: bool = False
    #: The current sealing key as ``kid:base64url-key`` (16, 24 or 32 bytes); empty: ephemeral.
    token_key: str = ""
    #: Keys still accepted for reading tokens, comma-separated ``kid:key`` pairs (rotation).
    token_old_keys: tuple[str, ...] = ()
    max_token_chars: int = 16_384
    #: Requests per second per client address; 0 turns rate limiting off.
    rate_limit: float = 0.0
    rate_burst: int = 50
    #: Caps on a bot suggestion's search budget (suggestMove iterations / timeMs).
    bot_max_iterations: int = 20_000
    bot_max_time_ms: int = 2_000
    #: Bot worker processes; 0: one per core but one, left to the event loop (1 to 4).
    bot_workers: int = 0
    #: Bot requests that may wait for a worker; beyond: 503 BOTS_BUSY with Retry-After.
    bot_queue: int = 16
    #: The wall-clock limit of one request's bot work (a suggestion, a whole advance, every
    #: suggestMove of one GraphQL request), whatever the bot's budget says.
    bot_deadline_ms: int = 5_000
    log_level: str = "INFO"
    access_log: bool = True
    #: Seconds ``manhattan serve`` lets in-flight requests finish after SIGTERM.
    graceful_timeout: float = 20.0
    #: The static web page served at /play when the directory exists; "off": not served.
    web_dir: str = DEFAULT_WEB_DIR
    #: Redis for tables (DESIGN §9) when it must differ from REDIS_URL (a no-eviction instance).
    tables_redis_url: str = ""
    #: Seconds a table lives after its last change.
    table_idle_seconds: int = 6 * 3600
    #: Seconds a bot may think for a table move.
    table_bot_seconds: float = 2.0
    #: Bot level that stands in for people who left or ran out of turnSeconds.
    table_stand_in_level: str = "greedy"
    #: Seconds between heartbeats on a table's event stream.
    table_heartbeat_seconds: float = 15.0
    #: GraphQL subscriptions one WebSocket connection may hold at once.
    graphql_max_subscriptions: int = 8

    # -- table streams (push) --------------------------------------------------------------
    #: Open table streams (SSE and subscriptions together) per client address, per process.
    table_streams_per_client: int = 64
    #: Spectators (streams without a seat) of one table, per process.
    table_spectators_per_table: int = 5000

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        read = _Reader(env)
        return cls(
            host=read("MANHATTAN_HOST", str, cls.host),
            port=read("MANHATTAN_PORT", _port, cls.port),
            redis_url=read("REDIS_URL", str, cls.redis_url).strip(),
            cache_ttl=read("MANHATTAN_CACHE_TTL", _positive_int, cls.cache_ttl),
            lru_size=read("MANHATTAN_LRU_SIZE", _positive_int, cls.lru_size),
            redis_timeout=read("MANHATTAN_REDIS_TIMEOUT", _positive_float, cls.redis_timeout),
            redis_pool_size=read("MANHATTAN_REDIS_POOL_SIZE", _positive_int, cls.redis_pool_size),
            redis_retry_after=read(
                "MANHATTAN_REDIS_RETRY_AFTER", _positive_float, cls.redis_retry_after
            ),
            max_body_bytes=read("MANHATTAN_MAX_BODY_BYTES", _positive_int, cls.max_body_bytes),
            max_moves_per_request=read(
                "MANHATTAN_MAX_MOVES_PER_REQUEST", _positive_int, cls.max_moves_per_request
            ),
            graphql_max_depth=read(
                "MANHATTAN_GRAPHQL_MAX_DEPTH", _positive_int, cls.graphql_max_depth
            ),
            graphql_max_aliases=read(
                "MANHATTAN_GRAPHQL_MAX_ALIASES", _positive_int, cls.graphql_max_aliases
            ),
            graphql_max_tokens=read(
                "MANHATTAN_GRAPHQL_MAX_TOKENS", _positive_int, cls.graphql_max_tokens
            ),
            graphql_max_input_values=read(
                "MANHATTAN_GRAPHQL_MAX_INPUT_VALUES", _positive_int, cls.graphql_max_input_values
            ),
            graphql_max_cost=read(
                "MANHATTAN_GRAPHQL_MAX_COST", _positive_int, cls.graphql_max_cost
            ),
            graphql_cache_bytes=read(
                "MANHATTAN_GRAPHQL_CACHE_BYTES", _positive_int, cls.graphql_cache_bytes
            ),
            graphql_max_query_chars=read(
                "MANHATTAN_GRAPHQL_MAX_QUERY_CHARS", _positive_int, cls.graphql_max_query_chars
            ),
            max_header_bytes=read(
                "MANHATTAN_MAX_HEADER_BYTES", _positive_int, cls.max_header_bytes
            ),
            max_headers=read("MANHATTAN_MAX_HEADERS", _positive_int, cls.max_headers),
            header_timeout=read("MANHATTAN_HEADER_TIMEOUT", _positive_float, cls.header_timeout),
            body_timeout=read("MANHATTAN_BODY_TIMEOUT", _positive_float, cls.body_timeout),
            introspection=read("MANHATTAN_INTROSPECTION", _bool, cls.introspection),
            graphql_ide=read("MANHATTAN_GRAPHQL_IDE", _bool, cls.graphql_ide),
            graphql_fast_path=read("MANHATTAN_GRAPHQL_FAST_PATH", _bool, cls.graphql_fast_path),
            strict_states=read("MANHATTAN_STRICT_STATES", _bool, cls.strict_states),
            token_key=read("MANHATTAN_TOKEN_KEY", str, cls.token_key).strip(),
            token_old_keys=read("MANHATTAN_TOKEN_OLD_KEYS", _csv, ()),
            max_token_chars=read("MANHATTAN_MAX_TOKEN_CHARS", _positive_int, cls.max_token_chars),
            rate_limit=read("MANHATTAN_RATE_LIMIT", _non_negative_float, cls.rate_limit),
            rate_burst=read("MANHATTAN_RATE_BURST", _positive_int, cls.rate_burst),
            bot_max_iterations=read(
                "MANHATTAN_BOT_MAX_ITERATIONS", _positive_int, cls.bot_max_iterations
            ),
            bot_max_time_ms=read("MANHATTAN_BOT_MAX_TIME_MS", _positive_int, cls.bot_max_time_ms),
            bot_workers=read("MANHATTAN_BOT_WORKERS", _non_negative_int, cls.bot_workers),
            bot_queue=read("MANHATTAN_BOT_QUEUE", _non_negative_int, cls.bot_queue),
            bot_deadline_ms=read("MANHATTAN_BOT_DEADLINE_MS", _positive_int, cls.bot_deadline_ms),
            log_level=read("MANHATTAN_LOG_LEVEL", _log_level, cls.log_level),
            access_log=read("MANHATTAN_ACCESS_LOG", _bool, cls.access_log),
            graceful_timeout=read(
                "MANHATTAN_GRACEFUL_TIMEOUT", _positive_float, cls.graceful_timeout
            ),
            web_dir=read("MANHATTAN_WEB_DIR", str, cls.web_dir),
            tables_redis_url=read("MANHATTAN_TABLES_REDIS_URL", str, cls.tables_redis_url).strip(),
            table_idle_seconds=read(
                "MANHATTAN_TABLE_IDLE_SECONDS", _positive_int, cls.table_idle_seconds
            ),
            table_bot_seconds=read(
                "MANHATTAN_TABLE_BOT_SECONDS", _positive_float, cls.table_bot_seconds
            ),
            table_stand_in_level=read(
                "MANHATTAN_TABLE_STAND_IN_LEVEL", _bot_level, cls.table_stand_in_level
            ),
            table_heartbeat_seconds=read(
                "MANHATTAN_TABLE_HEARTBEAT_SECONDS", _positive_float, cls.table_heartbeat_seconds
            ),
            graphql_max_subscriptions=read(
                "MANHATTAN_GRAPHQL_MAX_SUBSCRIPTIONS", _positive_int, cls.graphql_max_subscriptions
            ),
            # -- table streams (push) --
            table_streams_per_client=read(
                "MANHATTAN_TABLE_STREAMS_PER_CLIENT", _positive_int, cls.table_streams_per_client
            ),
            table_spectators_per_table=read(
                "MANHATTAN_TABLE_SPECTATORS_PER_TABLE",
                _positive_int,
                cls.table_spectators_per_table,
            ),
        )


class _Reader:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def __call__(self, name: str, parse: Callable[[str], T], default: T) -> T:
        raw = self.env.get(name)
        if raw is None or raw.strip() == "":
            return default
        try:
            return parse(raw.strip())
        except ValueError as exc:
            raise SettingsError(f"{name}={raw!r}: {exc}") from None


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError("a port is 0..65535")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError("expected a positive integer")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("expected an integer >= 0")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("expected a positive number")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError("expected a number >= 0")
    return value


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


def _csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _bot_level(text: str) -> str:
    if text not in ("random", "greedy", "ismcts"):
        raise ValueError("expected random, greedy or ismcts")
    return text


def _log_level(text: str) -> str:
    level = text.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError("expected DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return level
