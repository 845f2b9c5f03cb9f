"""The service's one mode value says what it is doing when it writes."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from session_memory.apps.memory_dir import outputs as store
from session_memory.apps.memory_dir.outputs import TranscriptState
from session_memory.apps.service import MemoryService, Mode, loop, update, writers
from tests.service.service_helpers import append
from tests.service.test_service import output, rebuild, write_transcripts


def test_each_write_is_made_in_the_mode_of_the_work_it_belongs_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up writes in CATCHING_UP, a notification of few changes in FOLLOWING, one
    of many in BURST, the slow timer's tick in SWEEPING, and the stop, which saves the state
    the tick left waiting, in STOPPING.

    The notifications and the clock are scripted; the burst saves no state (each was saved
    less than BURST_STATE_SECONDS ago), the tick saves those the burst left and publishes
    the outputs of a transcript that grew, whose own state then waits for the stop."""
    watched, out = tmp_path / "t", tmp_path / "out"
    watched.mkdir()
    monkeypatch.setattr(writers, "SYNC_ONCE_MIN", 3)
    paths, lines = write_transcripts(watched, 3, 40, written=10)
    now = [100.0]
    phases: dict[str, list[tuple[str, Mode]]] = {"catch-up": []}
    phase = phases["catch-up"]
    real_publish, real_save = store.Outputs.publish, store.save_state

    def publish(self: store.Outputs, *args: Any, **kwargs: Any) -> None:
        phase.append(("outputs", service.mode))
        real_publish(self, *args, **kwargs)

    def save_state(state_dir: Path, state: TranscriptState, **kwargs: bool) -> None:
        phase.append(("state", service.mode))
        real_save(state_dir, state, **kwargs)

    def begin(name: str) -> None:
        nonlocal phase
        phase = phases.setdefault(name, [])

    def scripted(*_: object, stop_event: threading.Event, **__: object) -> Any:
        begin("one change")
        append(paths[0], b"".join(lines[paths[0]][10:20]))
        yield {str(paths[0])}
        begin("many changes")
        for p in paths:
            append(p, b"".join(lines[p][20:30]))
        yield {str(p) for p in paths}
        begin("tick")
        append(paths[1], b"".join(lines[paths[1]][30:]))
        now[0] += 1.0
        yield set()  # the slow timer's cue
        begin("stop")
        stop_event.set()

    monkeypatch.setattr(store.Outputs, "publish", publish)
    monkeypatch.setattr(update, "save_state", save_state)
    monkeypatch.setattr(loop, "watch_changes", scripted)
    service = MemoryService([watched], out, clock=lambda: now[0], sweep_seconds=1.0)
    assert service.mode is Mode.CATCHING_UP
    service.run()
    assert Counter(phases["catch-up"]) == {
        ("outputs", Mode.CATCHING_UP): 3,
        ("state", Mode.CATCHING_UP): 3,
    }
    assert phases["one change"] == [("outputs", Mode.FOLLOWING), ("state", Mode.FOLLOWING)]
    assert phases["many changes"] == [("outputs", Mode.BURST)] * 3
    assert Counter(phases["tick"]) == {("outputs", Mode.SWEEPING): 1, ("state", Mode.SWEEPING): 2}
    assert phases["stop"] == [("state", Mode.STOPPING)]
    for k, p in enumerate(paths):
        assert output(out, f"s-{k}") == rebuild(p)
