"""Files swapped under a real `watch` process: links, FIFOs, devices, planted outputs, state."""

from __future__ import annotations

import os
import subprocess
import time
from functools import partial
from pathlib import Path

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import state_path
from session_memory.apps.service import MemoryService
from session_memory.formats import read_transcript
from tests.service.service_helpers import (
    SCRIPT,
    WatchProcess,
    append,
    file_mode,
    tree_contains,
    user,
    varied_lines,
    wait_for,
)

SECRET = b"OUTSIDE-SECRET-7f3a"


def derived_json(path: Path) -> object:
    return orjson.loads(SessionMemoryDeriver.rebuild(read_transcript(path)).memory.to_json())


def event_count(out: Path, name: str) -> int:
    try:
        count: int = orjson.loads((out / f"{name}.memory.json").read_bytes())["event_count"]
    except (OSError, orjson.JSONDecodeError):
        return -1
    return count


def has_count(out: Path, name: str, want: int) -> bool:
    return event_count(out, name) == want


def two_transcripts(root: Path) -> tuple[Path, Path]:
    """``a.jsonl`` (session A) and ``b.jsonl`` (session B) in ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    a, b = root / "a.jsonl", root / "b.jsonl"
    a.write_bytes(user(1, "task a", session="A"))
    b.write_bytes(user(1, "task b", session="B"))
    return a, b


def outside_file(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "a.jsonl"
    outside.parent.mkdir(exist_ok=True)
    outside.write_bytes(user(1, "task a", session="A") + user(2, SECRET.decode(), session="A") * 3)
    return outside


def swap(path: Path, make: str, target: Path | None = None) -> None:
    """Rename a link (to ``target``) or a FIFO over ``path``, as `mv -T` does."""
    tmp = path.with_name(".swap")
    if make == "link":
        assert target is not None
        tmp.symlink_to(target)
    else:
        os.mkfifo(tmp)
    os.replace(tmp, path)


def b_keeps_updating(b: Path, out: Path, start: int = 2) -> None:
    """Lines appended to b reach its memory: the service was not blocked or diverted."""
    for i in range(start, start + 3):
        append(b, user(i, f"more b {i}", session="B"))
        assert wait_for(partial(has_count, out, "B", i), timeout=10)


@pytest.fixture
def watched(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    root, out = tmp_path / "w", tmp_path / "out"
    a, b = two_transcripts(root)
    return root, out, a, b


def start(root: Path, out: Path, tmp_path: Path) -> WatchProcess:
    watch = WatchProcess(root, "--out", out, log=tmp_path / "watch.log")
    assert wait_for(lambda: event_count(out, "A") == 1 and event_count(out, "B") == 1, 30)
    return watch


class TestSwappedTranscripts:
    def test_link_to_an_outside_file_renamed_over_a_transcript(
        self, tmp_path: Path, watched: tuple[Path, Path, Path, Path]
    ) -> None:
        """A link renamed over a tailed file is not followed, now or after a restart."""
        root, out, a, b = watched
        outside = outside_file(tmp_path)
        with start(root, out, tmp_path) as watch:
            swap(a, "link", outside)
            append(outside, user(9, SECRET.decode(), session="A"))
            time.sleep(1.5)  # a sweep passes
            b_keeps_updating(b, out)
            assert watch.terminate() == 0
            assert "no longer a regular file" in watch.log()
        again = subprocess.run(
            [SCRIPT, "watch", str(root), "--out", str(out), "--once"], capture_output=True
        )
        assert again.returncode == 0, again.stderr.decode()
        assert tree_contains(out, SECRET) == []

    def test_watched_subdirectory_swapped_for_a_link(self, tmp_path: Path) -> None:
        """A subdirectory replaced by a link to another directory is not read through."""
        root, out = tmp_path / "w", tmp_path / "out"
        sub = root / "sub"
        _a, b = two_transcripts(sub)
        b.rename(root / "b.jsonl")
        b = root / "b.jsonl"
        outside = outside_file(tmp_path)
        with start(root, out, tmp_path) as watch:
            sub.rename(tmp_path / "old-sub")
            sub.symlink_to(outside.parent, target_is_directory=True)
            append(outside, user(9, SECRET.decode(), session="A"))
            time.sleep(1.5)
            b_keeps_updating(b, out)
            assert watch.terminate() == 0
        again = subprocess.run(
            [SCRIPT, "watch", str(root), "--out", str(out), "--once"], capture_output=True
        )
        assert again.returncode == 0, again.stderr.decode()
        assert tree_contains(out, SECRET) == []

    def test_fifo_swapped_over_a_transcript(
        self, tmp_path: Path, watched: tuple[Path, Path, Path, Path]
    ) -> None:
        """A FIFO renamed over a tailed file blocks nothing: others update, SIGTERM stops it."""
        root, out, a, b = watched
        with start(root, out, tmp_path) as watch:
            swap(a, "fifo")
            time.sleep(1.5)
            b_keeps_updating(b, out)
            assert watch.terminate() == 0

    def test_dev_zero_swapped_over_a_transcript(
        self, tmp_path: Path, watched: tuple[Path, Path, Path, Path]
    ) -> None:
        """A link to /dev/zero renamed over a tailed file is not read: no CPU burnt, others
        update, SIGTERM stops it."""
        root, out, a, b = watched
        with start(root, out, tmp_path) as watch:
            swap(a, "link", Path("/dev/zero"))
            time.sleep(1.5)
            cpu = watch.cpu_seconds()
            time.sleep(2.0)
            assert watch.cpu_seconds() - cpu < 0.5
            b_keeps_updating(b, out)
            assert watch.rss_mib() < 400
            assert watch.terminate() == 0


class TestPlantedFiles:
    def test_output_planted_as_a_link_to_dev_zero(self, tmp_path: Path) -> None:
        """Outputs planted as links to /dev/zero (fresh, and in a published generation) are
        replaced, never read."""
        root, out = tmp_path / "w", tmp_path / "out"
        root.mkdir()
        path = root / "s.jsonl"
        path.write_bytes(b"".join(varied_lines(40, session="s")))
        out.mkdir(mode=0o700)
        (out / "s.memory.md").symlink_to("/dev/zero")
        (out / "s.memory.json").symlink_to("/dev/zero")
        with WatchProcess(root, "--out", out, log=tmp_path / "watch.log") as watch:
            assert wait_for(lambda: os.readlink(out / "s.memory.md") != "/dev/zero", 30)
            assert watch.rss_mib() < 400
            assert watch.terminate() == 0
        assert orjson.loads((out / "s.memory.json").read_bytes()) == derived_json(path)
        # Now inside the published generation, before a restart reads it back.
        pointer = out / ".generations" / "s.current"
        planted = os.readlink(pointer)
        for name in ("memory.md", "memory.json"):
            (pointer.parent / planted / name).unlink()
            (pointer.parent / planted / name).symlink_to("/dev/zero")
        append(path, user(500, "after the plant", session="s"))
        with WatchProcess(root, "--out", out, log=tmp_path / "again.log") as watch:
            # Not read through the planted links here either: wait for a new generation.
            assert wait_for(lambda: os.readlink(pointer) != planted, 30)
            assert watch.rss_mib() < 400
            assert watch.terminate() == 0
        assert orjson.loads((out / "s.memory.json").read_bytes()) == derived_json(path)

    @pytest.mark.parametrize("plant", ["/dev/urandom", "fifo"])
    def test_state_file_planted_as_a_device_or_fifo(self, tmp_path: Path, plant: str) -> None:
        """A state file that is a link to /dev/urandom, or a FIFO, is not read: one warning,
        a rebuild equal to derive."""
        root, out = tmp_path / "w", tmp_path / "out"
        root.mkdir()
        path = root / "s.jsonl"
        path.write_bytes(b"".join(varied_lines(40, session="s")))
        service = MemoryService([root], out)
        service.run_once()
        spath = state_path(service.state_dir, str(path.resolve()))
        spath.unlink()
        if plant == "fifo":
            os.mkfifo(spath)
        else:
            spath.symlink_to(plant)
        append(path, user(500, "after the plant", session="s"))
        done = subprocess.run(
            [SCRIPT, "watch", str(root), "--out", str(out), "--once"],
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert done.stderr.count(b"rebuilding") == 1
        assert orjson.loads((out / "s.memory.json").read_bytes()) == derived_json(path)


class TestDeriveOnSpecialFiles:
    def test_derive_refuses_a_fifo(self, tmp_path: Path) -> None:
        """`derive` on a FIFO is refused at once with a clear error, instead of blocking."""
        fifo = tmp_path / "t.jsonl"
        os.mkfifo(fifo)
        done = subprocess.run([SCRIPT, "derive", str(fifo)], capture_output=True, timeout=30)
        assert done.returncode == 2
        assert b"not a regular file" in done.stderr

    def test_derive_reads_a_stream_named_dash(self, tmp_path: Path) -> None:
        """A stream piped to standard input and named - is read."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(varied_lines(30)))
        with open(path, "rb") as f:
            done = subprocess.run(
                [SCRIPT, "derive", "--json", "-"], stdin=f, capture_output=True, timeout=30
            )
        assert done.returncode == 0
        assert orjson.loads(done.stdout) == derived_json(path)


class TestDirectories:
    def test_created_directories_and_parents_are_private(self, tmp_path: Path) -> None:
        """--out and --state, and every parent the tool creates, are made 0700."""
        root = tmp_path / "w"
        root.mkdir()
        (root / "s.jsonl").write_bytes(user(1, "x"))
        out, state = tmp_path / "a" / "b" / "out", tmp_path / "c" / "d" / "state"
        done = subprocess.run(
            [SCRIPT, "watch", str(root), "--out", str(out), "--state", str(state), "--once"],
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr.decode()
        for d in (out, out.parent, out.parent.parent, state, state.parent, state.parent.parent):
            assert file_mode(d) == 0o700, d
        assert b"accessible to its group" not in done.stderr

    def test_an_open_existing_directory_gets_a_warning(self, tmp_path: Path) -> None:
        """An existing --out its group or others may read is used, with a warning."""
        root = tmp_path / "w"
        root.mkdir()
        (root / "s.jsonl").write_bytes(user(1, "x"))
        out = tmp_path / "out"
        out.mkdir()
        out.chmod(0o755)
        done = subprocess.run(
            [SCRIPT, "watch", str(root), "--out", str(out), "--once"],
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 0
        assert b"accessible to its group or others (mode 755)" in done.stderr

    def test_a_hard_link_is_tailed_like_the_file_it_names(self, tmp_path: Path) -> None:
        """A hard link is a second name of a regular file, read like any transcript
        (as documented: links across file systems are impossible, within one they are not
        swaps)."""
        root, out = tmp_path / "w", tmp_path / "out"
        root.mkdir()
        elsewhere = tmp_path / "elsewhere.jsonl"
        elsewhere.write_bytes(user(1, "linked", session="L"))
        os.link(elsewhere, root / "l.jsonl")
        MemoryService([root], out).run_once()
        assert event_count(out, "L") == 1
