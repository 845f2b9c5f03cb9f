"""What a command loads at start-up: only what it needs (real processes, real files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

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

# What a hook call whose state is current may import beyond the interpreter's own start-up:
# the command line's parser (argparse, and what it imports to build and format a parser),
# typing, importlib (the parser imports its command's module by name), C modules (json's
# speedups, SHA-256 and BLAKE2b without OpenSSL), errno, and the hook's own small modules.
# Neither pathlib, hashlib, logging, nor the json package.
PARSER_PROBE = "import argparse, typing; argparse.ArgumentParser().add_argument('--x')"
CURRENT_HOOK_MAY_IMPORT = frozenset(
    {
        "__future__",
        "_blake2",
        "_json",
        "_sha2",
        "_sha256",
        "errno",
        "importlib",
        "importlib._bootstrap",
        "importlib._bootstrap_external",
        "session_memory",
        "session_memory.apps",
        "session_memory.apps.memory_dir",
        "session_memory.core",
        "session_memory.apps.cli",
        "session_memory.apps.cli.agents",
        "session_memory.apps.cli.arguments",
        "session_memory.apps.cli.parser",
        "session_memory.apps.memory_dir.current",
        "session_memory.core.encoding_names",
        "session_memory.core.errors",
        "session_memory.core.tokens",
        "session_memory.apps.memory_dir.files",
        "session_memory.apps.memory_dir.hashes",
        "session_memory.apps.hook",
        "session_memory.apps.memory_dir.json_codec",
        "session_memory.core.lazy_names",
        "session_memory.apps.memory_dir.state",
        "session_memory.apps.memory_dir.typed_tuple",
        "session_memory.apps.memory_dir.writes",
    }
)


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


def modules_after(args: list[str], stdin: bytes = b"") -> set[str]:
    """Every module a fresh interpreter has loaded after running the CLI with ``args``."""
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_PROBE, *args], input=stdin, capture_output=True, check=True
    )
    return set(done.stderr.decode().rsplit("MODULES=", 1)[1].strip().split(","))


def startup_modules(code: str = "pass") -> set[str]:
    """The modules the same interpreter has loaded when it runs nothing but ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; {code}; print(','.join(sys.modules))"],
        capture_output=True,
        check=True,
    )
    return set(done.stdout.decode().strip().split(","))


def loaded_by(args: list[str], stdin: bytes = b"", heavy: tuple[str, ...] = HEAVY) -> set[str]:
    """Which of the ``heavy`` modules running the CLI with ``args`` loads."""
    return modules_after(args, stdin) & set(heavy)


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
    """When the transcript grew since the state, the hook loads the deriver and folds; a
    native line is decoded straight to an event, without pydantic."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    event = compact_event(transcript)
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    loaded_by(argv, event)
    with transcript.open("ab") as f:
        f.write(b'{"event_id": "e2", "event_type": "message", "payload": {}}\n')
    loaded = loaded_by(argv, event)
    assert "deriver" in loaded
    assert "pydantic" not in loaded


def test_a_cold_hook_call_folds_without_the_watcher(tmp_path: Path) -> None:
    """The first hook call derives the transcript once: no file watcher, no asyncio, and
    no pydantic (a native line, the first too, is decoded straight to an event)."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    event = compact_event(transcript)
    loaded = loaded_by(["hook", "--state-dir", str(tmp_path / "state")], event)
    assert "deriver" in loaded
    assert not loaded & {"watchfiles", "asyncio", "nats", "pydantic"}


def test_a_cold_hook_call_loads_no_process_pool_nor_package_metadata(tmp_path: Path) -> None:
    """The first hook call folds without the worker processes of ``watch``'s catch-up
    (multiprocessing) and without pydantic's search for plugins (importlib.metadata)."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    heavy = ("deriver", "multiprocessing", "concurrent.futures.process", "importlib.metadata")
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    assert loaded_by(argv, compact_event(transcript), heavy) == {"deriver"}


@pytest.mark.parametrize("fmt", ["claude_code", "codex"])
def test_a_cold_hook_call_on_a_client_transcript_loads_no_pydantic(
    tmp_path: Path, fmt: str
) -> None:
    """Deriving a Claude Code or Codex transcript for the hook builds no pydantic model and
    imports no pydantic: the service's adapters make DecodedEvents and the outputs are
    written from the deriver's view of the memory."""
    fixture = sorted((Path(__file__).parent / "fixtures" / fmt).glob("*.jsonl"))[0]
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(fixture.read_bytes())
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    assert loaded_by(argv, compact_event(transcript)) & {"deriver", "pydantic"} == {"deriver"}
    assert any((tmp_path / "state").glob("*.memory.md"))


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_derive_of_a_native_transcript_loads_no_pydantic(tmp_path: Path, json: list[str]) -> None:
    """``derive`` decodes native lines straight to events and prints the deriver's view of
    the memory: the public models are never built, so pydantic is not imported."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    loaded = loaded_by(["derive", *json, str(transcript)])
    assert loaded & {"deriver", "pydantic"} == {"deriver"}


# After a cold hook call in this process: pydantic's own plugin loader, and models that
# still validate (a new one built after the call included).
_AFTER_A_FOLD_PROBE = """
import sys
from session_memory.apps.cli import main
main(sys.argv[1:])
loader = sys.modules.get("pydantic.plugin._loader")
from pydantic import BaseModel
from session_memory.core.events import TranscriptEvent
class Later(BaseModel):
    n: int
event = TranscriptEvent.model_validate({"event_id": "e", "event_type": "message"})
real = sys.modules["pydantic.plugin._loader"]
print(loader is None, event.event_id, Later(n=1).n, hasattr(real, "entry_points"))
"""


def test_pydantic_plugins_are_looked_for_again_after_a_hook_fold(tmp_path: Path) -> None:
    """The hook's fold does without pydantic's plugin loader, and leaves no stand-in behind:
    models built after it get pydantic's own loader."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    done = subprocess.run(
        [sys.executable, "-c", _AFTER_A_FOLD_PROBE, "hook", "--state-dir", str(tmp_path / "s")],
        input=compact_event(transcript),
        capture_output=True,
        check=True,
    )
    assert done.stdout.decode().splitlines()[-1] == "True e 1 True"


def test_a_hook_process_ends_with_its_output_and_state_written(tmp_path: Path) -> None:
    """The console script's hook process has printed its whole output and left the state
    current for the next call."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "session_memory.apps.cli", "hook", "--state-dir", str(state)]
    done = subprocess.run(argv, input=compact_event(transcript), capture_output=True, check=True)
    context = orjson.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Port the orders API to v2" in context and done.stderr == b""
    from session_memory.apps.memory_dir.current import read_current_memory

    current = read_current_memory(transcript, state)
    assert current is not None and context.endswith(current.markdown)


@pytest.mark.parametrize(
    ("session", "hook_event"),
    [("s1", "SessionStart"), ("s2", "UserPromptSubmit")],
    ids=["compaction-nothing-written", "prompt-of-a-new-session-record-written"],
)
def test_a_current_hook_call_imports_only_c_modules_and_its_own(
    tmp_path: Path, session: str, hook_event: str
) -> None:
    """A hook call whose state is current imports, beyond the interpreter's start-up, only
    a few C modules, errno and the hook's own modules; writing the session's record
    included."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    argv = ["hook", "--state-dir", str(tmp_path / "state")]
    loaded_by(argv, compact_event(transcript))  # the first call derives
    event = orjson.loads(compact_event(transcript))
    event.update(session_id=session, hook_event_name=hook_event)
    extra = modules_after(argv, orjson.dumps(event)) - startup_modules(PARSER_PROBE)
    assert "session_memory.apps.hook" in extra
    assert extra - CURRENT_HOOK_MAY_IMPORT == set()
    assert len(list((tmp_path / "state" / ".hook-sessions").iterdir())) == int(session[1:])


def imported_by_a_process(argv: list[str], stdin: bytes = b"") -> set[str]:
    """Every module a real process imports, from its ``-X importtime`` lines (written as
    it goes, so a process that ends with ``os._exit`` tells them too)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], input=stdin, capture_output=True, check=True
    )
    lines = done.stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_the_console_scripts_current_hook_call_imports_only_c_modules_and_its_own(
    tmp_path: Path,
) -> None:
    """The console script itself imports on a current call only what the in-process probe
    allows."""
    transcript = tmp_path / "t.jsonl"
    native_transcript(transcript)
    script = str(Path(sys.executable).with_name("session-memory"))
    argv = [script, "hook", "--state-dir", str(tmp_path / "state")]
    imported_by_a_process(argv, compact_event(transcript))  # the first call derives
    extra = imported_by_a_process(argv, compact_event(transcript)) - imported_by_a_process(
        ["-c", PARSER_PROBE]
    )
    assert "session_memory.apps.hook" in extra
    assert extra - CURRENT_HOOK_MAY_IMPORT == set()
