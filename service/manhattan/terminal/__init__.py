"""``manhattan play``: a game against bots in the terminal (``game``) and a seat at a table of
the service (``table``), through the project's own HTTP client."""
