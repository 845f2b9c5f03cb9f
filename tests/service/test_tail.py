"""session_memory.tail: complete lines only, honest positions, real watchfiles."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from session_memory.memory import SkippedLine
from session_memory.tail import (
    FileTail,
    Tailed,
    TailStatus,
    TranscriptReplaced,
    discover_transcripts,
    tail_file,
    watch_changes,
)
from tests.service.service_helpers import append, event, user, wait_for


def _ids(items: list[Tailed]) -> list[str]:
    return [t.item["event_id"] for t in items if not isinstance(t.item, SkippedLine)]


class TestFileTail:
    def test_reads_complete_lines_and_leaves_a_partial_one(self, tmp_path: Path) -> None:
        """A last line without its newline is not consumed until the newline arrives."""
        path = tmp_path / "t.jsonl"
        second = user(2, "second")
        path.write_bytes(user(1, "first") + second[:20])
        tail = FileTail(path)
        assert _ids(list(tail.read())) == ["evt-1"]
        assert tail.offset == len(user(1, "first"))
        append(path, second[20:])
        assert tail.check() is TailStatus.GROWN
        assert _ids(list(tail.read())) == ["evt-2"]
        assert tail.offset == path.stat().st_size
        assert tail.check() is TailStatus.UNCHANGED

    def test_corrupt_and_blank_lines(self, tmp_path: Path) -> None:
        """Corrupt and blank lines are SkippedLines with their offsets; both advance."""
        path = tmp_path / "t.jsonl"
        first = user(1, "a")
        path.write_bytes(first + b"{not json\n" + b"\n" + user(3, "c"))
        items = list(FileTail(path).read())
        assert isinstance(items[1].item, SkippedLine)
        assert items[1].item.offset == len(first)
        assert isinstance(items[2].item, SkippedLine)
        assert items[2].item.reason == "blank line"
        assert _ids(items) == ["evt-1", "evt-3"]

    def test_resume_from_saved_position(self, tmp_path: Path) -> None:
        """A tail built from a saved offset, fingerprint and identity reads only new lines."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(user(i, f"m{i}") for i in range(1, 4)))
        first = FileTail(path)
        list(first.read())
        append(path, user(4, "m4"))
        again = FileTail(path, first.offset, first.fingerprint, first.identity)
        assert again.check() is TailStatus.GROWN
        assert _ids(list(again.read())) == ["evt-4"]

    def test_shrunk_file_is_replaced(self, tmp_path: Path) -> None:
        """Truncation below the consumed offset means: re-derive from scratch."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a") + user(2, "b"))
        tail = FileTail(path)
        list(tail.read())
        with open(path, "r+b") as f:
            f.truncate(10)
        assert tail.check() is TailStatus.REPLACED

    def test_rewritten_prefix_is_replaced(self, tmp_path: Path) -> None:
        """A same-inode rewrite that is longer than before is caught by the fingerprint."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        list(tail.read())
        with open(path, "r+b") as f:
            f.write(user(1, "z") + user(2, "b"))
        assert tail.check(verify=False) is TailStatus.GROWN
        assert tail.check() is TailStatus.REPLACED

    def test_replaced_by_rename(self, tmp_path: Path) -> None:
        """Another file renamed over the path has another identity."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        list(tail.read())
        other = tmp_path / "other"
        other.write_bytes(user(1, "a") + user(2, "b"))
        os.replace(other, path)
        assert tail.check(verify=False) is TailStatus.REPLACED

    def test_deleted(self, tmp_path: Path) -> None:
        """A deleted file is reported as such, not as an error."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        tail = FileTail(path)
        list(tail.read())
        path.unlink()
        assert tail.check() is TailStatus.DELETED

    def test_stop_event_stops_between_lines(self, tmp_path: Path) -> None:
        """A set stop event ends reading after the current line, with the offset after it."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(b"".join(user(i, "x") for i in range(1, 6)))
        stop = threading.Event()
        stop.set()
        tail = FileTail(path)
        items = list(tail.read(stop))
        assert len(items) == 1
        assert tail.offset == items[0].end


class TestTailFile:
    def test_follows_a_writer_thread_with_a_line_in_two_halves(self, tmp_path: Path) -> None:
        """Real watchfiles, a writer thread, a line split by a pause: each event once, in order."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "start"))
        stop = threading.Event()
        seen: list[str] = []

        def writer() -> None:
            for i in range(2, 12):
                line = event(i, "message", {"role": "assistant", "content": f"step {i}"})
                if i == 6:
                    append(path, line[:15])
                    time.sleep(0.3)
                    append(path, line[15:])
                else:
                    append(path, line)
                time.sleep(0.02)

        def reader() -> None:
            for item in tail_file(path, stop_event=stop, sweep_seconds=0.2):
                if not isinstance(item.item, SkippedLine):
                    seen.append(item.item["event_id"])

        consumer = threading.Thread(target=reader)
        consumer.start()
        producer = threading.Thread(target=writer)
        producer.start()
        producer.join()
        assert wait_for(lambda: len(seen) == 11, timeout=5)
        stop.set()
        consumer.join(5)
        assert not consumer.is_alive()
        assert seen == [f"evt-{i}" for i in range(1, 12)]

    def test_ends_when_the_file_is_deleted(self, tmp_path: Path) -> None:
        """Deleting the tailed file ends the generator quietly."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        done = threading.Event()

        def reader() -> None:
            list(tail_file(path, sweep_seconds=0.2))
            done.set()

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        time.sleep(0.2)
        path.unlink()
        assert done.wait(5)

    def test_truncation_raises_replaced(self, tmp_path: Path) -> None:
        """A file truncated under the tailer raises TranscriptReplaced."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a") + user(2, "b"))
        gen = tail_file(path, sweep_seconds=0.2)
        assert next(gen).end > 0
        next(gen)
        path.write_bytes(b"")
        with pytest.raises(TranscriptReplaced):
            next(gen)

    def test_start_past_the_end_raises_replaced(self, tmp_path: Path) -> None:
        """A start offset beyond the file's size means the file is not the one that was read."""
        path = tmp_path / "t.jsonl"
        path.write_bytes(user(1, "a"))
        with pytest.raises(TranscriptReplaced):
            next(tail_file(path, 10_000))


class TestWatchChanges:
    def test_reports_new_transcripts_and_ticks(self, tmp_path: Path) -> None:
        """A new *.jsonl file in a subdirectory is reported; quiet time yields an empty tick."""
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
        (sub / "ignored.txt").write_bytes(b"x")
        target = str(sub / "new.jsonl")
        assert wait_for(lambda: any(target in b for b in batches), timeout=5)
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
