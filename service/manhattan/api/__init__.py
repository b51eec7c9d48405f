"""Adapters: REST and GraphQL over the game, table and platform services."""
