"""What a compaction summary states, section by section: the type, and how sections are read.

A compaction summary is written by a model; its headings are a convention, not a contract.
A reader groups the summary's lines under the headings its heading style recognises and
classifies each heading by keywords (:func:`section_kind`): whichever sections are present
are read, the others are simply absent.

The format adapters know their clients' heading styles (``session_memory/formats/summaries.py``)
and put the sections they read on the checkpoint event, in its ``summary_sections`` field
(:func:`summary_payload`). A checkpoint without them, as a native transcript writes it, is
read here: Markdown headings, whose bullets may carry a bold label of their own
("* **Decisions**: ...") that says their kind (:func:`read_markdown_summary`).
:func:`checkpoint_summary` is the one reader of a checkpoint's payload.

Reading is pure and bounded: only the first :data:`SUMMARY_CHARS` characters are read, and
each kind keeps at most :data:`MAX_PER_KIND` entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Final, Literal, NamedTuple

from session_memory.core.outcome import payload_text

__all__ = [
    "MAX_PER_KIND",
    "SUMMARY_CHARS",
    "CompactionSummary",
    "Heading",
    "SectionKind",
    "checkpoint_summary",
    "markdown_heading",
    "read_markdown_summary",
    "read_sections",
    "section_kind",
    "summary_payload",
]

SectionKind = Literal["request", "todo", "error", "decision", "resume", "user", "done", "skip"]
Heading = Callable[[str], str | None]
"""A heading style: the title a line gives its section, or None when the line is no heading."""

SUMMARY_CHARS: Final = 64 * 1024
MAX_PER_KIND: Final = 4
_MAX_DECISIONS: Final = 2
_MAX_ERRORS: Final = 3


class CompactionSummary(NamedTuple):
    """What a summary states, section by section, in the summary's own words."""

    request: str
    todos: tuple[str, ...]
    errors: tuple[str, ...]
    decisions: tuple[str, ...]
    resume: tuple[str, ...]
    user_messages: tuple[str, ...]
    done: tuple[str, ...]


# Keywords per kind, tried in this order: "pending tasks" is a todo before it is a task,
# "problem solving" a decision before it is a problem.
_KEYWORDS: Final[tuple[tuple[SectionKind, tuple[str, ...]], ...]] = (
    ("todo", ("pending", "todo", "to do", "to-do", "remaining", "outstanding", "open task",
              "what remains", "not yet done", "left to do")),
    ("resume", ("current work", "next step", "current state", "in progress", "resume",
                "where we left", "current status", "next action")),
    ("user", ("user message", "user's message", "user said", "user prompts")),
    ("decision", ("decision", "decided", "solving", "approach", "design", "choice",
                  "rationale", "solution")),
    ("error", ("error", "fix", "failure", "failed", "bug", "learning", "lesson", "pitfall",
               "gotcha", "issue", "problem")),
    ("done", ("completed", "done", "milestone", "accomplished", "finished", "achieved",
              "progress")),
    ("request", ("request", "intent", "goal", "objective", "task", "asked")),
    ("skip", ("concept", "file", "code section", "snapshot", "context", "technical")),
)  # fmt: skip

_BULLET: Final = re.compile(r"^(\s*)(?:[-*+•]|\d+[.)])\s+(.*)$")
_CHECKBOX: Final = re.compile(r"^\[[ xX✓✔~>▶-]?\]\s*")
_LABEL: Final = re.compile(r"^\*\*([^*]{2,60}?)\*\*\s*:?\s*(.*)$")
_BOLD: Final = re.compile(r"\*\*([^*]+)\*\*")
_MD_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")

_KEYWORD_PATTERNS: Final = tuple(
    (kind, re.compile("|".join(map(re.escape, words)))) for kind, words in _KEYWORDS
)
"""Per kind, in order, one search for any of its keywords (a scan in C, not a generator)."""


def section_kind(heading: str) -> SectionKind | None:
    """The kind of section a heading names, by keywords; None when it names none."""
    lowered = heading.lower()
    for kind, keywords in _KEYWORD_PATTERNS:
        if keywords.search(lowered) is not None:
            return kind
    return None


def markdown_heading(text: str) -> str | None:
    """The title of a Markdown heading line (``## Title``), else None."""
    heading = _MD_HEADING.match(text)
    return heading.group(1) if heading else None


def read_sections(
    text: str, heading: Heading, default: SectionKind | None = None
) -> CompactionSummary:
    """The sections of ``text`` under the headings ``heading`` recognises, by kind.

    An entry under no heading, or under one that names no kind, is of ``default``.
    """
    return _collect(_sections(text.splitlines(), heading), default)


def read_markdown_summary(text: str) -> CompactionSummary:
    """A summary in Markdown sections whose bullets may carry their own bold label."""
    return read_sections(text[:SUMMARY_CHARS], markdown_heading)


def summary_payload(summary: CompactionSummary) -> dict[str, object]:
    """The ``summary_sections`` field of a native checkpoint that states ``summary``."""
    return {
        name: value if isinstance(value, str) else list(value)
        for name, value in summary._asdict().items()
    }


def checkpoint_summary(payload: Mapping[str, object]) -> CompactionSummary | None:
    """What a native checkpoint's summary states; None when it has no summary.

    The ``summary_sections`` an adapter read are taken as they are; else the ``summary``
    text is read as Markdown sections (:func:`read_markdown_summary`).
    """
    stated = _stated(payload.get("summary_sections"))
    if stated is not None:
        return stated
    text = payload_text(payload.get("summary"))
    return read_markdown_summary(text) if text.strip() else None


def _stated(value: object) -> CompactionSummary | None:
    """The sections a ``summary_sections`` object states; None unless it is an object."""
    if not isinstance(value, dict):
        return None
    request = value.get("request")
    lists = {name: _texts(value.get(name)) for name in CompactionSummary._fields[1:]}
    return CompactionSummary(request if isinstance(request, str) else "", **lists)


def _texts(value: object) -> tuple[str, ...]:
    """The strings of a list, up to :data:`MAX_PER_KIND`; () for anything else."""
    if not isinstance(value, list):
        return ()
    return tuple(entry for entry in value[:MAX_PER_KIND] if isinstance(entry, str))


def _clean(text: str) -> str:
    text = text.strip()
    # Most lines have neither: the patterns run only where they can match.
    if text.startswith("["):
        text = _CHECKBOX.sub("", text)
    if "**" in text:
        text = _BOLD.sub(r"\1", text)
    return text.strip()


class _Section(NamedTuple):
    heading: str
    lines: list[str]


def _sections(lines: list[str], heading: Heading) -> list[_Section]:
    """Lines grouped under the headings ``heading`` recognises; text before any is ""."""
    sections = [_Section("", [])]
    for text in lines:
        title = heading(text)
        if title is None:
            sections[-1].lines.append(text)
        else:
            sections.append(_Section(title, []))
    return sections


def _entries(lines: list[str]) -> Iterator[tuple[str, str]]:
    """A section's entries: each top-level bullet (with its label, if bold) or paragraph.

    Yields ``(label, text)``; ``label`` is a bullet's bold label ("Goal"), else "".
    Deeper bullets and continuation lines are appended to their entry.
    """
    current: list[str] = []
    label = ""
    top: int | None = None
    for raw in lines:
        if not raw.strip():
            if current and top is None:  # a blank line ends a paragraph
                yield label, " ".join(current)
                current, label = [], ""
            continue
        bullet = _BULLET.match(raw)
        indent = len(bullet.group(1)) if bullet else 0
        if bullet is not None and (top is None or indent <= top):
            if current:
                yield label, " ".join(current)
            top = indent
            label, text = _labelled(bullet.group(2).strip())
            current = [text] if text else []
        elif not raw.lstrip().startswith(("```", "|")):
            current.append(_clean(raw))
    if current:
        yield label, " ".join(current)


def _labelled(bullet: str) -> tuple[str, str]:
    """A bullet's field label and text: "**Decisions**: x" is field "Decisions" with text x.

    A bold lead-in that names no kind of section, is longer than a field name ("**Credo
    warning about length/1**: ..."), or names one entry by its number ("**Task #10
    (in_progress)**: ..."), is part of the text, not a label.
    """
    labelled = _LABEL.match(bullet)
    if labelled is not None:
        label = labelled.group(1).strip()
        numbered = any(c.isdigit() for c in label)
        if len(label.split()) <= 3 and not numbered and section_kind(label) is not None:
            return label, _clean(labelled.group(2))
    return "", _clean(bullet)


# An entry of the errors, pending tasks or next step sections that says there was none.
_NONE_RE: Final = re.compile(
    r"^(?:none\b|no\b[^.:]{0,40}\b(?:errors?|issues?|problems?|failures?|tasks?)\b)",
    re.IGNORECASE,
)
_NONE_KINDS: Final = frozenset({"error", "todo", "resume"})


def _is_aside(text: str) -> bool:
    """A parenthesised remark ("(interrupted the test run)"), not a statement of its own."""
    return text.startswith("(") and text.endswith(")")


def _collect(sections: list[_Section], default: SectionKind | None) -> CompactionSummary:
    """Entries by kind: a labelled entry by its label, else by its section's heading;
    an entry under no heading, or under one that names no kind, is of ``default``."""
    found: dict[SectionKind, list[str]] = {}
    for section in sections:
        kind = (section_kind(section.heading) if section.heading else None) or default
        resumed = False  # where work resumes: a section's lead entry, not its details
        for label, text in _entries(section.lines):
            entry_kind = (section_kind(label) if label else None) or kind
            if entry_kind is None or entry_kind == "skip" or not text or _is_aside(text):
                continue
            if entry_kind in _NONE_KINDS and _NONE_RE.match(text):
                continue  # "No build or test errors encountered.", "None explicitly requested."
            if entry_kind == "resume":
                if resumed:
                    continue
                resumed = True
            found.setdefault(entry_kind, []).append(text)

    def take(kind: SectionKind, last: bool = False) -> tuple[str, ...]:
        values = found.get(kind, [])
        return tuple(values[-MAX_PER_KIND:] if last else values[:MAX_PER_KIND])

    requests = found.get("request", [])
    found["user"] = _quoted_messages(found.get("user", []))
    return CompactionSummary(
        request=requests[0] if requests else "",
        todos=take("todo"),
        errors=take("error", last=True)[-_MAX_ERRORS:],
        decisions=take("decision", last=True)[-_MAX_DECISIONS:],
        resume=take("resume")[:2],
        user_messages=take("user", last=True),
        done=take("done", last=True),
    )


_MESSAGE_LABEL: Final = re.compile(r"^(?:user\s+)?message\s*#?\d+\s*[:.)-]\s*", re.I)
"""A summary's number for a message it lists ("Message 3: ...")."""
_QUOTES: Final = {'"': '"', "\u201c": "\u201d", "`": "`"}


def _quoted_messages(entries: list[str]) -> list[str]:
    """User messages as the summary quotes them (after a "Message N:" label, in straight,
    curly or code quotes); when some entries are quoted, the others are the summary's
    remarks about messages ("System reminders about ..."), not messages."""
    quoted = [q for q in map(_quoted, entries) if q is not None]
    return [q for q in quoted if q.strip()] if quoted else entries


def _quoted(entry: str) -> str | None:
    """The quoted message an entry opens with ("check again" (to re-run it)), else None."""
    entry = _MESSAGE_LABEL.sub("", entry, count=1)
    close = _QUOTES.get(entry[:1])
    end = entry.rfind(close) if close is not None else -1
    return entry[1:end] if end > 0 else None
