"""session_memory.apps.tail: complete lines only, honest positions, real watchfiles."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from session_memory.apps.tail import (
    FileTail,
    Tailed,
    TailStatus,
    TranscriptReplaced,
    discover_transcripts,
    find_transcripts,
    watch_changes,
)
from session_memory.core.errors import TranscriptError
from session_memory.formats.reader import object_of_line, too_long
from tests.service.service_helpers import append, user, wait_for


def _ids(items: list[Tailed]) -> list[str]:
    objects = [object_of_line(t.item, t.offset) for t in items if isinstance(t.item, bytes)]
    return [obj["event_id"] for obj in objects if isinstance(obj, dict)]


def read(tail: FileTail, stop: threading.Event | None = None) -> list[Tailed]:
    """One verified look and the lines it offers."""
    with tail.look() as look:
        return list(look.lines(stop))


def status(tail: FileTail) -> TailStatus:
    with tail.look() as look:
        return look.status


class TestFileTail:
    def test_reads_complete_lines_and_leaves_a_partial_one(self, tmp_path: Path) -> None:
        """A last line without its newline is not consumed until the newline arrives."""
        path = tmp_path / "t.jsonl"
        second = user(2, "second")
        path.write_bytes(user(1, "first") + second[:20])
        tail = FileTail(path)
        assert _ids(read(tail)) == ["evt-1"]
        assert tail.offset == len(user(1, "first"))
        append(path, second[20:])
        assert status(tail) is TailStatus.GROWN
        assert _ids(read(tail)) == ["evt-2"]
        assert tail.offset == path.stat().st_size
        assert status(tail) is TailStatus.UNCHANGED

    def test_corrupt_and_blank_lines(self, tmp_path: Path) -> None:
        """Corrupt and blank lines are offered as lines with their offsets, for the reader to
        skip; an over-long line is a SkippedLine; all advance."""
        path = tmp_path / "t.jsonl"
        first = user(1, "a")
        path.write_bytes(first + b"{not json\n" + b"\n" + b"x" * 3000 + b"\n" + user(4, "d"))
        tail = FileTail(path, max_line_bytes=1000)
        items = read(tail)
        assert [(t.item, t.offset) for t in items[1:3]] == [
            (b"{not json", len(first)),
            (b"", len(first) + 10),
        ]
        assert items[3].item == too_long(len(first) + 11, 1000)
        assert _ids(items) == ["evt-1", "evt-4"]
        assert tail.offset == path.stat().st_size

    def test_resume_from_saved_position(self, tmp_path: Path) -> None:
        """A tail built from a saved offset, fingerprint and identity reads only new lines."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(user(i, f"m{i}") for i in range(1, 4)))
        first = FileTail(path)
        read(first)
        append(path, user(4, "m4"))
        again = FileTail(path, first.offset, first.fingerprint, first.identity)
        assert status(again) is TailStatus.GROWN
        assert _ids(read(again)) == ["evt-4"]

    def test_shrunk_file_is_replaced(self, tmp_path: Path) -> None:
        """Truncation below the consumed offset means: re-derive from scratch."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a") + user(2, "b"))
        tail = FileTail(path)
        read(tail)
        with open(path, "r+b") as f:
            f.truncate(10)
        assert status(tail) is TailStatus.REPLACED

    def test_rewritten_prefix_is_replaced(self, tmp_path: Path) -> None:
        """A same-inode rewrite that is longer than before is caught by the fingerprint."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        read(tail)
        with open(path, "r+b") as f:
            f.write(user(1, "z") + user(2, "b"))
        assert tail.check() is TailStatus.GROWN
        assert status(tail) is TailStatus.REPLACED
        with tail.look() as look, pytest.raises(TranscriptReplaced):
            list(look.lines())

    def test_replaced_by_rename(self, tmp_path: Path) -> None:
        """Another file renamed over the path has another identity."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        read(tail)
        other = tmp_path / "other"
        other.write_bytes(user(1, "a") + user(2, "b"))
        os.replace(other, path)
        assert tail.check() is TailStatus.REPLACED

    def test_deleted(self, tmp_path: Path) -> None:
        """A deleted file is reported as such, not as an error."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        read(tail)
        path.unlink()
        assert status(tail) is TailStatus.DELETED

    def test_stop_event_stops_between_lines(self, tmp_path: Path) -> None:
        """A set stop event ends reading after the current line, with the offset after it."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(user(i, "x") for i in range(1, 6)))
        stop = threading.Event()
        stop.set()
        tail = FileTail(path)
        items = read(tail, stop)
        assert len(items) == 1
        assert tail.offset == items[0].end


class TestSafeOpen:
    def test_fifo_swapped_in_is_refused_without_blocking(self, tmp_path: Path) -> None:
        """A FIFO renamed over a tailed file is refused at once, not waited on."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        read(tail)
        os.mkfifo(tmp_path / "fifo")
        os.replace(tmp_path / "fifo", path)
        assert tail.check() is TailStatus.REFUSED
        assert status(tail) is TailStatus.REFUSED

    def test_symlink_swapped_in_is_refused(self, tmp_path: Path) -> None:
        """A link renamed over a tailed file is not followed, even to a regular file."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        read(tail)
        outside = tmp_path / "outside.jsonl"
        outside.write_bytes(user(1, "a") + user(2, "secret"))
        (tmp_path / "link").symlink_to(outside)
        os.replace(tmp_path / "link", path)
        assert status(tail) is TailStatus.REFUSED
        with tail.look() as look, pytest.raises(TranscriptError):
            list(look.lines())

    def test_swapped_parent_directory_is_refused(self, tmp_path: Path) -> None:
        """A parent directory replaced by a link elsewhere is caught on the descriptor."""
        sub = tmp_path / "sub"
        sub.mkdir()
        (sub / "t.jsonl").write_bytes(user(1, "a"))
        tail = FileTail(sub / "t.jsonl")
        read(tail)
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "t.jsonl").write_bytes(user(1, "a") + user(2, "secret"))
        sub.rename(tmp_path / "old")
        sub.symlink_to(elsewhere)
        assert status(tail) is TailStatus.REFUSED

    def test_reads_only_up_to_the_size_seen_at_the_open(self, tmp_path: Path) -> None:
        """Bytes appended while a look reads wait for the next look."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        with tail.look() as look:
            append(path, user(2, "b"))
            assert _ids(list(look.lines())) == ["evt-1"]
        assert _ids(read(tail)) == ["evt-2"]


class TestWatchChanges:
    def test_the_first_cue_comes_once_watching(self, tmp_path: Path) -> None:
        """The first yield, an empty set, comes as soon as the watch is set up: what is
        appended after it is notified, not left for the slow timer (an hour here)."""
        (tmp_path / "a.jsonl").write_bytes(b"")
        stop = threading.Event()
        changes = watch_changes([tmp_path], stop_event=stop, sweep_seconds=3600.0)
        guard = threading.Timer(30, stop.set)  # the test fails rather than hangs
        try:
            assert next(changes) == set()
            append(tmp_path / "a.jsonl", user(1, "a"))
            guard.start()
            assert next(changes, None) == {str(tmp_path / "a.jsonl")}
        finally:
            guard.cancel()
            stop.set()
            assert next(changes, None) is None  # the watch ends once stopped

    def test_reports_new_transcripts_and_ticks(self, tmp_path: Path) -> None:
        """A new *.jsonl or *.jsonl.zst file in a subdirectory is reported; quiet time yields
        an empty tick."""
        sub = tmp_path / "a" / "b"
        sub.mkdir(parents=True)
        stop = threading.Event()
        batches: list[set[str]] = []

        def watcher() -> None:
            for changes in watch_changes([tmp_path], stop_event=stop, sweep_seconds=0.2):
                batches.append(changes)

        thread = threading.Thread(target=watcher)
        thread.start()
        time.sleep(0.3)
        (sub / "new.jsonl").write_bytes(user(1, "a"))
        (sub / "old.jsonl.zst").write_bytes(b"x")
        (sub / "ignored.txt").write_bytes(b"x")
        for target in (str(sub / "new.jsonl"), str(sub / "old.jsonl.zst")):
            assert wait_for(lambda: any(target in b for b in batches), timeout=5)  # noqa: B023
        assert wait_for(lambda: batches[-1] == set(), timeout=5)
        assert not any(p.endswith(".txt") for b in batches for p in b)
        stop.set()
        thread.join(5)
        assert not thread.is_alive()


class TestDiscover:
    def test_symlinks_outside_the_root_are_not_followed(self, tmp_path: Path) -> None:
        """Links into the directory count; links out of it, and linked directories, do not."""
        root = tmp_path / "root"
        outside = tmp_path / "outside"
        root.mkdir()
        outside.mkdir()
        (root / "a.jsonl").write_bytes(b"")
        (outside / "secret.jsonl").write_bytes(b"")
        (root / "out.jsonl").symlink_to(outside / "secret.jsonl")
        (root / "alias.jsonl").symlink_to(root / "a.jsonl")
        (root / "linkdir").symlink_to(outside)
        (root / ".hidden.jsonl").write_bytes(b"")
        found = discover_transcripts(root)
        assert found == [str(root / "a.jsonl"), str(root / "alias.jsonl")]

    def test_compressed_rollouts_are_transcripts(self, tmp_path: Path) -> None:
        """`*.jsonl.zst` files are found next to `*.jsonl`, unless compressed ones are left out."""
        (tmp_path / "a.jsonl").write_bytes(b"")
        (tmp_path / "b.jsonl.zst").write_bytes(b"")
        (tmp_path / "c.zst").write_bytes(b"")
        both = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl.zst")]
        assert discover_transcripts(tmp_path) == both
        assert discover_transcripts(tmp_path, compressed=False) == both[:1]

    def test_each_is_found_with_its_real_path(self, tmp_path: Path) -> None:
        """The real path given with each is ``realpath``'s, under a root reached by a link,
        in nested directories, for a link inside the root too; the order is the walk's."""
        real_root = tmp_path / "real"
        (real_root / "p1" / "deep").mkdir(parents=True)
        (real_root / "p0").mkdir()
        (real_root / "z.jsonl").write_bytes(b"")
        (real_root / "p1" / "b.jsonl").write_bytes(b"")
        (real_root / "p1" / "deep" / "c.jsonl").write_bytes(b"")
        (real_root / "p0" / "a.jsonl").symlink_to(real_root / "p1" / "b.jsonl")
        (tmp_path / "root").symlink_to(real_root)
        root = tmp_path / "root"
        found = find_transcripts(root)
        assert [path for path, _ in found] == [
            str(root / "z.jsonl"),
            str(root / "p0" / "a.jsonl"),
            str(root / "p1" / "b.jsonl"),
            str(root / "p1" / "deep" / "c.jsonl"),
        ]
        assert [real for _, real in found] == [os.path.realpath(path) for path, _ in found]
        assert find_transcripts(root, known={str(root / "z.jsonl")}) == found[1:]
