"""Transcripts kept only on disk while idle: restored on the next change, outputs unchanged."""

from __future__ import annotations

import logging
import threading
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_memory.apps.service import MemoryService
from tests.service.service_helpers import append, varied_lines, wait_for
from tests.transcripts import Text, jsonl, records


def slot_text(fmt: str) -> Text:
    """A different text in every slot of a transcript of ``fmt``."""
    return lambda slot: f"{slot} of the {fmt} session"


def published(out: Path) -> dict[str, bytes]:
    """Every published output file of a directory, by name, as bytes."""
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.memory.*"))}


def sources() -> dict[str, list[bytes]]:
    """The lines of a native, a Claude Code and a Codex transcript, by file name."""
    native = varied_lines(120, seed=5, session="native-1")
    out: dict[str, list[bytes]] = {"native.jsonl": native}
    for fmt in ("claude-code", "codex"):
        text = slot_text(fmt)
        out[f"{fmt}.jsonl"] = jsonl(records(fmt, text)).splitlines(keepends=True)
    return out


def caught_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, expected: dict[str, bytes], restores: int
) -> bool:
    """Both services publish ``expected``, the evicting one after ``restores`` restores."""
    return (
        published(tmp_path / "evicting") == expected
        and published(tmp_path / "keeping") == expected
        and caplog.text.count("restored from its state") >= restores
    )


def start(
    running: list[tuple[MemoryService, threading.Thread]], watched: Path, out: Path, **kw: object
) -> None:
    service = MemoryService([watched], out, sweep_seconds=0.05, **kw)  # type: ignore[arg-type]
    thread = threading.Thread(target=service.run)
    thread.start()
    running.append((service, thread))


def test_evicting_gives_the_outputs_of_never_evicting(
    tmp_path: Path,
    running: list[tuple[MemoryService, threading.Thread]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A watch that keeps every idle transcript on disk publishes the very bytes of one that
    keeps all in memory, append after append, in every format."""
    watched = tmp_path / "transcripts"
    watched.mkdir()
    lines = sources()
    cut = {name: max(1, len(ls) // 3) for name, ls in lines.items()}
    for name, ls in lines.items():
        (watched / name).write_bytes(b"".join(ls[: cut[name]]))
    with caplog.at_level(logging.DEBUG, logger="session_memory.apps.service"):
        start(running, watched, tmp_path / "evicting", resident_max=1, idle_seconds=0.0)
        start(running, watched, tmp_path / "keeping")
        assert wait_for(lambda: caplog.text.count("watching 3 transcript") == 2)
        rounds = 0
        while any(cut[name] < len(ls) for name, ls in lines.items()):
            rounds += 1
            for name, ls in lines.items():
                step = max(1, len(ls) // 6)
                append(watched / name, b"".join(ls[cut[name] : cut[name] + step]))
                cut[name] += step
            # What a service started now publishes: the two running ones must reach it (equal
            # to each other is not enough, both may still be on the round before).
            fresh = tmp_path / f"fresh-{rounds}"
            MemoryService([watched], fresh).run_once()
            expected = published(fresh)
            assert len(expected) == 6
            assert wait_for(partial(caught_up, tmp_path, caplog, expected, rounds), timeout=20)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    plan=st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(min_value=1, max_value=40)),
        min_size=1,
        max_size=8,
    )
)
def test_restoring_on_each_change_equals_never_evicting(
    tmp_path_factory: pytest.TempPathFactory, plan: list[tuple[str, int]]
) -> None:
    """Whatever the order and size of appends to several transcripts, a service that keeps
    none in memory between passes publishes the bytes of one that keeps all."""
    root = tmp_path_factory.mktemp("evict")
    watched = root / "t"
    watched.mkdir()
    lines = {k: varied_lines(200, seed=ord(k), session=f"s-{k}") for k in "abc"}
    cut = dict.fromkeys(lines, 0)
    evicting = MemoryService([watched], root / "evicting", resident_max=1, idle_seconds=0.0)
    keeping = MemoryService([watched], root / "keeping")
    for key, count in plan:
        append(watched / f"{key}.jsonl", b"".join(lines[key][cut[key] : cut[key] + count]))
        cut[key] += count
        evicting.run_once()
        keeping.run_once()
        assert published(root / "evicting") == published(root / "keeping")
    restarted = MemoryService([watched], root / "evicting")
    restarted.run_once()
    assert published(root / "evicting") == published(root / "keeping")


def test_a_restart_keeps_unchanged_transcripts_on_disk(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart restores none of the transcripts whose file and outputs are as their state
    says, and the next append still gives the outputs of a service that never stopped."""
    watched = tmp_path / "t"
    watched.mkdir()
    lines = {k: varied_lines(60, seed=k, session=f"s-{k}") for k in range(4)}
    for k, ls in lines.items():
        (watched / f"{k}.jsonl").write_bytes(b"".join(ls[:40]))
    MemoryService([watched], tmp_path / "out").run_once()
    with caplog.at_level(logging.INFO, logger="session_memory.apps.service"):
        MemoryService([watched], tmp_path / "out").run_once()
    assert "tailing" not in caplog.text  # none was resumed into memory: all stayed on disk
    for k, ls in lines.items():
        append(watched / f"{k}.jsonl", b"".join(ls[40:]))
    MemoryService([watched], tmp_path / "out").run_once()
    MemoryService([watched], tmp_path / "fresh").run_once()
    assert published(tmp_path / "out") == published(tmp_path / "fresh")


def test_a_tampered_output_is_not_trusted_at_restart(tmp_path: Path) -> None:
    """A published Markdown edited behind the service's back is rewritten at restart."""
    watched = tmp_path / "t"
    watched.mkdir()
    (watched / "a.jsonl").write_bytes(b"".join(varied_lines(30, session="s-a")))
    MemoryService([watched], tmp_path / "out").run_once()
    expected = published(tmp_path / "out")
    md = (tmp_path / "out" / "s-a.memory.md").resolve()
    md.chmod(0o600)
    md.write_bytes(b"# edited\n")
    MemoryService([watched], tmp_path / "out").run_once()
    assert published(tmp_path / "out") == expected
