"""The service's settings, read once from environment variables (documented in the README).

Every variable is optional; the defaults run a single embedded process with no Redis, tables
and the token key kept in a data directory (``./manhattan-data``) and generous limits. A
malformed value stops the service at start with a message naming the variable, rather than
running with a surprise. ``Settings()`` built in code (tests, embedding) differ in one default:
``data_dir`` is ``:memory:``, so they write no files unless asked to.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from manhattan.bots.choice import (
    DEFAULT_LEVEL,
    LEVELS,
    SERVICE_MAX_ITERATIONS,
    SERVICE_MAX_TIME_MS,
)

T = TypeVar("T")

#: The data directory of ``manhattan serve`` without Redis (relative to the working directory).
DEFAULT_DATA_DIR = "manhattan-data"
#: ``MANHATTAN_DATA_DIR`` value that keeps tables in memory (lost on exit) and the key ephemeral.
MEMORY_DATA_DIR = ":memory:"

#: The reference web page (clients/web/play) in a source checkout; served at /play if it exists.
DEFAULT_WEB_DIR = str(Path(__file__).resolve().parents[2] / "clients" / "web" / "play")


class RedisOptions(TypedDict):
    """``Settings.redis_options``: keyword arguments of the store makers."""

    timeout: float
    pool_size: int
    pool_timeout: float


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
    #: Socket connect/read timeout for Redis, seconds: long enough for a busy event loop to
    #: read a reply, short enough that a hung Redis costs little (the cache's circuit).
    redis_timeout: float = 2.0
    redis_pool_size: int = 64
    #: Seconds a Redis call waits for a free pooled connection (a busy pool is not an outage).
    redis_pool_timeout: float = 5.0
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
    #: Caps on a bot suggestion's search budget (suggestMove iterations / timeMs); by default
    #: the most a request may ask for (``BotChoice``'s bounds), which the caps lower, never raise.
    bot_max_iterations: int = SERVICE_MAX_ITERATIONS
    bot_max_time_ms: int = SERVICE_MAX_TIME_MS
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
    #: Without Redis for tables: the directory of their SQLite database and of the token key
    #: (when MANHATTAN_TOKEN_KEY is not set); ``:memory:`` keeps both in memory.
    data_dir: str = MEMORY_DATA_DIR
    #: Seconds a table lives after its last change.
    table_idle_seconds: int = 6 * 3600
    #: Seconds a bot may think for a table move.
    table_bot_seconds: float = 2.0
    #: Bot level that stands in for people who left or ran out of turnSeconds.
    table_stand_in_level: str = DEFAULT_LEVEL
    #: Seconds between heartbeats on a table's event stream.
    table_heartbeat_seconds: float = 15.0
    #: GraphQL subscriptions one WebSocket connection may hold at once.
    graphql_max_subscriptions: int = 8

    # -- table streams (push) --------------------------------------------------------------
    #: Open table streams (SSE and subscriptions together) per client address, per process.
    table_streams_per_client: int = 64
    #: Spectators (streams without a seat) of one table, per process.
    table_spectators_per_table: int = 5000

    # -- quotas for anonymous callers, per client address and window (0: off) ----------------
    quota_creates: int = 30
    quota_tickets: int = 300
    quota_joins: int = 60
    quota_chat: int = 60
    #: Seconds of each quota's window.
    quota_window: float = 60.0

    # -- platforms (DESIGN §10) ------------------------------------------------------------
    #: Platform keys as ``name=secret`` pairs; ``api_keys_file`` names a file of more, one a line.
    api_keys: tuple[str, ...] = ()
    api_keys_file: str = ""
    #: CIDRs a webhook may resolve to although private, loopback, link-local or reserved.
    webhook_allow: tuple[str, ...] = ()
    #: Seconds one webhook delivery may take; first retry after ``webhook_retry_seconds``
    #: (doubling, up to an hour, for 3 days); a worker's claim on a delivery lasts
    #: ``webhook_lease_seconds`` (then another replica takes it).
    webhook_timeout: float = 5.0
    webhook_retry_seconds: float = 1.0
    webhook_lease_seconds: float = 30.0
    #: Proxies (CIDRs) whose ``X-Forwarded-For`` names the client address; others are the client.
    trusted_proxies: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment names (``_VARIABLES``); the rest keep their defaults,
        but for ``data_dir``, whose default there is ``DEFAULT_DATA_DIR``."""
        env = os.environ if environ is None else environ
        read = _Reader(env)
        values: dict[str, Any] = {"data_dir": DEFAULT_DATA_DIR}
        for field, variable, parse in _VARIABLES:
            values[field] = read(variable, parse, values.get(field, getattr(cls, field)))
        return cls(**values)

    @property
    def redis_options(self) -> RedisOptions:
        """What every Redis client of the service is opened with: the reply timeout and the
        connection pool (its size, and how long a call waits for a free connection)."""
        return RedisOptions(
            timeout=self.redis_timeout,
            pool_size=self.redis_pool_size,
            pool_timeout=self.redis_pool_timeout,
        )

    @property
    def tables_url(self) -> str:
        """The Redis that holds tables; empty: the embedded store."""
        return self.tables_redis_url or self.redis_url

    @property
    def data_path(self) -> Path | None:
        """The data directory the embedded store and the token key use; None with Redis for
        tables or with ``:memory:``."""
        if self.tables_url or self.data_dir == MEMORY_DATA_DIR:
            return None
        return Path(self.data_dir).expanduser()


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


def _cidrs(text: str) -> tuple[str, ...]:
    """Comma-separated networks (``10.0.0.0/8``, ``::1``), each checked and kept normalized."""
    return tuple(str(ipaddress.ip_network(part, strict=False)) for part in _csv(text))


def _bot_level(text: str) -> str:
    if text not in LEVELS:
        raise ValueError(f"expected {', '.join(LEVELS[:-1])} or {LEVELS[-1]}")
    return text


def _log_level(text: str) -> str:
    level = text.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError("expected DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return level


#: Each setting read from the environment: (field, variable, parser).
_VARIABLES: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("host", "MANHATTAN_HOST", str),
    ("port", "MANHATTAN_PORT", _port),
    ("redis_url", "REDIS_URL", str),
    ("cache_ttl", "MANHATTAN_CACHE_TTL", _positive_int),
    ("lru_size", "MANHATTAN_LRU_SIZE", _positive_int),
    ("redis_timeout", "MANHATTAN_REDIS_TIMEOUT", _positive_float),
    ("redis_pool_size", "MANHATTAN_REDIS_POOL_SIZE", _positive_int),
    ("redis_pool_timeout", "MANHATTAN_REDIS_POOL_TIMEOUT", _positive_float),
    ("redis_retry_after", "MANHATTAN_REDIS_RETRY_AFTER", _positive_float),
    ("max_body_bytes", "MANHATTAN_MAX_BODY_BYTES", _positive_int),
    ("max_moves_per_request", "MANHATTAN_MAX_MOVES_PER_REQUEST", _positive_int),
    ("graphql_max_depth", "MANHATTAN_GRAPHQL_MAX_DEPTH", _positive_int),
    ("graphql_max_aliases", "MANHATTAN_GRAPHQL_MAX_ALIASES", _positive_int),
    ("graphql_max_tokens", "MANHATTAN_GRAPHQL_MAX_TOKENS", _positive_int),
    ("graphql_max_input_values", "MANHATTAN_GRAPHQL_MAX_INPUT_VALUES", _positive_int),
    ("graphql_max_cost", "MANHATTAN_GRAPHQL_MAX_COST", _positive_int),
    ("graphql_cache_bytes", "MANHATTAN_GRAPHQL_CACHE_BYTES", _positive_int),
    ("graphql_max_query_chars", "MANHATTAN_GRAPHQL_MAX_QUERY_CHARS", _positive_int),
    ("max_header_bytes", "MANHATTAN_MAX_HEADER_BYTES", _positive_int),
    ("max_headers", "MANHATTAN_MAX_HEADERS", _positive_int),
    ("header_timeout", "MANHATTAN_HEADER_TIMEOUT", _positive_float),
    ("body_timeout", "MANHATTAN_BODY_TIMEOUT", _positive_float),
    ("introspection", "MANHATTAN_INTROSPECTION", _bool),
    ("graphql_ide", "MANHATTAN_GRAPHQL_IDE", _bool),
    ("graphql_fast_path", "MANHATTAN_GRAPHQL_FAST_PATH", _bool),
    ("strict_states", "MANHATTAN_STRICT_STATES", _bool),
    ("token_key", "MANHATTAN_TOKEN_KEY", str),
    ("token_old_keys", "MANHATTAN_TOKEN_OLD_KEYS", _csv),
    ("max_token_chars", "MANHATTAN_MAX_TOKEN_CHARS", _positive_int),
    ("rate_limit", "MANHATTAN_RATE_LIMIT", _non_negative_float),
    ("rate_burst", "MANHATTAN_RATE_BURST", _positive_int),
    ("bot_max_iterations", "MANHATTAN_BOT_MAX_ITERATIONS", _positive_int),
    ("bot_max_time_ms", "MANHATTAN_BOT_MAX_TIME_MS", _positive_int),
    ("bot_workers", "MANHATTAN_BOT_WORKERS", _non_negative_int),
    ("bot_queue", "MANHATTAN_BOT_QUEUE", _non_negative_int),
    ("bot_deadline_ms", "MANHATTAN_BOT_DEADLINE_MS", _positive_int),
    ("log_level", "MANHATTAN_LOG_LEVEL", _log_level),
    ("access_log", "MANHATTAN_ACCESS_LOG", _bool),
    ("graceful_timeout", "MANHATTAN_GRACEFUL_TIMEOUT", _positive_float),
    ("web_dir", "MANHATTAN_WEB_DIR", str),
    ("tables_redis_url", "MANHATTAN_TABLES_REDIS_URL", str),
    ("data_dir", "MANHATTAN_DATA_DIR", str),
    ("table_idle_seconds", "MANHATTAN_TABLE_IDLE_SECONDS", _positive_int),
    ("table_bot_seconds", "MANHATTAN_TABLE_BOT_SECONDS", _positive_float),
    ("table_stand_in_level", "MANHATTAN_TABLE_STAND_IN_LEVEL", _bot_level),
    ("table_heartbeat_seconds", "MANHATTAN_TABLE_HEARTBEAT_SECONDS", _positive_float),
    ("graphql_max_subscriptions", "MANHATTAN_GRAPHQL_MAX_SUBSCRIPTIONS", _positive_int),
    # -- table streams (push) --
    ("table_streams_per_client", "MANHATTAN_TABLE_STREAMS_PER_CLIENT", _positive_int),
    ("table_spectators_per_table", "MANHATTAN_TABLE_SPECTATORS_PER_TABLE", _positive_int),
    # -- quotas --
    ("quota_creates", "MANHATTAN_QUOTA_CREATES", _non_negative_int),
    ("quota_tickets", "MANHATTAN_QUOTA_TICKETS", _non_negative_int),
    ("quota_joins", "MANHATTAN_QUOTA_JOINS", _non_negative_int),
    ("quota_chat", "MANHATTAN_QUOTA_CHAT", _non_negative_int),
    ("quota_window", "MANHATTAN_QUOTA_WINDOW", _positive_float),
    # -- platforms --
    ("api_keys", "MANHATTAN_API_KEYS", _csv),
    ("api_keys_file", "MANHATTAN_API_KEYS_FILE", str),
    ("webhook_allow", "MANHATTAN_WEBHOOK_ALLOW", _cidrs),
    ("webhook_timeout", "MANHATTAN_WEBHOOK_TIMEOUT", _positive_float),
    ("webhook_retry_seconds", "MANHATTAN_WEBHOOK_RETRY_SECONDS", _positive_float),
    ("webhook_lease_seconds", "MANHATTAN_WEBHOOK_LEASE_SECONDS", _positive_float),
    ("trusted_proxies", "MANHATTAN_TRUSTED_PROXIES", _cidrs),
)
