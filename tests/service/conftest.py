"""Fixtures of the service tests, which wait on real files and watchers: a per-test time
guard, and services run in threads that are stopped and joined after each test."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from session_memory.apps.service import MemoryService
from tests.time_guard import time_guard_fixture

time_guard = time_guard_fixture(fast=30.0)


@pytest.fixture
def running() -> Iterator[list[tuple[MemoryService, threading.Thread]]]:
    """Services started in threads; all are stopped and joined after the test."""
    started: list[tuple[MemoryService, threading.Thread]] = []
    yield started
    for service, thread in started:
        service.stop()
        thread.join(10)
        assert not thread.is_alive()
