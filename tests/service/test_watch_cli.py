"""`session-memory watch`: --once, and a clean exit on SIGINT and SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from session_memory.apps.cli import cli
from tests.service.service_helpers import append, user, varied_lines, wait_for

SCRIPT = str(Path(sys.executable).with_name("session-memory"))


def derive_json(path: Path) -> object:
    """What `session-memory derive --json` prints for the whole file."""
    done = subprocess.run(
        [SCRIPT, "derive", "--json", str(path)], capture_output=True, check=True, timeout=60
    )
    return orjson.loads(done.stdout)


class TestWatchCommand:
    def test_once_derives_and_exits(self, tmp_path: Path) -> None:
        """--once writes the outputs of everything present and returns 0."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(varied_lines(100)))
        out = tmp_path / "out"
        assert cli("watch", str(path), "--out", str(out), "--once") == 0
        assert orjson.loads((out / "s-1.memory.json").read_bytes()) == derive_json(path)

    def test_missing_path_is_a_usage_error(self, tmp_path: Path) -> None:
        """A path that does not exist: one line on stderr, exit status 2."""
        assert cli("watch", str(tmp_path / "nope"), "--out", str(tmp_path), "--once") == 2

    @pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
    def test_signal_flushes_and_exits_zero(self, tmp_path: Path, signum: int) -> None:
        """SIGTERM or SIGINT: outputs and state are current, the exit status is 0."""
        watched = tmp_path / "w"
        watched.mkdir()
        path = watched / "t.jsonl"
        path.write_bytes(user(1, "start"))
        out = tmp_path / "out"
        proc = subprocess.Popen(
            [SCRIPT, "watch", str(watched), "--out", str(out)],
            stderr=subprocess.PIPE,
        )
        try:
            memory = out / "s-1.memory.json"
            assert wait_for(memory.exists, timeout=20)
            append(path, user(2, "more"))
            assert wait_for(lambda: orjson.loads(memory.read_bytes())["event_count"] == 2)
            proc.send_signal(signum)
            _, err = proc.communicate(timeout=20)
        finally:
            proc.kill()
        assert proc.returncode == 0, err.decode()
        assert b"tailing" in err
        assert any((out / ".session-memory-state").iterdir())
        assert orjson.loads(memory.read_bytes()) == derive_json(path)
