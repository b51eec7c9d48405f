"""REST for platforms (DESIGN §10): thin handlers over ``manhattan.platforms``. The calling key
is the ``Manhattan-Key`` header; every answer is under that key only.

- ``GET /v1/tables?player=<id>`` (a branch of ``GET /v1/tables``): the key's tables where the
  player holds a seat.
- ``GET /v1/ratings?player=<id>``: one player's rating; without ``player``, the key's players by
  ordinal, a page of ``limit`` (1-100, 50) from ``cursor`` (the ``next`` of the page before).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from manhattan.api.encoding import render
from manhattan.platforms import Platforms


def platforms(request: Request) -> Platforms:
    found: Platforms = request.app.state.platforms
    return found


async def get_my_tables(request: Request) -> Response:
    found = platforms(request)
    key = found.platform(request.headers)
    player = request.query_params["player"]
    return render(request, await found.my_tables(key, player))


async def get_ratings(request: Request) -> Response:
    found = platforms(request)
    key = found.platform(request.headers)
    query = request.query_params
    player = query.get("player")
    if player is not None:
        return render(request, await found.rating(key, player))
    return render(request, await found.rating_page(key, query.get("limit"), query.get("cursor")))


def platform_routes() -> list[BaseRoute]:
    return [Route("/v1/ratings", get_ratings, methods=["GET"])]
