"""How a fact is scored: normalisation, the sections of a rendered memory, kind to section.

A fact is ``{"kind": ..., "must_contain": ...}``. It is found in our memory when its substring,
after Unicode NFKC and whitespace collapsing on both sides, appears in one line of a section
where an agent would look for a fact of its kind, or of a section whose heading says that it
quotes where the session stands ("left off", "stands", "last message"). A run of ``>`` quoted
lines counts as one line too (the current goal is only that: its quoted lines joined). It is
found in a compaction summary when it appears anywhere in the text.

A forbidden line is ``{"section": ..., "must_not_contain": ...}``: it appears when its text is
in any line of the sections named (a fact kind's own sections, ``completed`` or ``any``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from session_memory.core.layout import GOAL_TITLE, SECTION_TITLES, item_prefix

__all__ = [
    "CURRENT_GOAL",
    "KINDS",
    "KIND_PLACES",
    "STANDS_WORDS",
    "Place",
    "appears_in_memory",
    "compact_summary",
    "found_in_memory",
    "found_in_text",
    "is_stands_title",
    "normalise",
    "parse_sections",
    "sections_containing",
]

CURRENT_GOAL: Final = GOAL_TITLE.removeprefix("## ").rstrip("\n")
_EARLIER_GOALS: Final = SECTION_TITLES["earlier_goals"]
_TODO: Final = SECTION_TITLES["todo_items"]
_VERIFICATION: Final = SECTION_TITLES["verification_status"]
_FAILED: Final = SECTION_TITLES["failed_attempts"]
_DECISIONS: Final = SECTION_TITLES["key_decisions"]
_FAILED_CHECK: Final = item_prefix("failed")
"""How a failed verification line starts (``- FAILED:``)."""


@dataclass(frozen=True)
class Place:
    """Where a fact of some kind may be found: a section, optionally only lines with a prefix."""

    section: str
    line_prefix: str = ""


KIND_PLACES: Final[dict[str, tuple[Place, ...]]] = {
    "goal": (Place(CURRENT_GOAL), Place(_EARLIER_GOALS)),
    "todo": (Place(_TODO),),
    "failure": (Place(_FAILED), Place(_VERIFICATION, _FAILED_CHECK)),
    "verification": (Place(_VERIFICATION),),
    "decision": (Place(_DECISIONS),),
    "uncertain": (Place(_TODO), Place(_VERIFICATION)),
}
KINDS: Final = tuple(KIND_PLACES)
_FORBIDDEN_PLACES: Final[dict[str, tuple[str, ...]]] = {
    **{kind: tuple(p.section for p in places) for kind, places in KIND_PLACES.items()},
    "completed": (SECTION_TITLES["completed_work"],),
}
STANDS_WORDS: Final = ("left off", "stands", "last message")
"""Words of a heading that says its section quotes where the session stands: a fact of any
kind counts there."""


def is_stands_title(title: str) -> bool:
    """Whether a section heading says the section quotes where the session stands."""
    lowered = title.lower()
    return any(word in lowered for word in STANDS_WORDS)


def normalise(text: str) -> str:
    """NFKC, then every run of whitespace (newlines included) as one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def parse_sections(markdown: str) -> dict[str, tuple[str, ...]]:
    """The lines of each ``## `` section of a rendered memory, by heading title.

    The current goal is one entry: its ``>`` quoted lines without the quote marks, joined by
    newlines (the acknowledgement line after it is not part of the goal). Every other section
    has one entry per line as rendered, bullet and status tag included. Lines before the
    first heading (the title and the notice) belong to no section.
    """
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    title = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            current = sections.setdefault(title, [])
        elif current is not None and line:
            current.append(line)
    parsed = {name: (*lines, *_quoted_runs(lines)) for name, lines in sections.items()}
    if CURRENT_GOAL in parsed:
        quoted = [_unquote(line) for line in sections[CURRENT_GOAL] if line.startswith(">")]
        parsed[CURRENT_GOAL] = ("\n".join(quoted),) if quoted else ()
    return parsed


def _quoted_runs(lines: list[str]) -> list[str]:
    """Each run of two or more consecutive ``>`` lines, unquoted and joined by newlines."""
    runs: list[list[str]] = [[]]
    for line in lines:
        if line.startswith(">"):
            runs[-1].append(_unquote(line))
        elif runs[-1]:
            runs.append([])
    return ["\n".join(run) for run in runs if len(run) > 1]


def _unquote(line: str) -> str:
    return line[2:] if line.startswith("> ") else line[1:]


def _contains(haystack: str, needle: str) -> bool:
    return normalise(needle) in normalise(haystack)


def found_in_memory(sections: Mapping[str, tuple[str, ...]], kind: str, needle: str) -> bool:
    """True when the fact appears in one line of a place where its kind belongs."""
    try:
        places = KIND_PLACES[kind]
    except KeyError:
        raise ValueError(f"unknown fact kind {kind!r}; known: {', '.join(KINDS)}") from None
    if any(
        line.startswith(place.line_prefix) and _contains(line, needle)
        for place in places
        for line in sections.get(place.section, ())
    ):
        return True
    return any(
        _contains(line, needle)
        for title, lines in sections.items()
        if is_stands_title(title)
        for line in lines
    )


def appears_in_memory(sections: Mapping[str, tuple[str, ...]], section: str, needle: str) -> bool:
    """True when a forbidden text is in a line of the sections named by ``section``."""
    if section == "any":
        titles: tuple[str, ...] = tuple(sections)
    else:
        try:
            titles = _FORBIDDEN_PLACES[section]
        except KeyError:
            known = ", ".join((*_FORBIDDEN_PLACES, "any"))
            raise ValueError(f"unknown section {section!r}; known: {known}") from None
    return any(_contains(line, needle) for title in titles for line in sections.get(title, ()))


def sections_containing(sections: Mapping[str, tuple[str, ...]], needle: str) -> list[str]:
    """The titles of every section with a line that contains the fact, in rendered order."""
    return [title for title, lines in sections.items() if any(_contains(x, needle) for x in lines)]


def found_in_text(text: str, needle: str) -> bool:
    """True when the fact appears anywhere in the text."""
    return _contains(text, needle)


def compact_summary(records: Iterable[Mapping[str, Any]]) -> str | None:
    """The text of Claude Code's summary at the first compaction among ``records``.

    That is the first ``isCompactSummary`` record after the first ``compact_boundary``
    system record (before any later boundary); its ``message.content`` is a string or a list
    of blocks whose ``text`` parts are joined by newlines. None when there is no such record.
    """
    seen_boundary = False
    for record in records:
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            if seen_boundary:
                return None
            seen_boundary = True
        elif seen_boundary and record.get("isCompactSummary") is True:
            message = record.get("message")
            content = message.get("content") if isinstance(message, Mapping) else None
            return _content_text(content)
    return None


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, Mapping) and isinstance(block.get("text"), str)
        )
    return ""
