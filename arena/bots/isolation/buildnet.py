"""The network a bot's build gets: the outside world through user-mode networking, never the host.

Package managers (npm, cargo, Go modules, pip) fetch at build time, so a
build needs the internet; but sharing the host's network namespace would
also give it the machine's loopback (the league's admin port, a local
PostgreSQL, any service bound to 127.0.0.1) and its abstract Unix sockets,
which belong to the network namespace. So a build gets, by default, a
network namespace of its own (bwrap's `--unshare-net`) with `slirp4netns`
attached: a process on the host side that carries the build's TCP and UDP
to the outside world as an ordinary program would, with the host's loopback
refused (`--disable-host-loopback`), the machine's other addresses fenced
off (`arena.bots.isolation.hostfence`) and DNS answered at 10.0.2.3.

- `isolated` (the default): as above. On a machine without slirp4netns, or
  where it cannot attach, the run says why and builds get `off`: a build
  that fetches then fails with its own error, never reaching the host.
- `off`: no network at all, for organisers who vendor every dependency.
- `host`: the host's network, loopback included; only on purpose, said as a
  warning at the start of the run.

The launcher (`arena.bots.isolation.slirp`) starts bwrap and slirp4netns together: the
sandbox waits on a pipe until slirp4netns has brought its interface up, and
slirp4netns ends with the launcher.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

INFO_FD = 3
"""In bwrap, where it writes its JSON (the sandbox's `child-pid`) for the launcher."""
SET_UP_FD = 4
"""In the sandbox, where it says it is set up (its loopback configured by bwrap)."""
GO_FD = 5
"""In the sandbox, what it reads before it runs the build: a line once the network is up."""
RESOLV_FD = 6
"""In bwrap, the sandbox's /etc/resolv.conf: the host's names a resolver the build cannot reach."""
AWAIT_NETWORK = 'printf 1 >&4; exec 3>&- 4>&-; read -r _ <&5 || exit 125; exec 5<&-; exec "$@"'
"""Run by `sh -c` in the sandbox before the build: slirp4netns must attach only once bwrap
has set the sandbox's loopback up (bwrap's `--block-fd` is read after that, but its
`--info-fd` is written before, and slirp4netns bringing `lo` up at the same time makes
bwrap fail), and the build must start only once slirp4netns is ready."""
RESOLV_CONF = b"nameserver 10.0.2.3\noptions edns0\n"
"""slirp4netns's own resolver, which asks the host's on the build's behalf."""
SLIRP_ARGS = ("--configure", "--disable-host-loopback", "--mtu=65520")


class BuildNetwork(StrEnum):
    ISOLATED = "isolated"
    """A namespace of its own with user-mode networking: the internet, not the host."""
    OFF = "off"
    """No network at all."""
    HOST = "host"
    """The host's network, loopback included: only on purpose."""


@dataclass(frozen=True, slots=True)
class BuildNet:
    """The decision for this run's builds: the network they get, and slirp4netns's path."""

    mode: BuildNetwork = BuildNetwork.OFF
    slirp: str | None = None
    why: str = ""
    """Why this mode holds when it was not asked for (no slirp4netns, no sandbox)."""

    def describe(self) -> str:
        if self.mode is BuildNetwork.ISOLATED:
            return (
                "builds reach the internet through a network of their own (slirp4netns), "
                "not the host's loopback or sockets"
            )
        if self.mode is BuildNetwork.HOST and self.why:
            return f"builds share the host's network: {self.why}"
        if self.mode is BuildNetwork.HOST:
            return (
                "WARNING: builds share the host's network (--build-network host): they reach "
                "every service on this machine's loopback"
            )
        if self.why:
            return f"builds have NO network: {self.why}"
        return "builds have no network (--build-network off)"


NO_NETWORK = BuildNet(BuildNetwork.OFF)
UNSANDBOXED = BuildNet(BuildNetwork.HOST, why="builds are not sandboxed")
"""What builds get without the sandbox: the host's network, as any program the organiser runs."""
