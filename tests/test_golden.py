"""Every memory output of the bundled sample and of every fixture, pinned byte for byte.

The goldens change only on purpose: a change to what the rules derive regenerates them with
``SESSION_MEMORY_REGEN_GOLDEN=1 pytest tests/test_golden.py`` and the diff is reviewed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from session_memory.apps.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

SOURCES = [
    ROOT / "examples" / "sample_transcript.jsonl",
    *sorted(FIXTURES.rglob("*.jsonl")),
]
CASES = [
    (source, budget, as_json)
    for source in SOURCES
    for budget in (1200, 600)
    for as_json in (False, True)
]


def _name(source: Path, budget: int, as_json: bool) -> str:
    return f"{source.stem}.b{budget}.{'json' if as_json else 'md'}"


@pytest.mark.parametrize(
    ("source", "budget", "as_json"),
    CASES,
    ids=[_name(*case) for case in CASES],
)
def test_derive_output_is_pinned(
    source: Path, budget: int, as_json: bool, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`derive` prints exactly the pinned bytes for this transcript and budget."""
    argv = ["derive", str(source), "--budget", str(budget)] + (["--json"] if as_json else [])
    assert main(argv) == 0
    out = capsysbinary.readouterr().out
    golden = GOLDEN / _name(source, budget, as_json)
    if os.environ.get("SESSION_MEMORY_REGEN_GOLDEN") == "1":
        golden.write_bytes(out)
    assert out == golden.read_bytes()
