"""The referee's clock: what a decision's time is, and whose lateness it was (the bot's,
its link's, its machine's or the referee's own), so that only the bot's is charged."""
