"""Fixtures of the distributed tests: real JetStream servers, transcripts of every format."""

from __future__ import annotations

import faulthandler
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

pytest.importorskip("nats", reason="the nats extra is not installed")

from tests.distributed.nats_helpers import NatsServer, nats_server

FAST_LIMIT = 40.0
SLOW_LIMIT = 150.0


class GuardTimeout(Exception):
    """Raised in the main thread when a test overruns its guard."""


@pytest.fixture(autouse=True)
def time_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that runs too long instead of hanging the suite (servers are stopped)."""
    limit = SLOW_LIMIT if request.node.get_closest_marker("slow") else FAST_LIMIT

    def on_alarm(_signum: int, _frame: FrameType | None) -> None:
        raise GuardTimeout(f"test ran longer than {limit:.0f} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    faulthandler.dump_traceback_later(limit + 15, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[NatsServer]:
    """A JetStream server on 127.0.0.1 with a temporary store, stopped after the test."""
    with nats_server(tmp_path) as s:
        yield s
