"""A throwaway self-signed certificate (127.0.0.1 and localhost unless told), made by openssl."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def self_signed(
    folder: Path, names: str = "IP:127.0.0.1,DNS:localhost", common: str = "localhost"
) -> tuple[Path, Path]:
    """(certificate, key) in `folder`, made out to `names` (its subjectAltName); the test is
    skipped where openssl cannot make them."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make a self-signed certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    made = subprocess.run(
        [
            *(
                openssl,
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
            ),
            *("-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", f"/CN={common}"),
            *("-addext", f"subjectAltName={names}"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a certificate: {made.stderr.strip()[-300:]}")
    return cert, key


def _openssl(*args: str) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make certificates")
    made = subprocess.run([openssl, *args], capture_output=True, text=True, timeout=60, check=False)
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a certificate: {made.stderr.strip()[-300:]}")


def ca_signed(folder: Path, names: str = "IP:127.0.0.1,DNS:localhost") -> tuple[Path, Path, Path]:
    """(a CA's certificate, a server certificate it signed for `names`, that one's key)."""
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    cert, key, request = folder / "server.pem", folder / "server.key", folder / "server.csr"
    extensions = folder / "server.ext"
    extensions.write_text(f"subjectAltName={names}\n")
    _openssl(
        *(
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(ca_key),
        ),
        *("-out", str(ca), "-days", "1", "-subj", "/CN=Perudo Test CA"),
    )
    _openssl(
        *(
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
        ),
        *("-out", str(request), "-subj", "/CN=localhost"),
    )
    _openssl(
        *("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key)),
        *("-CAcreateserial", "-out", str(cert), "-days", "1", "-extfile", str(extensions)),
    )
    return ca, cert, key
