"""The errors below every other module of the client: the base class, a transport failure and an
answer of an unexpected shape (the models and the table types raise it while they read). The
service's coded errors, which carry a table, are ``_exceptions``, above the models."""

from __future__ import annotations


class ManhattanClientError(Exception):
    """Base class of everything this package raises."""


class TransportError(ManhattanClientError):
    """The request never got an answer: connection refused, DNS, timeouts."""


class UnexpectedResponseError(ManhattanClientError):
    """The service answered with something this client does not understand."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
