"""The gRPC service that seats bots: admission and the lobby, the standard services beside
it (health, reflection), and the bounds that keep a hostile client from exhausting it."""
