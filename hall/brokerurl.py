"""`mqtt://[USER:PASS@]HOST:PORT` and `mqtts://…` (TLS) as stations and the hub are given them."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerURL:
    """Where a broker listens and who we are to it."""

    host: str
    port: int
    username: str | None = None
    password: str | None = None
    tls: bool = False

    def shown(self) -> str:
        """The URL without its password (for messages)."""
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def parse_broker_url(text: str, what: str = "--publish") -> BrokerURL:
    """Parse a broker URL; ValueError names the option and what is wrong with it."""
    try:
        parts = urlsplit(str(text).strip())
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{what} {text!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{what} {text!r}: the scheme must be mqtt:// or mqtts:// (TLS), not {parts.scheme or 'none'!r}")
    if not parts.hostname:
        raise ValueError(f"{what} {text!r}: no host (use mqtt://[USER:PASS@]HOST:PORT)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{what} {text!r}: a broker URL has no path or query")
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    return BrokerURL(parts.hostname, port if port is not None else DEFAULT_PORTS[scheme], user, password,
                     scheme == "mqtts")
