"""GraphQL at ``/graphql`` (strawberry): the schema, its types derived from the wire shapes, thin
resolvers over the games and tables services, and the compiled fast path for common queries."""
