"""TLS for :meth:`Server.serve_http` (``tls=TLS(...)``): the server's certificate and key, and
optionally the CA that client certificates must chain to (mutual TLS). The engine serves
``https://`` with rustls; see docs/tls.md for what is served, reloaded and refused."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Union

#: A PEM file (``str`` or :class:`os.PathLike` path) or the PEM text itself (``bytes``).
PemInput = Union[str, "os.PathLike[str]", bytes]


def _pem(key: str, value: PemInput, out: dict[str, Any]) -> None:
    if isinstance(value, bytes):
        try:
            out[f"{key}Pem"] = value.decode("ascii")
        except UnicodeDecodeError:
            raise ValueError(f"TLS {key}: PEM bytes must be ASCII text") from None
    elif isinstance(value, (str, os.PathLike)):
        out[f"{key}Path"] = os.fspath(value)
    else:
        raise TypeError(
            f"TLS {key}: expected a path (str or os.PathLike) or PEM bytes, "
            f"got {type(value).__name__}"
        )


@dataclass(frozen=True)
class TLS:
    """Serve ``https://``.

    - ``cert``: the certificate chain (leaf first), ``key``: its private key (PKCS#8, PKCS#1
      or SEC1). Each a path (``str`` / ``Path``: the file is read at start and read again when
      it changes, so a renewed certificate is served to the next connection) or PEM ``bytes``.
    - ``client_ca``: ask clients for a certificate verified against this CA bundle (path or
      PEM bytes). The certificate's identity is then the request's :attr:`Context.auth`:
      ``subject`` (the common name, else the first SAN) and
      ``claims["clientCertificate"]`` (``subject``, ``commonName``, ``dnsNames``, ``emails``,
      ``uris``, ``ipAddresses``, ``serialNumber``).
    - ``client_cert_required``: ``True`` (the default with a ``client_ca``) refuses a client
      without a valid certificate at the handshake; ``False`` serves it without identity.
    - ``reload_interval``: seconds between checks of the certificate files (default 5).
    """

    cert: PemInput
    key: PemInput
    client_ca: PemInput | None = None
    client_cert_required: bool | None = None
    reload_interval: float | None = None

    def _native_config(self) -> dict[str, Any]:
        """The engine's ``tls`` object (camelCase keys; checked again by the engine)."""
        out: dict[str, Any] = {}
        _pem("cert", self.cert, out)
        _pem("key", self.key, out)
        if self.client_ca is not None:
            _pem("clientCa", self.client_ca, out)
        if self.client_cert_required is not None:
            out["clientCertRequired"] = self.client_cert_required
        if self.reload_interval is not None:
            out["reloadIntervalMs"] = max(1, int(self.reload_interval * 1000))
        return out
