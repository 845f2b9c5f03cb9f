"""The recall corpus: transcripts, the facts read out of them by hand, and compaction points."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

__all__ = [
    "CORPORA",
    "CORPUS",
    "CORPUS3",
    "CorpusError",
    "Cut",
    "Fact",
    "Forbidden",
    "Transcript",
    "find_cut",
    "load_expectations",
    "verify_checksums",
]

CORPUS: Final = Path(__file__).resolve().parent / "corpus"
"""Sessions of the repositories the rules were first developed on."""
CORPUS3: Final = Path(__file__).resolve().parent / "corpus3"
"""Sessions of other repositories, their facts written before the tool was run on them."""
CORPORA: Final = (CORPUS, CORPUS3)
DEFAULT_GROUP: Final = "corpus"
_CUT_NAME: Final = re.compile(r"^(?P<session>.+)_L1-(?P<lines>[0-9]+)_precompact\.jsonl$")


class CorpusError(Exception):
    """The corpus on disk is not what its manifest says."""


@dataclass(frozen=True)
class Fact:
    """One must-know fact: its kind and the short verbatim substring that shows it."""

    kind: str
    must_contain: str
    why: str = ""


@dataclass(frozen=True)
class Forbidden:
    """A line that must not appear: text that must not be in any line of a section.

    ``section`` is a fact kind (its sections), ``completed`` (completed work) or ``any``.
    """

    section: str
    must_not_contain: str
    why: str = ""


@dataclass(frozen=True)
class Transcript:
    """One transcript of the corpus with its expected facts and forbidden lines."""

    file: str
    """Path relative to the corpus root."""
    format: str
    facts: tuple[Fact, ...]
    group: str = DEFAULT_GROUP
    """The corpus it belongs to: the name of its root directory."""
    forbidden: tuple[Forbidden, ...] = ()
    root: Path = CORPUS


@dataclass(frozen=True)
class Cut:
    """A compaction point: a prefix of a whole session that ends just before its compaction."""

    whole: str
    """The whole session's path relative to the corpus root."""
    lines: int
    """How many lines of the whole file the cut holds."""


def load_expectations(root: Path = CORPUS, name: str = "expectations.json") -> list[Transcript]:
    """The transcripts and facts listed in ``root/name``, in file order."""
    data = orjson.loads((root / name).read_bytes())
    transcripts = []
    for entry in data:
        facts = tuple(
            Fact(kind=f["kind"], must_contain=f["must_contain"], why=f.get("why", ""))
            for f in entry["expected"]
        )
        forbidden = tuple(
            Forbidden(
                section=f["section"], must_not_contain=f["must_not_contain"], why=f.get("why", "")
            )
            for f in entry.get("must_not", ())
        )
        transcripts.append(
            Transcript(
                file=entry["file"],
                format=entry.get("format", "auto"),
                facts=facts,
                group=entry.get("group", root.name),
                forbidden=forbidden,
                root=root,
            )
        )
    return transcripts


def verify_checksums(root: Path = CORPUS, name: str = "SHA256SUMS") -> int:
    """Check every file listed in ``root/name`` (``sha256sum`` format); the number checked."""
    checked = 0
    for line in (root / name).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        digest, _, rel = line.partition("  ")
        path = root / rel
        if not path.is_file():
            raise CorpusError(f"{rel}: listed in {name} but missing")
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != digest:
            raise CorpusError(f"{rel}: SHA-256 {actual} does not match {name}")
        checked += 1
    return checked


def find_cut(root: Path, file: str) -> Cut | None:
    """The compaction point a transcript is, when its name says it is a cut, else None.

    A cut ``<session>_L1-N_precompact.jsonl`` must be byte for byte the first N lines of the
    one whole file ``<session>.jsonl`` elsewhere in the corpus.
    """
    match = _CUT_NAME.match(Path(file).name)
    if match is None:
        return None
    wholes = sorted(
        p for p in root.rglob(f"{match['session']}.jsonl") if p != root / file and p.is_file()
    )
    if len(wholes) != 1:
        raise CorpusError(f"{file}: expected one whole session file, found {len(wholes)}")
    lines = int(match["lines"])
    whole = wholes[0]
    prefix = b"".join(whole.read_bytes().splitlines(keepends=True)[:lines])
    if prefix != (root / file).read_bytes():
        raise CorpusError(f"{file}: not the first {lines} lines of {whole.relative_to(root)}")
    return Cut(whole=whole.relative_to(root).as_posix(), lines=lines)
