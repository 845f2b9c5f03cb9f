"""Derive every corpus transcript at each budget and score it; score the compaction summaries.

Derivation takes the path ``session-memory derive`` takes: ``read_transcript`` with the
format the corpus names (checked against auto-detection), a fresh ``SessionMemoryDeriver``
with the budget, ``render_memory``. Tokens are counted with the project's counter
(tiktoken cl100k_base) on the rendered text and on Claude Code's summary alike.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from benchmarks.recall.corpus import (
    CORPORA,
    Cut,
    Fact,
    Forbidden,
    Transcript,
    find_cut,
    load_expectations,
)
from benchmarks.recall.scoring import (
    appears_in_memory,
    compact_summary,
    found_in_memory,
    found_in_text,
    parse_sections,
    sections_containing,
)
from deriver import SessionMemoryDeriver
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from session_memory.formats import detect_format, read_transcript
from viewbuilder import render_memory

__all__ = [
    "BUDGETS",
    "EXPLAIN_BUDGET",
    "CompactionScore",
    "MemoryScore",
    "TranscriptScore",
    "detected_format",
    "run",
    "score_memory",
]

BUDGETS: Final = (1200, 600)
EXPLAIN_BUDGET: Final = 1_000_000
"""A budget no corpus memory reaches: what the rules derive when nothing is evicted."""
_DETECT_RECORDS: Final = 64


@dataclass(frozen=True)
class MemoryScore:
    """Our memory of one transcript at one budget, and which facts it holds where."""

    budget: int
    markdown: str
    tokens: int
    found: tuple[bool, ...]
    """One per fact of the transcript, in order."""
    elsewhere: tuple[tuple[str, ...], ...]
    """Per fact, the sections that hold its substring (wherever they are)."""
    appeared: tuple[bool, ...] = ()
    """One per forbidden line of the transcript, in order: whether it appears."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Lines not applied, by reason."""
    unknown_event_types: dict[str, int] = field(default_factory=dict)

    @property
    def hits(self) -> int:
        return sum(self.found)

    @property
    def forbidden_seen(self) -> int:
        return sum(self.appeared)


@dataclass(frozen=True)
class CompactionScore:
    """Claude Code's own summary at a compaction point, on the cut's facts."""

    cut: Cut
    summary_tokens: int
    found: tuple[bool, ...]

    @property
    def hits(self) -> int:
        return sum(self.found)


@dataclass(frozen=True)
class TranscriptScore:
    """Everything measured on one transcript."""

    transcript: Transcript
    detected: str
    by_budget: dict[int, MemoryScore]
    compaction: CompactionScore | None = None
    explained: MemoryScore | None = None
    """The memory at :data:`EXPLAIN_BUDGET`, when asked for."""


def detected_format(path: Path) -> str:
    """The format auto-detection picks for a file (as ``derive --format auto`` does)."""
    with path.open("rb") as f:
        objects = (_loads(line) for line in itertools.islice(f, _DETECT_RECORDS))
        return detect_format(obj for obj in objects if obj is not None)


def _loads(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def score_memory(
    path: Path,
    fmt: str,
    budget: int,
    facts: Sequence[Fact],
    forbidden: Sequence[Forbidden] = (),
) -> MemoryScore:
    """Derive one transcript at one budget and score its rendered memory on the facts and
    the lines that must not appear."""
    deriver = SessionMemoryDeriver(budget_tokens=budget)
    deriver.apply_all(read_transcript(str(path), fmt))
    memory = deriver.memory
    markdown = render_memory(memory)
    sections = parse_sections(markdown)
    diagnostics = memory.diagnostics
    return MemoryScore(
        budget=budget,
        markdown=markdown,
        tokens=counter(DEFAULT_ENCODING).count(markdown),
        found=tuple(found_in_memory(sections, f.kind, f.must_contain) for f in facts),
        elsewhere=tuple(tuple(sections_containing(sections, f.must_contain)) for f in facts),
        appeared=tuple(
            appears_in_memory(sections, f.section, f.must_not_contain) for f in forbidden
        ),
        skipped=dict(sorted(Counter(s.reason for s in diagnostics.skipped).items())),
        unknown_event_types=dict(sorted(diagnostics.unknown_event_types.items())),
    )


def _records(path: Path, start: int) -> Iterator[dict[str, Any]]:
    with path.open("rb") as f:
        for line in itertools.islice(f, start, None):
            obj = _loads(line)
            if isinstance(obj, dict):
                yield obj


def score_compaction(root: Path, cut: Cut, facts: Sequence[Fact]) -> CompactionScore:
    """Score Claude Code's summary right after the cut, in the whole file, on the facts."""
    text = compact_summary(_records(root / cut.whole, cut.lines))
    if text is None:
        raise ValueError(f"{cut.whole}: no compact summary after line {cut.lines}")
    return CompactionScore(
        cut=cut,
        summary_tokens=counter(DEFAULT_ENCODING).count(text),
        found=tuple(found_in_text(text, f.must_contain) for f in facts),
    )


def score_transcript(transcript: Transcript, *, explain: bool) -> TranscriptScore:
    """Derive and score one transcript at every budget (and its compaction point, if a cut)."""
    root = transcript.root
    path = root / transcript.file
    by_budget = {
        budget: score_memory(
            path, transcript.format, budget, transcript.facts, transcript.forbidden
        )
        for budget in BUDGETS
    }
    cut = find_cut(root, transcript.file)
    return TranscriptScore(
        transcript=transcript,
        detected=detected_format(path),
        by_budget=by_budget,
        compaction=None if cut is None else score_compaction(root, cut, transcript.facts),
        explained=(
            score_memory(path, transcript.format, EXPLAIN_BUDGET, transcript.facts)
            if explain
            else None
        ),
    )


def run(
    roots: Path | Sequence[Path] = CORPORA,
    *,
    explain: bool = False,
    expectations: Sequence[str] = (),
) -> list[TranscriptScore]:
    """Score every transcript listed in each corpus's expectation files, in their order."""
    roots = (roots,) if isinstance(roots, Path) else tuple(roots)
    transcripts = [
        t
        for root in roots
        for name in expectations or _expectation_files(root)
        for t in load_expectations(root, name)
    ]
    return [score_transcript(t, explain=explain) for t in transcripts]


def _expectation_files(root: Path) -> list[str]:
    """``expectations.json`` first, then any ``expectations-<group>.json`` beside it."""
    extra = sorted(p.name for p in root.glob("expectations-*.json"))
    return ["expectations.json", *extra]
