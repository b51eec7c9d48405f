"""The service's settings, read once from environment variables.

Each field's ``#:`` comment is its documentation: the settings reference of the documentation
site is generated from them (``docs/_hooks``), so a new setting needs one.

Every variable is optional; the defaults run a single embedded process with no Redis, tables
and the token key kept in a data directory (``./manhattan-data``) and generous limits. A
malformed value stops the service at start with a message naming the variable, rather than
running with a surprise. ``Settings()`` built in code (tests, embedding) differ in one default:
``data_dir`` is ``:memory:``, so they write no files unless asked to.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import Any, TypedDict, TypeVar

T = TypeVar("T")

#: The data directory of ``manhattan serve`` without Redis (relative to the working directory).
DEFAULT_DATA_DIR = "manhattan-data"
#: ``MANHATTAN_DATA_DIR`` value that keeps tables in memory (lost on exit) and the key ephemeral.
MEMORY_DATA_DIR = ":memory:"


def _default_web_dir() -> str:
    """The web page served at /play: the copy a built package carries (``manhattan/web``, made
    from clients/web/play by setup.py), else the checkout's clients/web/play (an editable
    install, or the source tree on the path)."""
    here = Path(__file__).resolve()
    packaged = here.with_name("web")
    if (packaged / "index.html").is_file():
        return str(packaged)
    return str(here.parents[2] / "clients" / "web" / "play")


DEFAULT_WEB_DIR = _default_web_dir()


class RedisOptions(TypedDict):
    """``Settings.redis_options``: keyword arguments of the store makers."""

    timeout: float
    pool_size: int
    pool_timeout: float


class SettingsError(ValueError):
    """An environment variable that cannot be read as the setting it names."""


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


_ORIGIN = re.compile(
    r"https?://(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?"
)


def _origins(text: str) -> tuple[str, ...]:
    """Comma-separated web origins (``https://platform.example``, ``http://localhost:3000``):
    a scheme, a host and an optional port; no path, no wildcard (a CSP source and a
    postMessage target must be exact)."""
    origins = _csv(text)
    for origin in origins:
        if not _ORIGIN.fullmatch(origin):
            raise ValueError(f"expected origins such as https://platform.example, not {origin!r}")
    return tuple(origin.lower() for origin in origins)


def _cidrs(text: str) -> tuple[str, ...]:
    """Comma-separated networks (``10.0.0.0/8``, ``::1``), each checked and kept normalized."""
    return tuple(str(ipaddress.ip_network(part, strict=False)) for part in _csv(text))


def _record_format(text: str) -> int:
    if text.strip() not in ("1", "2"):
        raise ValueError("expected 1 or 2")
    return int(text)


def _log_level(text: str) -> str:
    level = text.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError("expected DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return level


def setting(default: T, parse: Callable[[str], T], *, variable: str = "") -> T:
    """A field of ``Settings``: its default, and how ``from_env`` reads it: the text of
    ``variable`` (``MANHATTAN_`` and the field's name in capitals unless named) through ``parse``,
    whose ``ValueError`` says what was expected."""
    return field(default=default, metadata={"parse": parse, "variable": variable})


def _variable(declared: Field[Any]) -> str:
    return str(declared.metadata["variable"]) or f"MANHATTAN_{declared.name.upper()}"


def variable(name: str) -> str:
    """The environment variable of the setting ``name`` (for a part's own checks' messages)."""
    return _variable(next(f for f in fields(Settings) if f.name == name))


@dataclass(frozen=True, kw_only=True)
class Settings:
    #: The address ``manhattan serve`` listens on (``0.0.0.0``: every interface).
    host: str = setting("127.0.0.1", str)
    #: The port ``manhattan serve`` listens on.
    port: int = setting(8000, _port)
    #: Redis for the state cache; empty means the in-process LRU (the embedded default).
    redis_url: str = setting("", str, variable="REDIS_URL")
    #: Seconds a cached state or result lives in Redis.
    cache_ttl: int = setting(86_400, _positive_int)
    #: Entries the in-process LRU keeps (states and results together).
    lru_size: int = setting(10_000, _positive_int)
    #: Socket connect/read timeout for Redis, seconds: long enough for a busy event loop to
    #: read a reply, short enough that a hung Redis costs little (the cache's circuit).
    redis_timeout: float = setting(2.0, _positive_float)
    #: Redis connections per process (per client: the cache, the tables).
    redis_pool_size: int = setting(64, _positive_int)
    #: Seconds a Redis call waits for a free pooled connection (a busy pool is not an outage).
    redis_pool_timeout: float = setting(5.0, _positive_float)
    #: After a Redis failure, seconds to skip Redis before trying again.
    redis_retry_after: float = setting(1.0, _positive_float)
    #: A request body's bytes (and a websocket message's); beyond: 413 PAYLOAD_TOO_LARGE.
    max_body_bytes: int = setting(256 * 1024, _positive_int)
    #: Moves in one apply or replay (and items in any list of GraphQL variables).
    max_moves_per_request: int = setting(2_000, _positive_int)
    #: Nesting depth of a GraphQL operation; beyond: QUERY_TOO_COMPLEX.
    graphql_max_depth: int = setting(10, _positive_int)
    #: Aliases in one GraphQL operation; beyond: QUERY_TOO_COMPLEX.
    graphql_max_aliases: int = setting(15, _positive_int)
    #: Lexical tokens of a GraphQL document; beyond: QUERY_TOO_COMPLEX.
    graphql_max_tokens: int = setting(2_000, _positive_int)
    #: GraphQL introspection (the IDE needs it).
    introspection: bool = setting(True, _bool)
    # -- bounds on every request's work (issue 17) -------------------------------------------
    #: Values in one GraphQL request's variables (lists are capped by max_moves_per_request).
    graphql_max_input_values: int = setting(20_000, _positive_int)
    #: Cost of one GraphQL operation, in moves applied (bots and previews weighted).
    graphql_max_cost: int = setting(4_000, _positive_int)
    #: Bytes of parsed GraphQL documents kept (the parse/validation cache, and compiled plans).
    graphql_cache_bytes: int = setting(8 << 20, _positive_int)
    #: Characters of one GraphQL query document (a token inline is up to max_token_chars).
    graphql_max_query_chars: int = setting(32_768, _positive_int)
    #: Bytes of a request's head (request line and headers); beyond them, 431.
    max_header_bytes: int = setting(16_384, _positive_int)
    #: Header lines of a request's head; beyond them, 431 and the connection is closed.
    max_headers: int = setting(100, _positive_int)
    #: Seconds a client has to send a request's whole head; beyond: 408 and the connection closed.
    header_timeout: float = setting(10.0, _positive_float)
    #: Seconds a client has to send a request's whole body, once its head is in.
    body_timeout: float = setting(30.0, _positive_float)
    #: The GraphiQL page at ``/graphql`` in a browser (its files served from the package).
    graphql_ide: bool = setting(True, _bool)
    #: The GraphQL fast path (compiled plans, one-loop completion); off: strawberry's general
    #: path answers everything. Also off, with a warning, on untested strawberry/graphql-core.
    graphql_fast_path: bool = setting(True, _bool)
    #: The table streams' and sockets' fast path under uvicorn (frames written to the transport
    #: by the service, the spectator relay, the service's own HTTP and websocket protocols);
    #: off: plain ASGI. Also off, with a warning, on an untested uvicorn.
    uvicorn_fast_path: bool = setting(True, _bool)
    #: Accept states only as sealed tokens or cached ids, never as plain JSON (DESIGN §7).
    strict_states: bool = setting(False, _bool)
    #: The current sealing key as ``kid:base64url-key`` (16, 24 or 32 bytes); empty: ephemeral.
    token_key: str = setting("", str)
    #: Keys still accepted for reading tokens, comma-separated ``kid:key`` pairs (rotation).
    token_old_keys: tuple[str, ...] = setting((), _csv)
    #: Characters of a sealed token; longer: BAD_TOKEN.
    max_token_chars: int = setting(16_384, _positive_int)
    #: Requests per second per client address; 0 turns rate limiting off.
    rate_limit: float = setting(0.0, _non_negative_float)
    #: Requests a client address may send at once above ``rate_limit``.
    rate_burst: int = setting(50, _positive_int)
    #: Cap on a bot search's iterations (suggestMove, advance, tables); unset: the most a
    #: request may ask for (``BotChoice``'s bounds), which the cap lowers, never raises.
    bot_max_iterations: int | None = setting(None, _positive_int)
    #: Cap on a bot search's time budget in ms (it lowers the wire's bound, never raises it).
    bot_max_time_ms: int | None = setting(None, _positive_int)
    #: Bot worker processes; 0: one per core but one, left to the event loop (1 to 4).
    bot_workers: int = setting(0, _non_negative_int)
    #: Bot requests that may wait for a worker; beyond: 503 BOTS_BUSY with Retry-After.
    bot_queue: int = setting(16, _non_negative_int)
    #: The wall-clock limit of one request's bot work (a suggestion, a whole advance, every
    #: suggestMove of one GraphQL request), whatever the bot's budget says.
    bot_deadline_ms: int = setting(5_000, _positive_int)
    #: JSON log lines on stderr at this level and above, each with its ``requestId``.
    log_level: str = setting("INFO", _log_level)
    #: One log line per request.
    access_log: bool = setting(True, _bool)
    #: Seconds ``manhattan serve`` lets in-flight requests finish after SIGTERM.
    graceful_timeout: float = setting(20.0, _positive_float)
    #: The static web page served at /play when the directory exists; "off": not served.
    web_dir: str = setting(DEFAULT_WEB_DIR, str)
    #: Origins whose pages may frame /play (CSP frame-ancestors beside 'self') and receive its
    #: postMessage events (docs/how-to/embed-a-table.md); none by default.
    embed_origins: tuple[str, ...] = setting((), _origins)
    #: Redis for tables (DESIGN §9) when it must differ from REDIS_URL (a no-eviction instance).
    tables_redis_url: str = setting("", str)
    #: Without Redis for tables: the directory of their SQLite database and of the token key
    #: (when MANHATTAN_TOKEN_KEY is not set); ``:memory:`` keeps both in memory.
    data_dir: str = setting(MEMORY_DATA_DIR, str)
    #: Start afresh when the data directory cannot be used as it is (the token key missing
    #: beside stored tables, a database empty, unreadable or damaged): its files are set aside
    #: in a folder of the directory, not deleted. Without it such a start is refused.
    data_reset: bool = setting(False, _bool)
    #: Seconds a table lives after its last change.
    table_idle_seconds: int = setting(6 * 3600, _positive_int)
    #: Seconds a bot may think for a table move.
    table_bot_seconds: float = setting(2.0, _positive_float)
    #: Bot level that stands in for people who left or ran out of turnSeconds (one of the bots'
    #: levels: checked when the bot pool is built, ``bot_pool.check_bot_settings``).
    table_stand_in_level: str = setting("greedy", str)
    #: Seconds between heartbeats on a table's event stream.
    table_heartbeat_seconds: float = setting(15.0, _positive_float)
    #: The format tables are written in: 2, or 1 while replicas of a version before format 2
    #: share the Redis (a rolling upgrade: every version since reads both).
    table_record_format: int = setting(2, _record_format)
    #: GraphQL subscriptions one WebSocket connection may hold at once.
    graphql_max_subscriptions: int = setting(8, _positive_int)

    # -- table streams (push) --------------------------------------------------------------
    #: Open table streams (SSE and subscriptions together) per client address, per process.
    table_streams_per_client: int = setting(64, _positive_int)
    #: Spectators (streams without a seat) of one table, per process.
    table_spectators_per_table: int = setting(5000, _positive_int)
    #: Public spectators' streams held by a relay process of their own once open, so that a
    #: crowd's memory leaves with that process after the crowd has gone (off: in the service).
    spectator_relay: bool = setting(True, _bool)
    #: Seconds without a relayed stream after which the relay process exits.
    spectator_relay_idle: float = setting(5.0, _positive_float)

    # -- quotas for anonymous callers, per client address and window (0: off) ----------------
    #: Table creations per client address and window (platform keys are exempt).
    quota_creates: int = setting(30, _non_negative_int)
    #: Stream tickets per client address and window.
    quota_tickets: int = setting(300, _non_negative_int)
    #: Joins per client address and window.
    quota_joins: int = setting(60, _non_negative_int)
    #: Chat messages per client address and window (besides 5 per 10 s per seat).
    quota_chat: int = setting(60, _non_negative_int)
    #: Seconds of each quota's window.
    quota_window: float = setting(60.0, _positive_float)

    # -- platforms (DESIGN §10) ------------------------------------------------------------
    #: Platform keys as ``name=secret`` pairs, comma-separated (a secret: 16+ printable
    #: characters, no spaces).
    api_keys: tuple[str, ...] = setting((), _csv)
    #: A file of more ``name=secret`` pairs, one a line (``#`` comments).
    api_keys_file: str = setting("", str)
    #: CIDRs a webhook may resolve to although private, loopback, link-local or reserved.
    webhook_allow: tuple[str, ...] = setting((), _cidrs)
    #: Seconds one webhook delivery attempt may take.
    webhook_timeout: float = setting(5.0, _positive_float)
    #: A failed delivery's first retry, seconds; doubling up to an hour, for 3 days.
    webhook_retry_seconds: float = setting(1.0, _positive_float)
    #: A replica's claim on a delivery, seconds; then another replica may take it.
    webhook_lease_seconds: float = setting(30.0, _positive_float)
    #: Deliveries made by a process of their own (``platforms/delivery_process.py``), not on
    #: the service's event loop; always on the loop when the outbox is in memory.
    webhook_worker: bool = setting(True, _bool)
    #: Deliveries in flight for one platform key's tables, at most (of 256 a process): a key
    #: whose receivers answer slowly never takes the others' slots.
    webhook_key_concurrency: int = setting(64, _positive_int)
    #: Proxies (CIDRs) whose ``X-Forwarded-For`` names the client address; others are the client.
    trusted_proxies: tuple[str, ...] = setting((), _cidrs)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment names (each field's ``setting``); the rest keep their
        defaults, but for ``data_dir``, whose default there is ``DEFAULT_DATA_DIR``."""
        read = _Reader(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        for declared in fields(cls):
            default = DEFAULT_DATA_DIR if declared.name == "data_dir" else declared.default
            parse = declared.metadata["parse"]
            values[declared.name] = read(_variable(declared), parse, default)
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
