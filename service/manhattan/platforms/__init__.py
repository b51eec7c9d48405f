"""Platforms (DESIGN §10): keys, reserved seats, webhooks and ratings for a site that seats its
own players. Everything here is an addition to tables: without a key, §9 works as it is."""
