"""Login sessions: random ids, an end at expiry, at a new token or a revocation, and at logout."""

from __future__ import annotations

from arena.web.portal.sessions import Sessions, csrf_ok


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_lasts_its_lifetime_and_no_longer() -> None:
    clock = Clock()
    sessions = Sessions(lambda: {"alice": "h1"}, clock, lifetime=60.0)
    sid = sessions.open("alice", "h1")
    other = sessions.open("alice", "h1")
    assert sid != other and len(sid) >= 40
    session = sessions.get(sid)
    assert session is not None and session.name == "alice"
    clock.now += 59.0
    assert sessions.get(sid) is not None
    clock.now += 1.0
    assert sessions.get(sid) is None
    assert sessions.get(None) is None and sessions.get("") is None and sessions.get("x") is None


def test_a_new_token_or_a_revocation_ends_the_session() -> None:
    entrants = {"alice": "h1", "bob": "h2"}
    sessions = Sessions(lambda: entrants)
    alice, bob = sessions.open("alice", "h1"), sessions.open("bob", "h2")
    entrants["alice"] = "h3"  # arena token add alice, again
    del entrants["bob"]  # arena token revoke bob
    assert sessions.get(alice) is None and sessions.get(bob) is None
    entrants["alice"] = "h1"  # the old token back does not bring back the session
    assert sessions.get(alice) is None


def test_logout_ends_it_and_the_csrf_token_is_the_sessions_own() -> None:
    sessions = Sessions(lambda: {"alice": "h1", "bob": "h2"})
    alice, bob = sessions.open("alice", "h1"), sessions.open("bob", "h2")
    mine, theirs = sessions.get(alice), sessions.get(bob)
    assert mine is not None and theirs is not None
    assert csrf_ok(mine, mine.csrf)
    assert not csrf_ok(mine, theirs.csrf) and not csrf_ok(mine, "") and not csrf_ok(mine, None)
    sessions.close(alice)
    assert sessions.get(alice) is None and sessions.get(bob) is not None
