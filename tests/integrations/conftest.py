"""The integration tests reach no network: a connection anywhere but this machine fails."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest


def _local(host: object) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="module")
def no_network() -> Iterator[None]:
    """Fail the test on a connection to (or a name lookup of) any host but this one.

    Module-scoped, so that it is in place before the module's scripted runs (fixtures of
    the module's scope) start."""
    connect = socket.socket.connect
    connect_ex = socket.socket.connect_ex
    lookup = socket.getaddrinfo

    def checked(address: Any) -> None:
        if isinstance(address, tuple) and not _local(address[0]):
            raise AssertionError(f"a test reached for the network: {address!r}")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            checked(address)
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            checked(address)
        return connect_ex(self, address)

    def guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        checked((host,))
        return lookup(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", guarded_connect)
        patch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
        patch.setattr(socket, "getaddrinfo", guarded_lookup)
        patch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
        patch.setenv("LANGSMITH_TRACING", "false")
        yield
