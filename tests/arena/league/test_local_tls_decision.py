"""Whether a TLS league server's local bots can dial its Unix socket with TLS, decided by one
handshake in memory: the certificate must chain to what they trust and name `localhost`."""

from __future__ import annotations

from pathlib import Path

from tls_certificates import ca_signed, self_signed

from arena.league.local_tls import decide_local_tls
from arena.referee.service.referee_server import Tls


def _tls(cert: Path, key: Path) -> Tls:
    return Tls(cert.read_bytes(), key.read_bytes())


def test_a_self_signed_certificate_for_localhost_is_its_own_ca(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    decided = decide_local_tls(_tls(cert, key), None, tmp_path)
    assert decided.ca_file is not None and decided.ca_file.parent == tmp_path
    assert decided.ca_file.read_bytes() == cert.read_bytes()


def test_a_ca_signed_certificate_is_trusted_through_its_ca(tmp_path: Path) -> None:
    ca, cert, key = ca_signed(tmp_path)
    given = tmp_path / "server"
    given.mkdir()
    decided = decide_local_tls(_tls(cert, key), ca.read_bytes(), given)
    assert decided.ca_file == given / "ca.pem"
    assert decided.ca_file.read_bytes() == ca.read_bytes()


def test_a_ca_signed_certificate_without_its_ca_is_refused_asking_for_it(tmp_path: Path) -> None:
    _, cert, key = ca_signed(tmp_path)
    decided = decide_local_tls(_tls(cert, key), None, tmp_path)
    assert decided.ca_file is None
    assert "give --tls-ca the CA that signed it" in decided.describe()
    wrong = decide_local_tls(_tls(cert, key), cert.read_bytes(), tmp_path)
    assert wrong.ca_file is None and "--tls-ca" in wrong.describe()


def test_a_certificate_not_made_out_to_localhost_keeps_the_socket_plaintext(
    tmp_path: Path,
) -> None:
    cert, key = self_signed(tmp_path, names="DNS:league.example.org", common="league.example.org")
    decided = decide_local_tls(_tls(cert, key), None, tmp_path)
    assert decided.ca_file is None and not (tmp_path / "ca.pem").exists()
    assert decided.describe() == (
        "local bots (--bots) dial the Unix socket in plaintext: the certificate is not made out "
        "to localhost, the name bots verify on a Unix socket (add subjectAltName DNS:localhost)"
    )


def test_a_ca_file_that_holds_no_certificate_is_said(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    decided = decide_local_tls(_tls(cert, key), b"not a certificate", tmp_path)
    assert decided.ca_file is None
    assert "the CA file holds no certificate this server can read" in decided.describe()


def test_a_key_that_is_not_the_certificate_s_is_said(tmp_path: Path) -> None:
    cert, _ = self_signed(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    _, key = self_signed(other)
    decided = decide_local_tls(_tls(cert, key), None, tmp_path)
    assert decided.ca_file is None
    assert "the certificate and key cannot be loaded" in decided.describe()
