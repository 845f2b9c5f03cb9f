"""A real `watch` process killed after a burst, while states it left to save are behind the
outputs: the restart reads on from those states and loses or repeats nothing."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import orjson

from session_memory.apps import service as service_module
from session_memory.apps.memory_dir.outputs import TranscriptState, load_state, state_path
from session_memory.apps.service import MemoryService
from tests.service.service_helpers import WatchProcess, append, varied_lines, wait_for
from tests.service.test_service import output, rebuild, write_transcripts

TRANSCRIPTS = 2 * service_module.SYNC_ONCE_MIN + 8  # a burst even if its notification splits
FIRST, BURST = 12, 6
ATTEMPTS = 3  # in case the notifications still split every burst into small ones


def event_count(out: Path, name: str) -> int:
    path = out / f"{name}.memory.json"
    try:
        count: int = orjson.loads(path.read_bytes())["event_count"]
    except (OSError, orjson.JSONDecodeError, KeyError):
        return -1
    return count


def saved_state(out: Path, transcript: Path) -> TranscriptState:
    return load_state(state_path(out / ".session-memory-state", str(transcript.resolve())))


def killed_after_a_burst(base: Path) -> tuple[Path, Path, list[Path], int]:
    """Transcripts caught up, appended twice at once, the watch killed once the second
    burst is in the outputs; how many states were then behind their file."""
    watched, out = base / "transcripts", base / "out"
    watched.mkdir(parents=True)
    paths, lines = write_transcripts(watched, TRANSCRIPTS, FIRST + 2 * BURST, written=FIRST)
    probe = watched / "probe.jsonl"
    probe_lines = varied_lines(2, session="probe")
    probe.write_bytes(probe_lines[0])
    names = [f"s-{k}" for k in range(TRANSCRIPTS)]
    with WatchProcess(watched, "--out", out, log=base / "watch.log") as watch:

        def all_at(count: int) -> bool:
            return all(event_count(out, name) == count for name in names)

        assert wait_for(lambda: all_at(FIRST), timeout=60), watch.log()
        assert wait_for(lambda: "watching" in watch.log(), timeout=60), watch.log()
        caught_up = time.monotonic()
        # An append seen (by a notification, or by the first tick if it came before they
        # began) says the notifications are on.
        append(probe, probe_lines[1])
        assert wait_for(lambda: event_count(out, "probe") == 2, timeout=60), watch.log()
        # The first burst comes over a second after the catch-up saved the states, so it
        # saves them again; the second comes right after it, so its states wait.
        time.sleep(
            max(0.0, caught_up + 1.2 * service_module.BURST_STATE_SECONDS - time.monotonic())
        )
        for end in (FIRST + BURST, FIRST + 2 * BURST):
            for p in paths:
                append(p, b"".join(lines[p][end - BURST : end]))

            def appended(end: int = end) -> bool:
                return all_at(end)

            assert wait_for(appended, timeout=60), watch.log()
        watch.proc.send_signal(signal.SIGKILL)
        watch.proc.wait(10)
    states = [saved_state(out, p) for p in paths]
    behind = sum(s.offset < p.stat().st_size for s, p in zip(states, paths, strict=True))
    return watched, out, paths, behind


def test_a_kill_after_a_burst_restarts_from_the_states_it_left_behind(tmp_path: Path) -> None:
    for attempt in range(ATTEMPTS):
        watched, out, paths, behind = killed_after_a_burst(tmp_path / f"attempt-{attempt}")
        if behind:
            break
    assert behind, "every attempt had its states saved before the kill"
    published = {p: output(out, f"s-{k}") for k, p in enumerate(paths)}
    MemoryService([watched], out).run_once()
    for k, p in enumerate(paths):
        expected = rebuild(p)
        assert expected["event_count"] == FIRST + 2 * BURST
        assert published[p] == expected  # what the killed service had published
        assert output(out, f"s-{k}") == expected
        assert saved_state(out, p).offset == p.stat().st_size
