"""Fixtures of the distributed tests: real JetStream servers, transcripts of every format."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("nats", reason="the nats extra is not installed")

from tests.distributed.nats_helpers import NatsServer, nats_server
from tests.time_guard import time_guard_fixture

time_guard = time_guard_fixture(fast=40.0)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[NatsServer]:
    """A JetStream server on 127.0.0.1 with a temporary store, stopped after the test."""
    with nats_server(tmp_path) as s:
        yield s
