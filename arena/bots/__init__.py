"""Local bot processes: manifests, the launcher, the sandbox; no other arena module."""
