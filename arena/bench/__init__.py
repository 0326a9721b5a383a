"""Benchmarks, measured side by side in one run, and the bot they play with."""
