"""From a table change to bytes on connections: the hub and its listeners, the fan-out, SSE and
WebSocket frames, the table streams and the spectator relay (``runtime.TableRuntime`` runs them
with the table domain of ``manhattan.tables``). Knows the tables and the store, not the server.
"""
