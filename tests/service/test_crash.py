"""The crash test: SIGKILL the watch process at random moments while a writer appends."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from service_helpers import varied_lines

SCRIPT = str(Path(sys.executable).with_name("session-memory"))
KILLS = 24


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """After 24 kills and a final --once, the memory equals `derive` of the whole file.

    The writer appends in random chunks that often end mid-line, so kills land while lines
    are half written, during catch-up, during output writes and during state writes.
    """
    rng = random.Random(20260825)
    watched = tmp_path / "w"
    watched.mkdir()
    path = watched / "t.jsonl"
    out = tmp_path / "out"
    data = b"".join(varied_lines(4000, seed=11))
    path.write_bytes(data[:20_000])
    done = threading.Event()

    def writer() -> None:
        pos = 20_000
        with open(path, "ab") as f:
            while pos < len(data):
                step = rng.randrange(1, 3000)
                f.write(data[pos : pos + step])
                f.flush()
                pos += step
                time.sleep(rng.uniform(0.0, 0.03))
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    kills = 0
    try:
        while kills < KILLS:
            proc = subprocess.Popen(
                [SCRIPT, "watch", str(watched), "--out", str(out)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(0.1, 1.2))
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            kills += 1
    finally:
        thread.join()
    assert done.is_set()
    assert path.read_bytes() == data
    final = subprocess.run(
        [SCRIPT, "watch", str(watched), "--out", str(out), "--once"],
        capture_output=True,
        timeout=60,
    )
    assert final.returncode == 0, final.stderr.decode()
    derived = subprocess.run(
        [SCRIPT, "derive", "--json", str(path)], capture_output=True, check=True, timeout=60
    )
    expected = orjson.loads(derived.stdout)
    got = orjson.loads((out / "s-1.memory.json").read_bytes())
    assert got["event_count"] == expected["event_count"]
    assert got == expected
