"""Why a referee cannot be reached, in words: TLS spoken to a plaintext port, or the reverse.

gRPC says only that the channel failed and retries, so a bot that dials a
TLS league server in plaintext (or a plaintext one with TLS, or one whose
certificate it does not trust) waits out its connect timeout and learns
nothing. One handshake of our own, with Python's `ssl`, tells these apart.
"""

from __future__ import annotations

import socket
import ssl

_TLS_ADVICE = "set PERUDO_TLS=1 (or --tls), and PERUDO_CA_FILE (or --ca-file) for a self-signed one"


def _host_port(address: str) -> tuple[str, int] | None:
    """`host:port` or `[v6]:port`, the forms a bot is given; None for a Unix socket and the like."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or not host or host in {"unix", "unix-abstract"}:
        return None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host or "/" in host:  # a scheme (dns:///, ipv4:), not a bare host
        return None
    return host, int(port)


def _handshake(host: str, port: int, context: ssl.SSLContext, timeout: float) -> None:
    with (
        socket.create_connection((host, port), timeout) as raw,
        context.wrap_socket(raw, server_hostname=host) as tls,
    ):
        tls.do_handshake()


def diagnose(address: str, tls: bool, ca_file: str | None, timeout: float = 3.0) -> str | None:
    """Why `address` is no referee this bot can talk to, or None when that cannot be told
    (nothing listens there yet, say: the referee may still be starting)."""
    where = _host_port(address)
    if where is None:
        return None
    host, port = where
    anything = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    anything.check_hostname = False
    anything.verify_mode = ssl.CERT_NONE
    try:
        _handshake(host, port, anything, timeout)
    except ssl.SSLError:
        speaks_tls = False
    except OSError:  # refused, unreachable, timed out, or closed on us: nothing to tell
        return None
    else:
        speaks_tls = True
    if speaks_tls and not tls:
        return f"the referee at {address} speaks TLS; this bot dialled in plaintext: {_TLS_ADVICE}"
    if not speaks_tls:
        return (
            f"the referee at {address} does not speak TLS: unset PERUDO_TLS and PERUDO_CA_FILE"
            if tls
            else None
        )
    try:
        _handshake(host, port, ssl.create_default_context(cafile=ca_file), timeout)
    except ssl.SSLCertVerificationError as error:
        trust = f"PERUDO_CA_FILE={ca_file} does not" if ca_file else "the system's CAs do not"
        return (
            f"the referee's certificate is not trusted ({error.verify_message}; {trust} vouch "
            "for it): set PERUDO_CA_FILE (or --ca-file) to the certificate of the CA that "
            "signed it, or, for a self-signed server, to the server's certificate"
        )
    except OSError:
        return None
    return None
