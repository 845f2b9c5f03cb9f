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

from tests.service.service_helpers import varied_lines

SCRIPT = str(Path(sys.executable).with_name("session-memory"))
KILLS = 24


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """After 24 kills and a final --once, the memory equals `derive` of the whole file.

    The writer appends in random chunks that often end mid-line, for as long as the kills
    go on, so kills land while lines are half written, during start-up (~0.7 s, most of it
    imports and loading the encoding), catch-up, output writes and state writes.
    """
    rng = random.Random(20260825)
    watched = tmp_path / "w"
    watched.mkdir()
    path = watched / "t.jsonl"
    out = tmp_path / "out"
    data = b"".join(varied_lines(8000, seed=11))
    path.write_bytes(data[:20_000])
    killing = threading.Event()
    killing.set()
    written = [20_000]

    def writer() -> None:
        wrng = random.Random(7)
        pos = 20_000
        with open(path, "ab") as f:
            while pos < len(data) and killing.is_set():
                step = wrng.randrange(1, 3000)
                f.write(data[pos : pos + step])
                f.flush()
                pos += step
                time.sleep(wrng.uniform(0.0, 0.05))
            # End on a complete line, as a transcript at rest does.
            end = data.index(b"\n", pos - 1) + 1 if pos < len(data) else len(data)
            f.write(data[pos:end])
            written[0] = end

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
            time.sleep(rng.uniform(0.4, 1.6))
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            kills += 1
    finally:
        killing.clear()
        thread.join()
    assert path.read_bytes() == data[: written[0]]
    assert written[0] > 500_000
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
