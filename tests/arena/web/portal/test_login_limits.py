"""Failed logins, counted per address and per name on a clock the test turns."""

from __future__ import annotations

from arena.web.portal.login_limits import LoginLimits, Refusal


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limits(clock: Clock, **given: float) -> LoginLimits:
    return LoginLimits(clock, **given)  # type: ignore[arg-type]


def test_the_sixth_try_within_a_minute_is_refused_until_the_lockout_ends() -> None:
    clock = Clock()
    logins = limits(clock)
    for _ in range(5):
        assert logins.refusal("10.0.0.1", "alice") is None
        logins.failed("10.0.0.1", "alice")
        clock.now += 10
    refused = logins.refusal("10.0.0.1", "alice")
    assert refused is not None and refused.wait == 60 - 10  # from the fifth failure
    assert refused.words() == "50 seconds"
    clock.now += 49.5
    assert logins.refusal("10.0.0.1", "alice") is not None
    clock.now += 0.5
    assert logins.refusal("10.0.0.1", "alice") is None


def test_failures_spread_beyond_the_window_lock_nothing() -> None:
    clock = Clock()
    logins = limits(clock)
    for _ in range(20):
        logins.failed("10.0.0.1", "alice")
        clock.now += 15  # four a minute
    assert logins.refusal("10.0.0.1", "alice") is None


def test_each_lockout_doubles_up_to_the_longest_and_is_forgotten_after_a_quiet_time() -> None:
    clock = Clock()
    logins = limits(clock, longest=300.0, forget=1000.0)
    lengths = []
    for _ in range(5):
        for _ in range(5):
            logins.failed("10.0.0.1", "x")
        refused = logins.refusal("10.0.0.1", "x")
        assert refused is not None
        lengths.append(refused.wait)
        clock.now += refused.wait
    assert lengths == [60, 120, 240, 300, 300]
    clock.now += 1000
    for _ in range(5):
        logins.failed("10.0.0.1", "x")
    assert logins.refusal("10.0.0.1", "x") == Refusal(60, "this address")


def test_the_address_and_the_name_at_it_are_limited_apart() -> None:
    clock = Clock()
    logins = limits(clock)
    for n in range(5):  # one address guessing at five names
        logins.failed("10.0.0.1", f"name{n}")
    refused = logins.refusal("10.0.0.1", "bob")
    assert refused is not None and refused.whose == "this address"
    assert logins.refusal("10.0.0.2", "bob") is None  # another address, another name
    for _ in range(5):  # one address guessing at one name
        logins.failed("10.0.0.3", "carol")
    refused = logins.refusal("10.0.0.3", "carol")
    assert refused is not None and refused.wait == 60


def test_no_number_of_addresses_failing_for_a_name_locks_it_out_elsewhere() -> None:
    """The lockout attempt of issue 35: wrong guesses for alice from address after address;
    each of them is locked out, and alice's own login from a fresh address is not."""
    clock = Clock()
    logins = limits(clock)
    for n in range(100):
        for _ in range(6):
            logins.failed(f"10.0.1.{n}", "alice")
        assert logins.refusal(f"10.0.1.{n}", "alice") is not None
    assert logins.refusal("10.0.0.9", "alice") is None


def test_a_name_that_logged_in_at_an_address_is_not_held_by_its_other_guesses() -> None:
    """A stranger behind the author's address (one NAT, one proxy), guessing at other names,
    locks out those names there, not the author who logged in there before; guessing at
    the author's own name from there is limited all the same."""
    clock = Clock()
    logins = limits(clock)
    logins.succeeded("10.0.0.1", "alice")
    for n in range(5):
        logins.failed("10.0.0.1", f"name{n}")
    assert logins.refusal("10.0.0.1", "bob") is not None
    assert logins.refusal("10.0.0.1", "alice") is None
    for _ in range(5):
        logins.failed("10.0.0.1", "alice")
    refused = logins.refusal("10.0.0.1", "alice")
    assert refused is not None and refused.whose == "this name from this address"


def test_an_ipv6_client_is_counted_by_its_64() -> None:
    clock = Clock()
    logins = limits(clock)
    for n in range(5):  # a machine with a /64 of its own, a new address for each guess
        logins.failed(f"2001:db8:1:2::{n + 1:x}", f"name{n}")
    assert logins.refusal("2001:db8:1:2:ffff::1", "bob") is not None
    assert logins.refusal("2001:db8:1:3::1", "bob") is None
    for _ in range(5):
        logins.failed("::ffff:10.0.0.7", "x")
    assert logins.refusal("10.0.0.7", "y") is not None


def test_a_success_clears_its_names_failures_not_its_addresss() -> None:
    clock = Clock()
    logins = limits(clock)
    for _ in range(4):
        logins.failed("10.0.0.1", "alice")
    logins.succeeded("10.0.0.1", "alice")
    logins.failed("10.0.0.1", "alice")  # the name starts again there: one failure
    assert logins.refusal("10.0.0.1", "alice") is None
    logins.failed("10.0.0.1", "dave")  # the address does not: its count goes on
    refused = logins.refusal("10.0.0.1", "eve")
    assert refused is not None and refused.whose == "this address"


def test_the_table_is_bounded_and_keeps_the_locked_out() -> None:
    clock = Clock()
    logins = limits(clock, most=50)
    for _ in range(5):
        logins.failed("10.0.0.1", "alice")
    for n in range(500):  # a flood of made-up names, each tried once
        clock.now += 0.01
        logins.failed(f"10.0.2.{n}", f"made-up-{n}")
    assert len(logins._records) <= 50
    clock.now += 0.01
    assert logins.refusal("10.0.0.1", "bob") is not None  # what matters is kept
