"""The server: the composition root (settings -> services), the ASGI app, its middleware,
quotas, metrics, pages and ``serve``; the only package that imports uvicorn."""
