"""The stateless game service (DESIGN §4), transport-neutral: resolve a state (inline, by id or by
sealed token), legal moves, apply, score, views, previews, analysis and bot suggestions through
the bot pool. ``api/rest`` and ``api/graphql`` adapt it to HTTP; it knows neither."""
