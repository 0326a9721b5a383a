"""`python -m engine.conformance FILE [FILE ...]`: the rule-case runner's first name, kept
for the scripts and tools that call it by that name.

The runner reads files and prints, so it lives beside the pure engine, in
`arena.conformance`; this module only hands the command line to it. Nothing in the
engine imports it, so `import engine` still loads nothing of the arena.
"""

if __name__ == "__main__":
    import sys

    from arena.conformance.runner import main

    sys.exit(main())
