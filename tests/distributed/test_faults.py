"""Faults: workers SIGKILLed, the server restarted, events published twice; memories stay exact."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.distributed.corpus import publish_once, transcript_lines, wait_for_equality
from tests.distributed.nats_helpers import NatsServer, worker_process

SESSIONS = 30
LEASE = "1.5"


def _append_slowly(paths: list[Path], contents: list[list[bytes]], seconds: float) -> None:
    """Write every transcript in ~20 steps over ``seconds``, as agents would."""
    steps = 20
    for step in range(steps):
        for path, lines in zip(paths, contents, strict=True):
            chunk = lines[len(lines) * step // steps : len(lines) * (step + 1) // steps]
            with path.open("ab") as f:
                f.write(b"".join(chunk))
        time.sleep(seconds / steps)


@pytest.mark.slow
def test_killed_workers_a_restarted_server_and_repeated_publishing_lose_nothing(
    server: NatsServer, tmp_path: Path
) -> None:
    """20+ worker SIGKILLs and a server restart while publishing; then equality with derive."""
    directory = tmp_path / "transcripts"
    directory.mkdir()
    paths = [directory / f"t{i:03d}.jsonl" for i in range(SESSIONS)]
    contents = [transcript_lines(i, 200) for i in range(SESSIONS)]
    for path in paths:
        path.touch()
    logs = tmp_path / "logs"
    logs.mkdir()
    with (logs / "publish.log").open("wb") as log:
        publisher = subprocess.Popen(
            [
                *(sys.executable, "-m", "session_memory.apps.cli", "publish", str(directory)),
                *("--nats", server.url, "--state", str(tmp_path / "pub-state")),
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
            stdin=subprocess.DEVNULL,
        )
    workers = [
        worker_process(server.url, "--lease-seconds", LEASE, log=logs / f"w{i}-0.log")
        for i in range(3)
    ]
    current = [logs / f"w{i}-0.log" for i in range(3)]
    writer = threading.Thread(target=_append_slowly, args=(paths, contents, 12.0))
    writer.start()
    rng = random.Random(16)
    kills = 0
    try:
        deadline = time.monotonic() + 14.0
        while time.monotonic() < deadline or kills < 20:
            time.sleep(rng.uniform(0.2, 0.6))
            # A victim that holds partitions (it said so), so the kill interrupts folding.
            ready = [i for i, log in enumerate(current) if b"partition claimed" in log.read_bytes()]
            if not ready:
                continue
            victim = rng.choice(ready)
            workers[victim].send_signal(signal.SIGKILL)
            workers[victim].wait(10)
            kills += 1
            current[victim] = logs / f"w{victim}-{kills}.log"
            workers[victim] = worker_process(
                server.url, "--lease-seconds", LEASE, log=current[victim]
            )
            if kills == 10:
                server.kill()
                time.sleep(1.0)
                server.start()
        writer.join()
        # The same events once more, from a publisher that remembers nothing.
        publish_once(server.url, paths, tmp_path / "fresh-state")
        differing = wait_for_equality(server.url, paths, timeout=60)
        assert not differing, sorted(differing)[:5]
        assert kills >= 20
        assert publisher.poll() is None, "the publisher survived the server restart"
    finally:
        for proc in [*workers, publisher]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in [*workers, publisher]:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
