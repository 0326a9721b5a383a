"""The box a bot or its build runs in: the bubblewrap sandbox and the network a build gets
through it (slirp4netns, this machine's own addresses fenced off), the cgroups and caps a bot
cannot shed, and the environment it sees; what each bot may see and use, decided here."""
