"""Wrong ``--nats`` URLs: refused with their reason, at once where the answer is known.

Each test runs a real ``nats-server`` and points at it wrongly: a scheme or port that cannot
be a NATS server's, a port where nothing listens, a host that does not exist.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from session_memory.apps.distributed.jetstream import connect, connect_reader
from session_memory.core.errors import ConfigError, TransportError
from tests.distributed.nats_helpers import NatsServer, free_port, run_cli


def _elapsed(work: Coroutine[Any, Any, Any]) -> tuple[BaseException, float]:
    """The error ``connect`` raised and how long it took."""
    started = time.monotonic()
    try:
        asyncio.run(work)
    except (ConfigError, TransportError) as exc:
        return exc, time.monotonic() - started
    raise AssertionError("connected")


def _unresolvable() -> str:
    name = "no-such-host.invalid"
    try:
        socket.getaddrinfo(name, 4222)
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_NONAME:
            return name
    pytest.skip("this machine's resolver does not say a name does not exist")


class TestWrongURLs:
    @pytest.mark.parametrize(
        ("url", "reason"),
        [
            ("http://127.0.0.1:{port}", "the scheme must be"),
            ("nats://127.0.0.1:99999", "Port out of range"),
            ("nats://[127.0.0.1:{port}", "Invalid IPv6 URL"),
            ("nats://:{port}", "no host"),
            (" , ", "no NATS server URL"),
        ],
    )
    def test_a_malformed_url_is_refused_before_connecting(
        self, server: NatsServer, url: str, reason: str
    ) -> None:
        """A URL that cannot name a NATS server is a ConfigError at once, saying why."""
        error, seconds = _elapsed(connect(url.format(port=server.port), connect_seconds=10))
        assert isinstance(error, ConfigError) and reason in str(error)
        assert seconds < 1.0

    def test_get_says_what_is_wrong_with_the_url(self, server: NatsServer) -> None:
        """The command line prints the reason on one line and exits 2."""
        done = run_cli("get", "s", "--nats", f"http://127.0.0.1:{server.port}")
        assert done.returncode == 2
        assert "not a NATS server URL" in done.stderr and "http://" in done.stderr
        assert "TimeoutError" not in done.stderr

    def test_a_refused_port_fails_at_once_for_a_reader(self, server: NatsServer) -> None:
        """Nothing listening: get and the hook's reader give up at once, saying refused."""
        url = f"nats://127.0.0.1:{free_port()}"
        for work in (connect(url, wait_for_server=False), connect_reader(url, timeout=10)):
            error, seconds = _elapsed(work)
            assert "connection refused" in str(error)
            assert seconds < 2.0
        done = run_cli("get", "s", "--nats", url)
        assert done.returncode == 2 and "connection refused" in done.stderr

    def test_a_worker_waits_for_a_refusing_server_to_come_up(
        self, server: NatsServer, tmp_path: Path
    ) -> None:
        """A worker's connection waits for a server not up yet, and says refused if none."""
        port = free_port()
        error, seconds = _elapsed(connect(f"nats://127.0.0.1:{port}", connect_seconds=1.5))
        assert "within 1.5 s" in str(error) and "connection refused" in str(error)
        assert seconds >= 1.5
        later = NatsServer(store=tmp_path / "js-later", port=port, name="later")
        starting = threading.Timer(1.0, later.start)
        starting.start()
        try:

            async def connected() -> int:
                transport = await connect(later.url, connect_seconds=20)
                await transport.close()
                return transport.partitions

            assert asyncio.run(connected()) == 16
        finally:
            starting.join()
            later.kill()

    def test_an_unknown_host_fails_at_once(self, server: NatsServer) -> None:
        """A host name that does not exist is final: no waiting for the connect time."""
        url = f"nats://{_unresolvable()}:{server.port}"
        error, seconds = _elapsed(connect(url, connect_seconds=10))
        assert "host name not found" in str(error)
        assert seconds < 5.0
