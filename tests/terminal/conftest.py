"""The terminal tests play against a real ``manhattan serve`` process, the same one the clients'
tests start (one per session)."""

from tests.clients.conftest import server_url

__all__ = ["server_url"]
