"""`arena run --cluster`: the flags that spread a night over the machines of a Ray cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cli import validate
from arena.cluster.connect import ClusterError, ray_address

if TYPE_CHECKING:
    import argparse

    from arena.cluster.hosts import RayHosts
    from arena.tournament.config import TournamentConfig
    from arena.tournament.play.observer import Observer


def add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("on a Ray cluster (the cluster extra)")
    group.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on a running Ray cluster, one host per node: auto (the cluster "
        "this machine is part of), ray://HOST:PORT (Ray Client) or HOST:PORT (a head's "
        "address); --jobs is then games at once per host",
    )
    group.add_argument(
        "--hosts",
        type=validate.int_at_least(1),
        metavar="N",
        help="hosts to start, spread over the nodes in turn (default: one per node)",
    )
    group.add_argument(
        "--max-bots-per-host",
        type=validate.int_at_least(2),
        metavar="N",
        help="bots running at once on a host; past it the least recently used is stopped "
        "(default: every bot a host needs)",
    )
    group.add_argument(
        "--ship-bots",
        action="store_true",
        help="send the bots folder to every node with Ray (default: each node reads it at "
        "the same path, a shared file system)",
    )


def hosts_of(
    args: argparse.Namespace, config: TournamentConfig, observer: Observer
) -> RayHosts | None:
    """The cluster's hosts the run plays on, None for a night on this machine alone."""
    if args.cluster is None:
        for flag in ("hosts", "max_bots_per_host"):
            if getattr(args, flag) is not None:
                raise ClusterError(f"--{flag.replace('_', '-')} needs --cluster")
        if args.ship_bots:
            raise ClusterError("--ship-bots needs --cluster")
        return None
    if args.web:
        raise ClusterError("--web follows games event by event, on one machine: not with --cluster")
    budget, size = args.max_bots_per_host, config.table_size
    if budget is not None and size is not None and budget < size:
        raise ClusterError(f"--max-bots-per-host {budget} cannot seat a table of {size}")
    from arena.cluster.hosts import ClusterOptions, RayHosts  # the referee's, to play on hosts

    options = ClusterOptions(
        ray_address(args.cluster), args.hosts, args.max_bots_per_host, args.ship_bots
    )
    return RayHosts(options, config, observer)


def resume_flags(args: argparse.Namespace) -> str:
    """The cluster flags a resume of this run needs again, after a space (none on one machine)."""
    if args.cluster is None:
        return ""
    from arena.cluster.hosts import ClusterOptions

    return (
        " "
        + ClusterOptions(args.cluster, args.hosts, args.max_bots_per_host, args.ship_bots).flags()
    )
