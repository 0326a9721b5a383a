"""Every error the kit raises, in one tree: what a bot catches to say why it stopped.

The hierarchy; "(ConnectionError)" marks errors that are also `ConnectionError`s,
since a bot that catches those to give up on the referee keeps working:

* KitError - the root: never raised itself, caught to catch them all.
    + RefusedError - the referee refused the session (wrong token, unknown name, bad version).
    + NoRefereeError (ConnectionError) - no referee answered at the address in time.
    + SessionLostError (ConnectionError) - the session ended without the referee's Goodbye.
    + InputEndedError - the person at `arena.kit.human`'s prompt ended their input mid-game.

The kit is the bot's side of the protocol and imports only the engine and the
protocol, so this tree stands apart from the arena's (`arena.errors`).
"""

from __future__ import annotations


class KitError(Exception):
    """The root of every error the kit raises; the kit raises only its subclasses."""


class RefusedError(KitError):
    """The referee refused the session (wrong token, unknown name, bad version)."""


class NoRefereeError(KitError, ConnectionError):
    """No referee answered at the address within the connect timeout."""


class SessionLostError(KitError, ConnectionError):
    """The session ended without the referee's Goodbye: the referee went away or cut it off.

    A bot that exits 0 then looks like one that finished its night; the arena
    and the author need to see that it did not, and why.
    """


class InputEndedError(KitError):
    """The person's input ended (Ctrl-D, or the end of a script) with a decision to make."""
