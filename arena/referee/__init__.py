"""The referee: a bot's session (`session`), the clock that times its decisions (`clock`),
the gRPC service that seats bots (`service`), and one game played on them (`match`)."""
