"""Transcripts of every format for the distributed tests, and what ``derive`` makes of them."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.jetstream import NatsTransport, connect
from session_memory.apps.distributed.keys import memory_keys
from session_memory.apps.distributed.wire import session_key
from session_memory.core.events import TranscriptEvent
from session_memory.formats import make_adapter, read_transcript

ROOT = Path(__file__).parent.parent.parent


def _load_generator() -> ModuleType:
    """The seeded sample generator of ``examples/`` (not a package)."""
    spec = importlib.util.spec_from_file_location(
        "generate_sample", ROOT / "examples" / "generate_sample.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_gen = sys.modules.get("generate_sample") or _load_generator()


def generate_events(n: int, seed: int, session_id: str) -> Iterator[dict[str, Any]]:
    """Native events from the sample generator."""
    events: Iterator[dict[str, Any]] = _gen.generate_events(n, seed, session_id=session_id)
    return events


FIXTURES = ROOT / "tests" / "fixtures"
FORMATS = ("native", "claude-code", "codex")


def _fixture_lines(kind: str) -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted((FIXTURES / kind).glob("*.jsonl")):
        lines.extend(path.read_bytes().splitlines(keepends=True))
    return lines


def transcript_lines(index: int, events: int = 200) -> list[bytes]:
    """Transcript ``index`` (native, Claude Code or Codex in turn) with ~``events`` events."""
    fmt = FORMATS[index % 3]
    if fmt == "native":
        return [
            orjson.dumps(e) + b"\n"
            for e in generate_events(events, seed=index, session_id=f"s{index}")
        ]
    pool = _fixture_lines("claude_code" if fmt == "claude-code" else "codex")
    start = (index * 37) % len(pool)
    adapter = make_adapter(fmt)
    lines: list[bytes] = []
    count = 0
    # The fixtures in turn from a different line for each index, until enough events came.
    for n in itertools.count(start):
        line = pool[n % len(pool)]
        lines.append(line)
        count += sum(
            isinstance(r, TranscriptEvent) for r in adapter.feed_line(line.rstrip(b"\n"), 0)
        )
        if count >= events:
            return lines
    raise AssertionError("unreachable")


def write_corpus(directory: Path, sessions: int, events: int = 200) -> list[Path]:
    """``sessions`` transcripts ``t000.jsonl``... of every format, written whole."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(sessions):
        path = directory / f"t{i:03d}.jsonl"
        path.write_bytes(b"".join(transcript_lines(i, events)))
        paths.append(path)
    return paths


def derived(path: Path, budget: int = 1200) -> bytes:
    """What ``session-memory derive --json`` prints for a transcript."""
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    deriver.apply_all(read_transcript(path))
    return deriver.memory.to_json()


def run(coro_fn: Callable[..., Any], *args: Any) -> Any:
    return asyncio.run(coro_fn(*args))


async def _bucket_memories(url: str, sessions: Sequence[str]) -> dict[str, bytes | None]:
    transport: NatsTransport = await connect(url, connect_seconds=20)
    try:
        out: dict[str, bytes | None] = {}
        for session in sessions:
            found = await transport.get("memory", memory_keys(session_key(session))[0])
            out[session] = None if found is None else found.value
        return out
    finally:
        await transport.close()


def wait_for_equality(
    url: str, paths: Sequence[Path], timeout: float = 60.0
) -> dict[str, bytes | None]:
    """Poll the memory bucket until every session equals ``derive``; return what differs."""
    expected = {p.stem: derived(p) for p in paths}
    deadline = time.monotonic() + timeout
    differing: dict[str, bytes | None] = {}
    while time.monotonic() < deadline:
        found = run(_bucket_memories, url, list(expected))
        differing = {s: m for s, m in found.items() if m != expected[s]}
        if not differing:
            return {}
        time.sleep(0.5)
    return differing


def publish_once(url: str, paths: Sequence[Path | str], state: Path, **kw: Any) -> int:
    """Publish every record of the transcripts (in this process) and return how many."""
    from session_memory.apps.distributed.publisher import FilePublisher

    async def go() -> int:
        transport = await connect(url, connect_seconds=20, **kw)
        try:
            summary = await FilePublisher(transport, [str(p) for p in paths], state).run_once()
            return summary.records
        finally:
            await transport.close()

    result: int = asyncio.run(go())
    return result
