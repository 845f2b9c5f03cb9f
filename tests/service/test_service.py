"""session_memory.apps.service.MemoryService: outputs equal a full rebuild, whatever happens."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps import service as service_module
from session_memory.apps.cli import cli
from session_memory.apps.memory_dir import outputs as store
from session_memory.apps.memory_dir.outputs import TranscriptState, safe_name, state_path
from session_memory.apps.service import MemoryService, loop, update, writers
from session_memory.core.errors import ConfigError
from session_memory.formats.reader import read_records
from tests.service.service_helpers import append, event, file_mode, user, varied_lines, wait_for


def rebuild(path: Path, budget: int = 1200) -> dict[str, Any]:
    """The memory a full rebuild of the whole file gives, as JSON."""
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    deriver.apply_all(read_records(path))
    result: dict[str, Any] = orjson.loads(deriver.memory.to_json())
    return result


def output(out: Path, name: str) -> dict[str, Any] | None:
    path = out / f"{name}.memory.json"
    if not path.exists():
        return None
    result: dict[str, Any] = orjson.loads(path.read_bytes())
    return result


def write_transcripts(
    watched: Path, count: int, total: int, *, written: int
) -> tuple[list[Path], dict[Path, list[bytes]]]:
    """``count`` transcripts of ``total`` varied lines each (sessions s-0, s-1...), the
    first ``written`` of them on disk; the paths, and each one's lines."""
    paths = [watched / f"t{k:02d}.jsonl" for k in range(count)]
    lines = {p: varied_lines(total, session=f"s-{k}") for k, p in enumerate(paths)}
    for p in paths:
        p.write_bytes(b"".join(lines[p][:written]))
    return paths, lines


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    watched = tmp_path / "transcripts"
    watched.mkdir()
    return watched, tmp_path / "out"


def start(
    running: list[tuple[MemoryService, threading.Thread]], *args: Any, **kwargs: Any
) -> MemoryService:
    kwargs.setdefault("sweep_seconds", 0.3)
    service = MemoryService(*args, **kwargs)
    thread = threading.Thread(target=service.run)
    thread.start()
    running.append((service, thread))
    return service


class TestRunOnce:
    def test_outputs_equal_a_full_rebuild(self, dirs: tuple[Path, Path]) -> None:
        """Each transcript gets <session>.memory.json equal to derive, and .memory.md."""
        watched, out = dirs
        (watched / "sub").mkdir()
        a = watched / "a.jsonl"
        b = watched / "sub" / "b.jsonl"
        a.write_bytes(b"".join(varied_lines(200, seed=1, session="alpha")))
        b.write_bytes(b"".join(varied_lines(50, seed=2, session="beta")))
        summary = MemoryService([watched], out).run_once()
        assert summary.transcripts == 2
        assert output(out, "alpha") == rebuild(a)
        assert output(out, "beta") == rebuild(b)
        assert (out / "alpha.memory.md").read_text().startswith("# Session memory")

    def test_private_modes(self, dirs: tuple[Path, Path]) -> None:
        """Output, state and generation directories are 0o700, every file in them 0o600."""
        watched, out = dirs
        (watched / "a.jsonl").write_bytes(b"".join(varied_lines(20)))
        service = MemoryService([watched], out)
        service.run_once()
        assert file_mode(out) == 0o700
        assert file_mode(service.state_dir) == 0o700
        dirs_in = [p for p in out.rglob("*") if p.is_dir() and not p.is_symlink()]
        assert all(file_mode(p) == 0o700 for p in dirs_in)
        files = [p for p in out.rglob("*") if p.is_file() and not p.is_symlink()]
        assert len(files) == 3  # the pair of one generation, and the state
        assert all(file_mode(p) == 0o600 for p in files)

    def test_restart_reads_only_new_bytes(self, dirs: tuple[Path, Path]) -> None:
        """A second service resumes from the saved offset and ends equal to a rebuild."""
        watched, out = dirs
        path = watched / "a.jsonl"
        lines = varied_lines(300, seed=3)
        path.write_bytes(b"".join(lines[:200]))
        MemoryService([watched], out).run_once()
        append(path, b"".join(lines[200:]))
        summary = MemoryService([watched], out).run_once()
        assert summary.events + summary.skipped == 100
        assert output(out, "s-1") == rebuild(path)

    def test_unchanged_memory_is_not_rewritten(self, dirs: tuple[Path, Path]) -> None:
        """Outputs are rewritten only when the memory changed, across restarts too."""
        watched, out = dirs
        (watched / "a.jsonl").write_bytes(b"".join(varied_lines(30)))
        assert MemoryService([watched], out).run_once().outputs_written == 1
        before = (out / "s-1.memory.json").stat().st_mtime_ns
        assert MemoryService([watched], out).run_once().outputs_written == 0
        assert (out / "s-1.memory.json").stat().st_mtime_ns == before

    def test_outputs_are_reconciled_with_state(self, dirs: tuple[Path, Path]) -> None:
        """Outputs lost or edited while stopped are rewritten from the state on start."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(30)))
        MemoryService([watched], out).run_once()
        (out / "s-1.memory.json").write_bytes(b"{}")
        (out / "s-1.memory.md").unlink()
        MemoryService([watched], out).run_once()
        assert output(out, "s-1") == rebuild(path)
        assert (out / "s-1.memory.md").exists()

    def test_corrupt_middle_line_is_skipped(self, dirs: tuple[Path, Path]) -> None:
        """A corrupt line in the middle is counted and skipped; the lines after it count."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(user(1, "a") + b'{"event_id": 3, oops\n' + user(2, "b"))
        MemoryService([watched], out).run_once()
        memory = output(out, "s-1")
        assert memory == rebuild(path)
        assert memory is not None
        assert memory["event_count"] == 2
        assert memory["diagnostics"]["lines_skipped"] == 1

    def test_rewritten_file_is_derived_again(self, dirs: tuple[Path, Path]) -> None:
        """A file rewritten between runs (shorter or same prefix length) is rebuilt."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(100, seed=4)))
        MemoryService([watched], out).run_once()
        path.write_bytes(b"".join(varied_lines(40, seed=5)))
        MemoryService([watched], out).run_once()
        assert output(out, "s-1") == rebuild(path)
        path.write_bytes(b"".join(varied_lines(140, seed=6)))
        MemoryService([watched], out).run_once()
        assert output(out, "s-1") == rebuild(path)

    def test_damaged_state_means_rebuild(self, dirs: tuple[Path, Path]) -> None:
        """A damaged state file is not trusted: the transcript is derived from the start."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(50)))
        service = MemoryService([watched], out)
        service.run_once()
        state_path(service.state_dir, str(path.resolve())).write_bytes(b"junk")
        append(path, user(999, "more"))
        MemoryService([watched], out).run_once()
        assert output(out, "s-1") == rebuild(path)

    def test_another_budget_means_rebuild(self, dirs: tuple[Path, Path]) -> None:
        """A state derived with another budget is not resumed."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(80)))
        MemoryService([watched], out, budget_tokens=1200).run_once()
        MemoryService([watched], out, budget_tokens=600).run_once()
        assert output(out, "s-1") == rebuild(path, budget=600)

    def test_missing_path_is_a_config_error(self, tmp_path: Path) -> None:
        """A path that does not exist fails at construction."""
        with pytest.raises(ConfigError):
            MemoryService([tmp_path / "nope"], tmp_path / "out")


class TestNames:
    @pytest.mark.parametrize("hostile", ["../../x", "/etc/passwd", "a\x00b", "y" * 10_000])
    def test_hostile_session_ids_stay_inside_out(self, tmp_path: Path, hostile: str) -> None:
        """A hostile session id becomes a safe name inside --out; nothing is written elsewhere."""
        watched = tmp_path / "w" / "d"
        watched.mkdir(parents=True)
        out = tmp_path / "w" / "out"
        path = watched / "t.jsonl"
        path.write_bytes(user(1, "hello", session=hostile))
        before = {p for p in tmp_path.rglob("*")}
        MemoryService([watched], out).run_once()
        created = {p for p in tmp_path.rglob("*")} - before
        assert all(p.resolve().is_relative_to(out.resolve()) for p in created)
        name = safe_name(hostile)
        assert output(out, name) == rebuild(path)

    def test_session_without_id_is_named_after_the_file(self, dirs: tuple[Path, Path]) -> None:
        """Events without a session_id name the outputs after the transcript file."""
        watched, out = dirs
        line = orjson.dumps({"event_id": "e1", "event_type": "message", "payload": {}}) + b"\n"
        (watched / "my run.jsonl").write_bytes(line)
        MemoryService([watched], out).run_once()
        assert output(out, safe_name("my run")) is not None

    def test_two_files_same_session(self, dirs: tuple[Path, Path]) -> None:
        """The first file keeps the session name; the second gets a path-hash suffix, stably."""
        watched, out = dirs
        a = watched / "a.jsonl"
        b = watched / "b.jsonl"
        a.write_bytes(b"".join(varied_lines(20, seed=1)))
        b.write_bytes(b"".join(varied_lines(30, seed=2)))
        MemoryService([watched], out).run_once()
        names = sorted(p.name for p in out.glob("*.memory.json"))
        assert len(names) == 2
        assert "s-1.memory.json" in names
        assert output(out, "s-1") == rebuild(a)
        other = next(n for n in names if n != "s-1.memory.json")
        append(b, user(500, "later"))
        MemoryService([watched], out).run_once()
        assert sorted(p.name for p in out.glob("*.memory.json")) == names
        assert output(out, other.removesuffix(".memory.json")) == rebuild(b)

    def test_symlink_outside_is_not_followed(self, tmp_path: Path) -> None:
        """A link in the watched directory to a transcript elsewhere is not derived."""
        watched = tmp_path / "w"
        watched.mkdir()
        elsewhere = tmp_path / "secret.jsonl"
        elsewhere.write_bytes(user(1, "private", session="secret"))
        (watched / "link.jsonl").symlink_to(elsewhere)
        out = tmp_path / "out"
        assert MemoryService([watched], out).run_once().transcripts == 0
        assert not list(out.glob("*.memory.json"))


class TestLive:
    def test_follows_appends_new_files_and_split_lines(
        self, dirs: tuple[Path, Path], running: list[tuple[MemoryService, threading.Thread]]
    ) -> None:
        """Real watcher, writer thread: a split line, a new file; outputs converge to rebuilds."""
        watched, out = dirs
        a = watched / "a.jsonl"
        a.write_bytes(user(1, "first"))
        start(running, [watched], out)
        assert wait_for(lambda: output(out, "s-1") == rebuild(a))

        def writer() -> None:
            for i in range(2, 40):
                line = event(i, "message", {"role": "assistant", "content": f"step {i}"})
                if i == 20:
                    append(a, line[:25])
                    time.sleep(0.4)
                    append(a, line[25:])
                else:
                    append(a, line)
                time.sleep(0.01)
            (watched / "new").mkdir()
            (watched / "new" / "b.jsonl").write_bytes(user(1, "other", session="s-2"))

        thread = threading.Thread(target=writer)
        thread.start()
        thread.join()
        assert wait_for(lambda: output(out, "s-1") == rebuild(a))
        memory = output(out, "s-1")
        assert memory is not None
        assert memory["event_count"] == 39
        assert memory["diagnostics"]["lines_skipped"] == 0
        assert wait_for(lambda: output(out, "s-2") == rebuild(watched / "new" / "b.jsonl"))

    def test_truncation_while_tailed(
        self, dirs: tuple[Path, Path], running: list[tuple[MemoryService, threading.Thread]]
    ) -> None:
        """A transcript truncated and rewritten under the service is derived again."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(60, seed=7)))
        start(running, [watched], out)
        assert wait_for(lambda: output(out, "s-1") == rebuild(path))
        with open(path, "r+b") as f:
            f.truncate(0)
            f.write(b"".join(varied_lines(10, seed=8)))
        assert wait_for(lambda: output(out, "s-1") == rebuild(path))

    def test_longer_in_place_rewrites_under_polling(
        self,
        dirs: tuple[Path, Path],
        running: list[tuple[MemoryService, threading.Thread]],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """Rewritten in place to longer content, with polling and a fast sweep that sees the
        size grow first, a transcript is derived again, never read on from the old offset."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(40, seed=20)))
        monkeypatch.setenv("WATCHFILES_POLL_DELAY_MS", "1000")
        start(running, [watched], out, force_polling=True, sweep_seconds=0.1)
        assert wait_for(lambda: output(out, "s-1") == rebuild(path))
        for k in range(15):
            size = path.stat().st_size
            content = b"".join(varied_lines(40 + 5 * (k + 1), seed=21 + k))
            assert len(content) > size
            with open(path, "r+b") as f:
                f.write(content)
            assert wait_for(lambda: output(out, "s-1") == rebuild(path), timeout=5), k

    def test_deleted_file_keeps_outputs(
        self, dirs: tuple[Path, Path], running: list[tuple[MemoryService, threading.Thread]]
    ) -> None:
        """A deleted transcript stops being tailed, keeps its outputs; others go on."""
        watched, out = dirs
        a = watched / "a.jsonl"
        b = watched / "b.jsonl"
        a.write_bytes(user(1, "a", session="A"))
        b.write_bytes(user(1, "b", session="B"))
        service = start(running, [watched], out)
        assert wait_for(lambda: output(out, "A") is not None and output(out, "B") is not None)
        kept = output(out, "A")
        a.unlink()
        assert wait_for(lambda: not state_path(service.state_dir, str(a)).exists())
        append(b, user(2, "more", session="B"))
        assert wait_for(lambda: output(out, "B") == rebuild(b))
        assert output(out, "A") == kept

    def test_missed_notification_is_caught_by_the_sweep(
        self,
        tmp_path: Path,
        running: list[tuple[MemoryService, threading.Thread]],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """When notifications come late or never, the size check on the slow timer sees appends."""
        watched = tmp_path / "w"
        watched.mkdir()
        out = tmp_path / "out"
        path = watched / "a.jsonl"
        path.write_bytes(user(1, "a"))
        # Polling every 3 s: any update within 1.5 s comes from the 0.2 s sweep.
        monkeypatch.setenv("WATCHFILES_POLL_DELAY_MS", "3000")
        start(running, [watched], out, force_polling=True, sweep_seconds=0.2)
        assert wait_for(lambda: output(out, "s-1") == rebuild(path))
        time.sleep(0.5)
        for i in range(2, 6):
            append(path, user(i, f"m{i}"))
        assert wait_for(lambda: output(out, "s-1") == rebuild(path), timeout=1.5)

    def test_the_first_tick_sees_appends_made_before_the_notifications_began(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An append made after the catch-up read a transcript and before the watch began is
        in no notification: the slow timer's first tick visits every transcript, not the
        slice of a cycle that later ticks visit."""
        watched, out = dirs
        paths, lines = write_transcripts(watched, 3, 20, written=10)
        now = [0.0]

        def scripted(*_: object, stop_event: threading.Event, **__: object) -> Any:
            for p in paths:
                append(p, b"".join(lines[p][10:]))  # before the notifications began
            now[0] += 1.0
            yield set()  # the slow timer's cue
            stop_event.set()

        monkeypatch.setattr(loop, "watch_changes", scripted)
        MemoryService([watched], out, clock=lambda: now[0], sweep_seconds=1.0).run()
        for k, p in enumerate(paths):
            assert output(out, f"s-{k}") == rebuild(p)


class ManualClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def break_outputs(out: Path) -> None:
    """Make every publication fail, even for root: the generations directory is a file."""
    out.mkdir(parents=True, exist_ok=True)
    (out / ".generations").write_bytes(b"")


class TestWriteFailures:
    def test_once_counts_what_could_not_be_written(self, dirs: tuple[Path, Path]) -> None:
        """run_once reports how many memories could not be written; the CLI exits 1."""
        watched, out = dirs
        for k in range(3):
            (watched / f"{k}.jsonl").write_bytes(user(1, "x", session=f"s{k}"))
        break_outputs(out)
        assert MemoryService([watched], out).run_once().failed == 3
        assert cli("watch", str(watched), "--out", str(out), "--once") == 1

    def test_errors_are_rate_limited_while_writes_fail(
        self,
        dirs: tuple[Path, Path],
        running: list[tuple[MemoryService, threading.Thread]],
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        """While writes fail: no ERROR per transcript per change, one summary per minute."""
        watched, out = dirs
        paths = [watched / f"{k}.jsonl" for k in range(3)]
        for k, p in enumerate(paths):
            p.write_bytes(user(1, "x", session=f"s{k}"))
        break_outputs(out)
        clock = ManualClock()
        with caplog.at_level(logging.INFO, logger="session_memory"):
            start(running, [watched], out, clock=clock, sweep_seconds=0.05)
            assert wait_for(lambda: "watching" in caplog.text)
            startup_errors = len(errors(caplog))
            assert 1 <= startup_errors <= 2
            for i in range(2, 12):
                for p in paths:
                    append(p, user(i, "more"))
                time.sleep(0.02)
            time.sleep(0.5)
            assert len(errors(caplog)) == startup_errors
            clock.now = 61.0
            assert wait_for(lambda: len(errors(caplog)) == startup_errors + 1)
            time.sleep(0.3)
            assert len(errors(caplog)) == startup_errors + 1
            assert "cannot write the memory of 3 transcript(s)" in errors(caplog)[-1]
            (out / ".generations").unlink()
            clock.now = 200.0
            assert wait_for(lambda: output(out, "s0") == rebuild(paths[0]))
            assert wait_for(lambda: caplog.text.count("is written again") == 3)


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


class TestDurability:
    def test_a_catch_up_writes_without_fsyncs_and_syncs_once_at_its_end(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A catch-up of many transcripts writes outputs and states without a single fsync,
        on the service's own thread (there are no fsyncs for writer threads to overlap), and
        one sync after the last state makes them durable together."""
        watched, out = dirs
        monkeypatch.setattr(writers, "SYNC_ONCE_MIN", 3)
        for k in range(3):
            (watched / f"t{k}.jsonl").write_bytes(b"".join(varied_lines(20, session=f"s-{k}")))
        events: list[str] = []
        real_save = store.save_state

        def save_state(state_dir: Path, state: TranscriptState, **kwargs: bool) -> None:
            events.append("state")
            assert threading.current_thread() is threading.main_thread()
            real_save(state_dir, state, **kwargs)

        monkeypatch.setattr(os, "fsync", lambda fd: events.append("fsync"))
        monkeypatch.setattr(os, "sync", lambda: events.append("sync"))
        monkeypatch.setattr(update, "save_state", save_state)
        MemoryService([watched], out).run_once()
        assert events == ["state"] * 3 + ["sync"]

    @pytest.mark.parametrize("since_saved", [0.0, service_module.BURST_STATE_SECONDS])
    def test_a_burst_of_changes_is_written_without_fsyncs_and_synced_once(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, since_saved: float
    ) -> None:
        """When one notification names SYNC_ONCE_MIN transcripts or more, their outputs are
        written as a catch-up writes them, without fsyncs (on the service's own thread), and
        one sync follows once all are out; their states only when saved BURST_STATE_SECONDS
        ago or more, else at the next chance (here, the stop). A notification naming fewer
        fsyncs what it writes, state included.

        The notifications and the clock are scripted (the behaviour under test is what the
        service does with a batch, not how watchfiles groups changes into one)."""
        watched, out = dirs
        monkeypatch.setattr(writers, "SYNC_ONCE_MIN", 3)
        paths, lines = write_transcripts(watched, 3, 40, written=20)
        events: list[str] = []
        real_save, real_fsync = store.save_state, os.fsync
        now = [100.0]

        real_publish = store.Outputs.publish
        publishers: list[threading.Thread] = []

        def save_state(state_dir: Path, state: TranscriptState, **kwargs: bool) -> None:
            events.append("state")
            real_save(state_dir, state, **kwargs)

        def fsync(fd: int) -> None:
            events.append("fsync")
            real_fsync(fd)

        def publish(self: store.Outputs, *args: Any, **kwargs: Any) -> None:
            publishers.append(threading.current_thread())
            real_publish(self, *args, **kwargs)

        def scripted(*_: object, stop_event: threading.Event, **__: object) -> Any:
            for p in paths:
                append(p, b"".join(lines[p][20:30]))
            events.clear()  # what the catch-up wrote is not under test
            publishers.clear()
            now[0] += since_saved
            yield {str(p) for p in paths}
            assert publishers == [threading.current_thread()] * len(paths)
            events.append("small")
            append(paths[0], b"".join(lines[paths[0]][30:]))
            yield {str(paths[0])}
            events.append("stop")
            stop_event.set()

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "sync", lambda: events.append("sync"))
        monkeypatch.setattr(update, "save_state", save_state)
        monkeypatch.setattr(loop, "watch_changes", scripted)
        monkeypatch.setattr(store.Outputs, "publish", publish)
        service = MemoryService([watched], out, clock=lambda: now[0], sweep_seconds=60.0)
        service.run()
        burst = events[: events.index("small")]
        small = events[events.index("small") + 1 : events.index("stop")]
        stop = events[events.index("stop") + 1 :]
        saved_in_burst = 3 if since_saved else 0
        assert burst.count("state") == saved_in_burst and "fsync" not in burst
        assert "sync" in events
        assert small.count("state") == 1 and "fsync" in small
        assert stop.count("state") == (0 if since_saved else 2)  # t0's: saved with its small change
        for k, p in enumerate(paths):
            assert output(out, f"s-{k}") == rebuild(p)
            state = store.load_state(state_path(service.state_dir, str(p.resolve())))
            assert state.offset == p.stat().st_size

    @pytest.mark.parametrize("idle_seconds", [300.0, 0.0], ids=["in memory", "restored"])
    def test_the_next_tick_saves_the_states_a_burst_left(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, idle_seconds: float
    ) -> None:
        """States a burst did not save are saved by the slow timer's first tick once their
        transcript has been quiet for BURST_STATE_SECONDS (before, the burst may go on and
        save them itself), before any stop, and the transcripts can then go to disk. A
        transcript the burst restored from its state (kept on disk since the catch-up)
        counts as saved when restored."""
        watched, out = dirs
        monkeypatch.setattr(writers, "SYNC_ONCE_MIN", 3)
        paths, lines = write_transcripts(watched, 3, 30, written=20)
        now = [100.0]
        offsets: list[list[int]] = []

        def saved_offsets() -> list[int]:
            return [
                store.load_state(state_path(service.state_dir, str(p.resolve()))).offset
                for p in paths
            ]

        def scripted(*_: object, stop_event: threading.Event, **__: object) -> Any:
            for p in paths:
                append(p, b"".join(lines[p][20:]))
            yield {str(p) for p in paths}
            offsets.append(saved_offsets())
            for _tick in range(2):
                now[0] += service_module.BURST_STATE_SECONDS / 2
                yield set()  # the slow timer's cue
                offsets.append(saved_offsets())
            stop_event.set()

        monkeypatch.setattr(loop, "watch_changes", scripted)
        service = MemoryService(
            [watched],
            out,
            clock=lambda: now[0],
            sweep_seconds=service_module.BURST_STATE_SECONDS / 2,
            idle_seconds=idle_seconds,
        )
        service.run()
        sizes = [p.stat().st_size for p in paths]
        after_burst, after_half, after_whole = offsets
        assert all(o < size for o, size in zip(after_burst, sizes, strict=True))
        assert after_half == after_burst
        assert after_whole == sizes
        for k, p in enumerate(paths):
            assert output(out, f"s-{k}") == rebuild(p)

    def test_a_catch_up_of_few_transcripts_fsyncs_its_files_and_never_syncs_the_machine(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A catch-up of fewer than SYNC_ONCE_MIN transcripts (a hook call's one) fsyncs what
        it writes, and never flushes every file system with a sync."""
        watched, out = dirs
        (watched / "t.jsonl").write_bytes(b"".join(varied_lines(20, session="s-0")))
        events: list[str] = []
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            events.append("fsync")
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "sync", lambda: events.append("sync"))
        MemoryService([watched], out).run_once()
        assert "fsync" in events and "sync" not in events
        assert output(out, "s-0") == rebuild(watched / "t.jsonl")

    def test_outputs_found_in_place_are_synced_before_a_durable_state(
        self, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """After the catch-up, outputs it found in place (a kill came after they were renamed,
        before the state) are fsynced before a state written with fsyncs moves past them."""
        watched, out = dirs
        path = watched / "a.jsonl"
        lines = varied_lines(30)
        path.write_bytes(b"".join(lines[:20]))
        service = MemoryService([watched], out)
        service.run_once()
        spath = state_path(service.state_dir, str(path.resolve()))
        old_state = spath.read_bytes()
        append(path, b"".join(lines[20:]))
        MemoryService([watched], out).run_once()
        spath.write_bytes(old_state)  # as if killed before this state was written
        events: list[str] = []
        real_fsync_dir = store.fsync_dir
        real_save = store.save_state

        def fsync_dir(p: Path) -> None:
            events.append(f"fsync {p.relative_to(out)}")
            real_fsync_dir(p)

        def save_state(state_dir: Path, state: TranscriptState, **kwargs: bool) -> None:
            events.append("state" if kwargs.get("durable", True) else "state, not durable")
            real_save(state_dir, state, **kwargs)

        monkeypatch.setattr(store, "fsync_dir", fsync_dir)
        monkeypatch.setattr(update, "save_state", save_state)
        restarted = MemoryService([watched], out, resident_max=4)
        residency, updater = restarted._residency, restarted._updater
        t = residency.admit(residency._restorer.load(str(path.resolve())))
        with updater.writing():
            updater.advance(t)
            updater.drain()
        assert updater.outputs_written == 0
        before_state = events[: events.index("state")]
        assert "fsync ." in before_state
        assert "fsync .generations" in before_state
        assert any(e.startswith("fsync .generations/s-1.") for e in before_state)
        assert output(out, "s-1") == rebuild(path)

    @pytest.mark.parametrize("damage", ["empty", "torn"])
    def test_states_and_outputs_a_power_cut_damaged_are_rebuilt(
        self, dirs: tuple[Path, Path], damage: str
    ) -> None:
        """States and output files left empty or torn (a power cut before the catch-up's
        writes reached the disk) are told apart and rebuilt, equal to a full derive."""
        watched, out = dirs
        paths = [watched / f"t{k}.jsonl" for k in range(3)]
        for k, path in enumerate(paths):
            path.write_bytes(b"".join(varied_lines(20, session=f"s-{k}")))
        service = MemoryService([watched], out)
        service.run_once()
        victims = [state_path(service.state_dir, str(paths[0].resolve()))]
        victims += [p.resolve() for p in out.glob("s-1.memory.*")]
        victims += [
            (out / "s-2.memory.json").resolve(),
            state_path(service.state_dir, str(paths[2].resolve())),
        ]
        for victim in victims:
            data = victim.read_bytes()
            victim.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
        MemoryService([watched], out).run_once()
        fresh = out.parent / "fresh"
        MemoryService([watched], fresh).run_once()
        for k, path in enumerate(paths):
            assert output(out, f"s-{k}") == rebuild(path)
            for suffix in ("json", "md"):
                name = f"s-{k}.memory.{suffix}"
                assert (out / name).read_bytes() == (fresh / name).read_bytes()


class TestStart:
    def test_leftovers_of_killed_writers_are_removed_at_start(
        self, dirs: tuple[Path, Path]
    ) -> None:
        """Temp files in --out and --state, and unpublished generations, go at start."""
        watched, out = dirs
        path = watched / "a.jsonl"
        path.write_bytes(b"".join(varied_lines(30)))
        service = MemoryService([watched], out)
        service.run_once()
        (out / ".s-1.memory.json.0badc0de.tmp").write_bytes(b"x" * 50_000)
        (service.state_dir / ".abc.state.12345678.tmp").write_bytes(b"x")
        (out / ".generations" / "s-1.99").mkdir()
        MemoryService([watched], out)
        assert not list(out.rglob("*.tmp"))
        assert not (out / ".generations" / "s-1.99").exists()
        assert output(out, "s-1") == rebuild(path)
