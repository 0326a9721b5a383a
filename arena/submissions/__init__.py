"""Submissions: entrants send their bots to the league server, which builds, checks and keeps them.

`arena submit` packs a bot's folder (`archive`) and streams it to the server
(`client`); the server takes it in only when it is safe to unpack (`intake`),
within each author's quotas (`quotas`), keeps it once by the hash of its files
(`folder`, and the league store's rows), builds and checks it in the sandbox
in a worker process of its own (`worker`, run by `pipeline`), and tells the
author every line of it (`desk`, the gRPC service). A night plays each
entrant's version from a line-up folder (`lineups`).
"""
