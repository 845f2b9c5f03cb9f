"""Equality: what workers keep in the memory bucket is what ``derive`` prints, every format."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from tests.distributed.corpus import publish_once, wait_for_equality, write_corpus
from tests.distributed.nats_helpers import NatsServer, worker_process


def stop_all(workers: list[subprocess.Popen[bytes]], timeout: float = 20.0) -> list[int]:
    """SIGTERM every worker at once, then wait for all of them within one deadline."""
    for w in workers:
        if w.poll() is None:
            w.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    return [w.wait(max(0.1, deadline - time.monotonic())) for w in workers]


@pytest.mark.slow
def test_hundred_sessions_through_three_workers_equal_derive(
    server: NatsServer, tmp_path: Path
) -> None:
    """100 sessions x 200 lines of every format, 3 workers: each memory equals derive."""
    paths = write_corpus(tmp_path / "transcripts", 100, 200)
    workers = [worker_process(server.url, log=tmp_path / f"w{i}.log") for i in range(3)]
    try:
        published = publish_once(server.url, paths, tmp_path / "pub-state")
        assert published >= 100 * 150
        # Seconds on an idle machine; the deadline is for a loaded one (the guard is 150 s).
        differing = wait_for_equality(server.url, paths, timeout=110)
        assert not differing, sorted(differing)[:5]
    finally:
        codes = stop_all(workers)
    assert codes == [0, 0, 0]


def test_event_count_and_diagnostics_travel(server: NatsServer, tmp_path: Path) -> None:
    """The bucket's JSON carries event_count and skipped lines exactly as derive counts them."""
    path = tmp_path / "t" / "mixed.jsonl"
    path.parent.mkdir()
    path.write_bytes(
        b'{"event_id": "e1", "event_type": "message", "payload": {"role": "user", '
        b'"content": "Add a login page"}}\nnot json\n'
        b'{"event_id": "e2", "event_type": "checkpoint", "payload": {}}\n'
    )
    worker = worker_process(server.url, log=tmp_path / "w.log")
    try:
        publish_once(server.url, [path], tmp_path / "pub-state")
        assert not wait_for_equality(server.url, [path], timeout=30)
    finally:
        assert stop_all([worker]) == [0]
    from tests.distributed.corpus import derived

    memory = orjson.loads(derived(path))
    assert memory["event_count"] == 2
    assert memory["diagnostics"]["lines_skipped"] == 1
