"""Real Claude Code and Codex transcripts through the service, tailed like native ones."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import orjson
import pytest

from deriver import SessionMemoryDeriver
from session_memory.apps.service import MemoryService
from session_memory.formats import read_transcript
from tests.service.service_helpers import append, wait_for

FIXTURES = sorted((Path(__file__).parents[1] / "fixtures").glob("*/*.jsonl"))


def derived_whole(path: Path) -> dict[str, object]:
    fields: dict[str, object] = orjson.loads(
        SessionMemoryDeriver.rebuild(read_transcript(path)).memory.to_json()
    )
    return fields


def watched_memory(out: Path) -> dict[str, object]:
    [json_path] = out.glob("*.memory.json")
    loaded: dict[str, object] = orjson.loads(json_path.read_bytes())
    return loaded


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name[:40])
class TestWatchedFormats:
    def test_appended_line_by_line_equals_derived_whole(
        self, fixture: Path, tmp_path: Path
    ) -> None:
        """Tailing a fixture written line by line, restarting between lines, gives the
        memory that deriving the whole file gives."""
        lines = fixture.read_bytes().splitlines(keepends=True)
        live = tmp_path / "live" / fixture.name
        live.parent.mkdir()
        out = tmp_path / "out"
        with live.open("wb") as f:
            for i, line in enumerate(lines):
                f.write(line)
                f.flush()
                if i % 7 == 0 or i == len(lines) - 1:
                    # A new service each time: the state (deriver and adapter) is restored.
                    MemoryService([live.parent], out).run_once()
        whole = derived_whole(fixture)
        watched = watched_memory(out)
        assert watched == whole


class TestLiveTail:
    @pytest.mark.parametrize(
        "name",
        [
            "cc-2.1.38_rejected-tools_interrupt_short.jsonl",
            "codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl",
        ],
    )
    def test_real_watcher_follows_a_growing_agent_transcript(
        self, name: str, tmp_path: Path
    ) -> None:
        """With real watchfiles, appends to a Claude Code or Codex file reach the outputs."""
        [fixture] = [p for p in FIXTURES if p.name == name]
        live = tmp_path / "projects" / name
        live.parent.mkdir()
        live.write_bytes(b"")
        out = tmp_path / "out"
        stop = threading.Event()
        service = MemoryService([live.parent], out, stop_event=stop)
        runner = threading.Thread(target=service.run)
        runner.start()
        try:
            whole = derived_whole(fixture)
            for line in fixture.read_bytes().splitlines(keepends=True):
                append(live, line)
                time.sleep(0.01)
            assert wait_for(lambda: any(out.glob("*.memory.json")) and watched_memory(out) == whole)
        finally:
            stop.set()
            runner.join(timeout=10)
