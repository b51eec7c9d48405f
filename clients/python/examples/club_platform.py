"""A small platform built on the Manhattan service (README "Platforms: an example").

It creates a rated table for two of its players and a bot, with a webhook to itself; hands out
the two seat links; plays the game through the seat tokens (each player takes its first legal
move when the webhook says it is their turn); checks the signature of every delivery; and prints
the ranking and the new ratings.

    MANHATTAN_URL=http://127.0.0.1:8000 MANHATTAN_KEY=<secret> python club_platform.py

The service must accept the key (MANHATTAN_API_KEYS) and, since this example receives its
webhooks on 127.0.0.1, allow that address (MANHATTAN_WEBHOOK_ALLOW=127.0.0.1/32).
"""

from __future__ import annotations

import json
import os
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from manhattan_client import Client, reserved_seat, verify_webhook

PLAYERS = {"u-ann": "Ann", "u-bo": "Bo"}


def receiver(secret: list[str], inbox: queue.Queue[dict[str, Any]]) -> ThreadingHTTPServer:
    """An HTTP server on a free local port that verifies each delivery and queues its body."""

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            verify_webhook(secret[0], dict(self.headers), body)  # raises on a bad signature
            self.send_response(204)
            self.end_headers()
            event = json.loads(body)
            event["webhookId"] = self.headers["webhook-id"]
            inbox.put(event)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    url, key = os.environ["MANHATTAN_URL"], os.environ["MANHATTAN_KEY"]
    inbox: queue.Queue[dict[str, Any]] = queue.Queue()
    secret: list[str] = []
    server = receiver(secret, inbox)
    hook = f"http://127.0.0.1:{server.server_address[1]}/manhattan"
    with Client(url, key=key) as platform:
        seats = [reserved_seat(pid, name) for pid, name in PLAYERS.items()]
        created = platform.create_table(
            {"players": 3, "rounds": 1},
            seats=[*seats, {"bot": {"level": "greedy"}}],
            public=False,
            auto_start=True,
            rated=True,
            webhook={"url": hook, "events": ["table.turn", "table.over"]},
        )
        assert created.webhook_secret is not None
        secret.append(created.webhook_secret)
        table_id = created.table_id
        tokens = {given.id: given.seat_token for given in created.seat_tokens}
        for pid, token in tokens.items():
            print(f"link for {PLAYERS[pid]}: {url}/play/?table={table_id}#seat={token}")
        turns = seen = 0
        while True:
            event = inbox.get(timeout=60)
            seen += 1
            if event["type"] == "table.over":
                break
            player = event["data"]["toMove"].get("id")
            if player not in tokens:
                continue
            table = platform.get_table(table_id, token=tokens[player])
            if table.my_turn and table.version == event["data"]["version"]:
                platform.table_move(table_id, table.moves[0], table.version, token=tokens[player])
                turns += 1
        print(f"{seen} webhooks received, every signature verified; {turns} moves played")
        names = [seat.name for seat in platform.get_table(table_id).seats]
        for place in event["data"]["ranking"]:
            name = names[place["player"]]
            print(f"place {place['place']}: {name} with {place['score']} points")
        for pid, name in PLAYERS.items():
            rating = platform.rating(pid)
            print(
                f"{name}: ordinal {rating.ordinal:.2f} (mu {rating.mu:.2f}, games {rating.games})"
            )
    server.shutdown()


if __name__ == "__main__":
    main()
