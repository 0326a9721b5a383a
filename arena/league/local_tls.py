"""How a TLS league server's own bots (`--bots`) dial it: with TLS too, where they can.

Sandboxed bots have no network, so every local bot dials the server's Unix
socket, which then speaks TLS with the server's certificate. A gRPC client
names a Unix socket's server `localhost` (grpc-go and grpc-js do; the Python
kit says it for Python's gRPC, which would name it by its path), so a client
trusting the organiser's CA accepts the socket when the certificate is made
out to `localhost` too. Whether it is, is found out before the server
listens, by one handshake in memory with Python's `ssl`: a certificate
without that name (a public one, made out to the server's host name alone)
keeps the socket in plaintext, as no network reaches it, and the organiser is
told why.
"""

from __future__ import annotations

import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.referee.service.referee_server import Tls

LOCAL_SERVER_NAME = "localhost"
"""What clients verify a Unix socket's certificate against (see the module's docstring)."""
_HOSTNAME_MISMATCH = 62
"""OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH."""
_ROUNDS = 8
"""Handshake flights to try in memory: TLS 1.3 needs two or three, 1.2 four."""


@dataclass(frozen=True, slots=True)
class LocalTls:
    """What the league server tells its local bots: TLS with `ca_file`, or plaintext and why."""

    ca_file: Path | None
    why_not: str = ""

    def describe(self) -> str:
        if self.ca_file is not None:
            return f"local bots (--bots) dial the Unix socket with TLS, trusting {self.ca_file}"
        return f"local bots (--bots) dial the Unix socket in plaintext: {self.why_not}"


def decide_local_tls(tls: Tls, ca: bytes | None, folder: Path) -> LocalTls:
    """Whether local bots can dial with TLS, trusting `ca` (the certificate itself when None:
    a self-signed one); if so, the certificate they trust is written to `folder`."""
    trusted = ca if ca is not None else tls.certificate
    why = refusal(tls, trusted)
    if why is not None:
        return LocalTls(None, why)
    path = folder / "ca.pem"
    path.write_bytes(trusted)
    return LocalTls(path)


def refusal(tls: Tls, ca: bytes) -> str | None:
    """Why a client trusting `ca` and dialling `localhost` would refuse `tls`'s certificate;
    None when it would accept it."""
    try:
        client = ssl.create_default_context(cadata=ca.decode("ascii", errors="replace"))
    except (ssl.SSLError, ValueError) as error:
        return f"the CA file holds no certificate this server can read ({error})"
    with tempfile.TemporaryDirectory(prefix="perudo-tls-") as private:  # 0700: the key's
        cert, key = Path(private) / "cert.pem", Path(private) / "key.pem"
        cert.write_bytes(tls.certificate)
        key.write_bytes(tls.private_key)
        server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            server.load_cert_chain(cert, key)
        except ssl.SSLError as error:
            return f"the certificate and key cannot be loaded ({error})"
    return _handshake(client, server)


def _handshake(client: ssl.SSLContext, server: ssl.SSLContext) -> str | None:
    to_server, to_client = ssl.MemoryBIO(), ssl.MemoryBIO()
    client_side = client.wrap_bio(to_client, to_server, server_hostname=LOCAL_SERVER_NAME)
    server_side = server.wrap_bio(to_server, to_client, server_side=True)
    done = {"client": False, "server": False}
    for _ in range(_ROUNDS):
        for who, side in (("client", client_side), ("server", server_side)):
            if done[who]:
                continue
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                continue
            except ssl.SSLCertVerificationError as error:
                if error.verify_code == _HOSTNAME_MISMATCH:
                    return (
                        f"the certificate is not made out to {LOCAL_SERVER_NAME}, the name bots "
                        f"verify on a Unix socket (add subjectAltName DNS:{LOCAL_SERVER_NAME})"
                    )
                return (
                    f"a bot trusting the CA file would refuse the certificate "
                    f"({error.verify_message}): give --tls-ca the CA that signed it"
                )
            except ssl.SSLError as error:
                return f"a TLS handshake with the certificate fails ({error.reason})"
            done[who] = True
        if all(done.values()):
            return None
    return "a TLS handshake with the certificate did not finish"
