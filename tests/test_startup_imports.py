"""What a command loads at start-up: only what it needs (real processes, real files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

HEAVY = (
    "pydantic",
    "tiktoken",
    "watchfiles",
    "zstandard",
    "deriver",
    "session_memory.formats.detect",
    "asyncio",
    "ssl",
    "nats",
    "logging",
)
# A hook call whose state is current is a fresh process per event: it does not even pay for
# orjson or dataclasses (their imports bring datetime, uuid, inspect, ast...).
HEAVY_FOR_A_CURRENT_HOOK = (*HEAVY, "orjson", "dataclasses", "inspect")

# Runs the CLI in-process in a fresh interpreter, then prints which heavy modules it loaded.
_PROBE = """
import sys
from session_memory.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nLOADED=" + ",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


def loaded_by(args: list[str], stdin: bytes = b"", heavy: tuple[str, ...] = HEAVY) -> set[str]:
    probe = _PROBE.format(heavy=heavy)
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], input=stdin, capture_output=True, check=True
    )
    line = done.stderr.decode().rsplit("LOADED=", 1)[1].strip()
    return set(line.split(",")) - {""}


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


def compact_event(transcript: Path) -> bytes:
    """The hook input of a SessionStart after compaction of ``transcript``."""
    return orjson.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(transcript),
            "hook_event_name": "SessionStart",
            "source": "compact",
        }
    )


def test_help_loads_no_models_tokenizer_or_watcher() -> None:
    """``--help`` imports neither pydantic, tiktoken, watchfiles, the deriver, adapters, nor
    asyncio and the NATS client of the distributed commands."""
    assert loaded_by(["--help"]) == set()


def test_hook_with_current_state_loads_nothing_heavy(tmp_path: Path) -> None:
    """A hook call whose state already covers the transcript reads files and nothing more:
    not even orjson or dataclasses."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    event = compact_event(transcript)
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    assert "deriver" in loaded_by(argv, event)  # the first call derives
    assert loaded_by(argv, event, HEAVY_FOR_A_CURRENT_HOOK) == set()


def test_hook_with_appended_bytes_still_derives(tmp_path: Path) -> None:
    """When the transcript grew since the state, the hook loads the deriver and folds."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    event = compact_event(transcript)
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    loaded_by(argv, event)
    with transcript.open("ab") as f:
        f.write(b'{"event_id": "e2", "event_type": "message", "payload": {}}\n')
    assert {"deriver", "pydantic"} <= loaded_by(argv, event)


def test_a_cold_hook_call_folds_without_the_watcher(tmp_path: Path) -> None:
    """The first hook call derives the transcript once: no file watcher, no asyncio."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    event = compact_event(transcript)
    loaded = loaded_by(["hook", "--state-dir", str(tmp_path / "state")], event)
    assert "deriver" in loaded
    assert not loaded & {"watchfiles", "asyncio", "nats"}
