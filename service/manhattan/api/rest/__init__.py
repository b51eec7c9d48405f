"""REST at ``/v1`` (DESIGN §4 and §9): the games' and the tables' routes, the tables' event
stream, and the OpenAPI document built from the wire shapes."""
