"""A per-test time guard, for the suites that wait on real processes, files and servers."""

from __future__ import annotations

import faulthandler
import signal
import sys
from collections.abc import Callable, Iterator
from types import FrameType

import pytest

SLOW_LIMIT = 150.0


class GuardTimeout(Exception):
    """Raised in the main thread when a test overruns its guard."""


def time_guard_fixture(
    fast: float, slow: float = SLOW_LIMIT
) -> Callable[[pytest.FixtureRequest], Iterator[None]]:
    """An autouse fixture failing a test after ``fast`` seconds (``slow`` if marked slow).

    SIGALRM raises in the main thread (watchfiles checks for signals every step, so even a
    test blocked in a watcher gets it); faulthandler dumps all stacks and exits if even
    that does not end it, so the suite never hangs (servers are stopped by their fixtures).
    """

    @pytest.fixture(autouse=True)
    def time_guard(request: pytest.FixtureRequest) -> Iterator[None]:
        limit = slow if request.node.get_closest_marker("slow") else fast

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

    return time_guard
