"""The ``--nats`` value: NATS server URLs, checked before any connection, and what went wrong.

A malformed value is a :class:`ConfigError` at once, before anything waits. When connecting
fails, :func:`failure` words the client's error (a host name not found, a connection
refused) and says whether it is final, so that a connection can give up at once instead of
trying again until its time is up.
"""

from __future__ import annotations

import socket
from collections import deque
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from session_memory.core.errors import ConfigError

__all__ = ["SCHEMES", "Attempts", "Failure", "failure", "server_urls"]

SCHEMES: Final = ("nats", "tls", "ws", "wss")
_WEBSOCKET: Final = frozenset({"ws", "wss"})
# getaddrinfo's answers that the name does not exist (EAI_NONAME, EAI_NODATA where the
# platform has it), as opposed to a resolver that did not answer (EAI_AGAIN).
_NO_SUCH_NAME: Final = frozenset(
    code for code in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)) if code is not None
)


def server_urls(servers: str) -> list[str]:
    """The comma-separated URLs of ``servers``, each checked; :class:`ConfigError` if any is
    not a NATS server URL.

    A URL is ``nats://``, ``tls://``, ``ws://`` or ``wss://``, a host and an optional port;
    ``host`` or ``host:port`` alone means ``nats://`` (as the client reads it). WebSocket
    and plain URLs cannot be mixed.
    """
    urls = [s.strip() for s in servers.split(",") if s.strip()]
    if not urls:
        raise ConfigError("no NATS server URL given (--nats nats://HOST:4222)")
    schemes = {_checked_scheme(url) for url in urls}
    if schemes & _WEBSOCKET and schemes - _WEBSOCKET:
        raise ConfigError(f"NATS server URLs mix WebSocket and plain connections: {servers}")
    return urls


def _checked_scheme(url: str) -> str:
    scheme, sep, _rest = url.partition("://")
    if not sep:
        scheme, url = "nats", f"nats://{url}"
    if scheme not in SCHEMES:
        raise ConfigError(
            f"not a NATS server URL: {url!r} (the scheme must be "
            f"{', '.join(s + '://' for s in SCHEMES)}, not {scheme}://)"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"not a NATS server URL: {url!r} ({exc})") from None
    if not parts.hostname:
        raise ConfigError(f"not a NATS server URL: {url!r} (no host)")
    if port == 0:
        raise ConfigError(f"not a NATS server URL: {url!r} (port 0)")
    return scheme


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt to connect, in words, and whether trying again can help."""

    reason: str
    final: bool


def failure(exc: BaseException, *, refused_is_final: bool) -> Failure:
    """What an error the client reported while connecting means.

    A host name that does not exist is final; a refused connection is final when
    ``refused_is_final`` (a caller that will not wait for a server to come up); anything
    else (a resolver or a server that does not answer, a reset) may pass.
    """
    if isinstance(exc, socket.gaierror):
        return Failure(f"host name not found: {exc.strerror}", exc.errno in _NO_SUCH_NAME)
    if isinstance(exc, ConnectionRefusedError):
        return Failure("connection refused: no server listens there", refused_is_final)
    if isinstance(exc, TimeoutError):
        return Failure("no answer", False)
    return Failure(str(exc) or type(exc).__name__, False)


class Attempts:
    """The failed attempts of one connection to ``servers`` servers, tried in turn.

    The client tries each server once per round: when the last round failed for good on
    every server (:attr:`final`), trying again cannot help.
    """

    def __init__(self, servers: int, *, refused_is_final: bool) -> None:
        self._servers = servers
        self._refused_is_final = refused_is_final
        self._last: deque[Failure] = deque(maxlen=servers)
        self.count = 0

    def add(self, exc: BaseException) -> Failure:
        """Count a failed attempt; what it means."""
        found = failure(exc, refused_is_final=self._refused_is_final)
        self._last.append(found)
        self.count += 1
        return found

    @property
    def final(self) -> bool:
        return len(self._last) == self._servers and all(f.final for f in self._last)

    def reason(self, error: BaseException | None, seconds: float) -> str:
        """Why the connection did not come: the client's ``error`` if it gave one, else the
        last failure, or that no server answered within ``seconds``."""
        last = self._last[-1].reason if self._last else None
        if error is not None and last is None:
            return failure(error, refused_is_final=True).reason
        if self.final or (error is not None and last is not None):
            return last or ""
        return f"no server answered within {seconds:g} s" + (
            f"; last attempt: {last}" if last else ""
        )
