"""A catch-up of many new transcripts derives them in worker processes, with the same bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.service.service_helpers import varied_lines, wait_for
from tests.service.test_service import output, rebuild

ROOT = Path(__file__).resolve().parents[2]

# A real process (workers are forked only from a process with no other thread).
_RUN = """
import logging, sys
from session_memory.apps.service import MemoryService
logging.basicConfig(level=logging.INFO, stream=sys.stderr)
service = MemoryService([sys.argv[1]], sys.argv[2], farm_min=int(sys.argv[3]))
service.run() if sys.argv[4] == "run" else service.run_once()
"""


def _command(watched: Path, out: Path, farm_min: int, mode: str) -> list[str]:
    return [sys.executable, "-c", _RUN, str(watched), str(out), str(farm_min), mode]


def _once(watched: Path, out: Path, farm_min: int) -> str:
    """``run_once`` in a process of its own; its log."""
    done = subprocess.run(
        _command(watched, out, farm_min, "once"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stderr


def _tree(watched: Path, n: int, events: int, sessions: int) -> list[Path]:
    """``n`` varied native transcripts (bad lines included) of ``sessions`` session ids;
    plus odd files the workers leave to the service: an empty one, one of a partial line,
    one of another format."""
    paths = []
    for k in range(n):
        path = watched / f"p{k % 3}" / f"t{k:03d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(varied_lines(events, seed=k, session=f"s-{k % sessions}")))
        paths.append(path)
    (watched / "p0" / "empty.jsonl").write_bytes(b"")
    (watched / "p1" / "partial.jsonl").write_bytes(b'{"event_id": "e-1", "session')
    (watched / "p2" / "other.jsonl").write_bytes(b'{"type": "unknown", "x": 1}\n' * 3)
    return paths


def _files(root: Path) -> dict[str, bytes]:
    """Every entry under ``root``: a file's bytes, a link's target."""
    found = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(directory) / name
            if path.is_symlink():
                found[str(path.relative_to(root))] = os.readlink(path).encode()
            elif path.is_file():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers: Linux")
class TestWorkers:
    def test_workers_write_exactly_what_the_service_alone_writes(self, tmp_path: Path) -> None:
        """A catch-up with worker processes leaves the same outputs, states, names and
        generations, byte for byte, as one without."""
        if len(os.sched_getaffinity(0)) < 2:
            pytest.skip("one core: no workers")
        watched = tmp_path / "watched"
        _tree(watched, 40, 30, sessions=38)  # two names taken twice
        assert "worker processes" not in _once(watched, tmp_path / "alone", 10**9)
        assert "41 of 43 new transcript(s) derived in" in _once(watched, tmp_path / "farmed", 1)
        assert _files(tmp_path / "farmed") == _files(tmp_path / "alone")

    @pytest.mark.slow
    def test_a_kill_during_a_catch_up_with_workers_loses_and_duplicates_nothing(
        self, tmp_path: Path
    ) -> None:
        """Killed while its workers derive, the service leaves no worker behind, and the
        next start ends with every memory equal to a full rebuild."""
        if len(os.sched_getaffinity(0)) < 2:
            pytest.skip("one core: no workers")
        watched, out = tmp_path / "watched", tmp_path / "out"
        paths = _tree(watched, 200, 60, sessions=200)
        proc = subprocess.Popen(
            _command(watched, out, 1, "run"),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert wait_for(lambda: len(list(out.glob("*.memory.json"))) >= 20, timeout=60)
            workers = _children(proc.pid)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        assert workers
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [w for w in workers if Path(f"/proc/{w}").exists()]
        _once(watched, out, 10**9)
        for k, path in enumerate(paths):
            assert output(out, f"s-{k}") == rebuild(path)
