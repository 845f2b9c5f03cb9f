"""What a hook call loads: nothing heavy when its state is current, no watcher when cold.

The budgets are in ``benchmarks/bench_startup.py`` (a current-state call at most 60 ms CPU
and 4 times ``python -c pass``; a cold call on a 3 MB transcript at most 1 s). These tests
pin the imports that would break them, in real processes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

HEAVY = ("pydantic", "tiktoken", "watchfiles", "deriver", "nats", "asyncio")
"""Never loaded by ``--help`` (which builds the parser a hook call also builds) nor by a
hook call whose state is current."""

HEAVY_FOR_A_CURRENT_HOOK = (
    *HEAVY,
    "viewbuilder",
    "session_memory.apps.service",
    "session_memory.formats.detect",
    "msgspec",
    "orjson",
    "logging",
    "argparse",
    "typing",
    "hashlib",
)
"""Beyond :data:`HEAVY`, what a current-state call does not need and could not afford: the
service, the adapters, the view; msgspec and orjson (~60 and ~40 ms of CPU to import on
the host where ``python -c pass`` takes ~19 ms), :mod:`logging` (~30 ms: the hook writes its
own log), :mod:`argparse` (15 ms with its parser: it reads its command line without it),
:mod:`typing` (7.5 ms, and 6 ms more for ``typing.NamedTuple``'s classes), :mod:`hashlib`
(4.4 ms, OpenSSL); ``session_memory/core/startup.py`` has the figures."""


# Runs the CLI in-process in a fresh interpreter, then prints every module it has loaded.
_MODULES_PROBE = """
import sys
from session_memory.apps.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES=" + ",".join(sys.modules), file=sys.stderr)
"""


def loaded_by(args: list[str], heavy: tuple[str, ...], stdin: bytes = b"") -> set[str]:
    """Which of the ``heavy`` modules a fresh interpreter has loaded after running the CLI
    with ``args``."""
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_PROBE, *args], input=stdin, capture_output=True, check=True
    )
    return set(done.stderr.decode().rsplit("MODULES=", 1)[1].strip().split(",")) & set(heavy)


def native_transcript(path: Path) -> None:
    path.write_bytes(
        orjson.dumps(
            {
                "event_id": "e1",
                "event_type": "message",
                "payload": {"role": "user", "content": "Port the orders API to v2"},
            }
        )
        + b"\n"
    )


def hook_event(transcript: Path, name: str = "SessionStart") -> bytes:
    """The hook input of ``name`` (a SessionStart after compaction) for ``transcript``."""
    return orjson.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(transcript),
            "hook_event_name": name,
            "source": "compact",
        }
    )


def test_help_loads_nothing_heavy() -> None:
    """``--help`` imports neither pydantic, tiktoken, watchfiles, the deriver, nor asyncio
    and the NATS client of the distributed commands."""
    assert loaded_by(["--help"], HEAVY) == set()


def test_a_current_hook_call_loads_nothing_heavy(tmp_path: Path) -> None:
    """A hook call whose state already covers the transcript reads files and nothing more,
    a SessionStart and a UserPromptSubmit alike (which writes the session's record)."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    assert "deriver" in loaded_by(argv, HEAVY, hook_event(transcript))  # the first call folds
    for name in ("SessionStart", "UserPromptSubmit"):
        assert loaded_by(argv, HEAVY_FOR_A_CURRENT_HOOK, hook_event(transcript, name)) == set()


def test_a_cold_hook_call_folds_without_the_watcher_or_a_process_pool(tmp_path: Path) -> None:
    """The first hook call derives the transcript in its own process: no file watcher, no
    asyncio, no worker processes of ``watch``'s catch-up."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    heavy = ("deriver", "watchfiles", "asyncio", "nats", "multiprocessing")
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    assert loaded_by(argv, heavy, hook_event(transcript)) == {"deriver"}


def test_a_hook_process_ends_with_its_output_and_state_written(tmp_path: Path) -> None:
    """The console script's hook process has printed its whole output and left the state
    current for the next call."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "session_memory.apps.cli", "hook", "--state-dir", str(state)]
    done = subprocess.run(argv, input=hook_event(transcript), capture_output=True, check=True)
    context = orjson.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Port the orders API to v2" in context and done.stderr == b""
    from session_memory.apps.memory_dir.current import read_current_memory

    current = read_current_memory(transcript, state)
    assert current is not None and context.endswith(current.markdown)
