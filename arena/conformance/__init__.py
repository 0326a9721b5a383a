"""The rule-case runner: reads case files in the format of docs/conformance.md and
checks the engine against them.

It reads files and prints, so it lives beside the engine rather than in it; it uses
nothing of the arena but the engine's public rules.
"""

from arena.conformance.runner import CaseError, Verdict, load_cases, main, run_case, run_files

__all__ = ["CaseError", "Verdict", "load_cases", "main", "run_case", "run_files"]
