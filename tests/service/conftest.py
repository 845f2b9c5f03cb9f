"""A per-test time guard for the service tests, which wait on real files and watchers."""

from __future__ import annotations

import faulthandler
import signal
import sys
from collections.abc import Iterator
from types import FrameType

import pytest

FAST_LIMIT = 30.0
SLOW_LIMIT = 150.0


class GuardTimeout(Exception):
    """Raised in the main thread when a test overruns its guard."""


@pytest.fixture(autouse=True)
def time_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that runs too long instead of hanging the suite.

    SIGALRM raises in the main thread (watchfiles checks for signals every step, so even a
    test blocked in a watcher gets it); faulthandler dumps all stacks and exits if even
    that does not end it.
    """
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
