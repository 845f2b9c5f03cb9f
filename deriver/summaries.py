"""Compaction summaries: the sections of the summary a checkpoint carries, as typed facts.

A compaction summary is written by a model; its headings are a convention, not a
contract, so each dialect's parser finds its sections by the heading *style* the dialect
uses and classifies each heading by keywords (:func:`section_kind`). Whichever sections
are present are read; the others are simply absent.

* Claude Code (``isCompactSummary``): an optional "Analysis:" part, then "Summary:" and
  numbered sections ("1. Primary Request and Intent:", "4. Errors and fixes:", "7. Pending
  Tasks:", "8. Current Work:", "9. Optional Next Step:"...), each a list of bullets or a
  paragraph.
* MyCodeAgent (checkpoint ``summary``): "## Archived Session Summary", then "###"
  sections ("Objectives & Status", "Completed Milestones", "Key Insights & Decisions",
  "File System State") whose bullets may carry their own label ("* **Original Goal**: ...",
  "* **Decisions**: ...", "* **Learnings**: ...").
* Codex (``compacted.message``): free Markdown; any heading style (``#``, a bold line, a
  "Title:" line) is a section, and text with no heading is where work resumes.

Parsing is pure and bounded: only the first :data:`SUMMARY_CHARS` characters are read,
and each kind keeps at most :data:`MAX_PER_KIND` entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final, Literal, NamedTuple

__all__ = [
    "MAX_PER_KIND",
    "SUMMARY_CHARS",
    "CompactionSummary",
    "SummaryDialect",
    "parse_summary",
    "section_kind",
]

SummaryDialect = Literal["claude-code", "codex", "native"]
SectionKind = Literal["request", "todo", "error", "decision", "resume", "user", "done", "skip"]

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


# Keywords per kind, tried in this order: "Pending Tasks" is a todo before it is a task,
# "Problem Solving" a decision before it is a problem.
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
_NUMBERED_HEADING: Final = re.compile(r"^(\d{1,2})\.\s+([A-Z][^*:\n]{2,60}):\s*$")
_BOLD_HEADING: Final = re.compile(r"^\s{0,3}\*\*([^*]{2,60})\*\*:?\s*$")
_TITLE_HEADING: Final = re.compile(r"^([A-Z][A-Za-z &/'-]{2,40}):\s*$")
_SUMMARY_START: Final = re.compile(r"^\s*Summary:\s*$", re.M)


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


def _sections(lines: list[str], heading: Callable[[str], str | None]) -> list[_Section]:
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

    Yields ``(label, text)``; ``label`` is a bullet's bold label ("Original Goal"), else "".
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

    A bold lead-in that names no kind of section, or is longer than a field name
    ("**Credo warning about length/1**: ..."), is part of the text, not a label.
    """
    labelled = _LABEL.match(bullet)
    if labelled is not None:
        label = labelled.group(1).strip()
        if len(label.split()) <= 3 and section_kind(label) is not None:
            return label, _clean(labelled.group(2))
    return "", _clean(bullet)


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


def _quoted_messages(entries: list[str]) -> list[str]:
    """User messages as the summary quotes them; when some entries are quoted, the others
    are the summary's remarks about messages ("System reminders about ..."), not messages."""
    quoted = [e[1 : e.rfind('"')] for e in entries if e.startswith('"') and e.rfind('"') > 0]
    return [q for q in quoted if q.strip()] if quoted else entries


def _claude_heading(text: str) -> str | None:
    numbered = _NUMBERED_HEADING.match(text)
    if numbered is not None:
        return numbered.group(2)
    heading = _MD_HEADING.match(text)
    return heading.group(1) if heading else None


def parse_claude_code(text: str) -> CompactionSummary:
    """Claude Code's summary: the numbered sections after "Summary:" (the analysis before
    it is the model's working notes, restated in the sections)."""
    start = _SUMMARY_START.search(text)
    body = text[start.end() :] if start else text
    return _collect(_sections(body.splitlines(), _claude_heading), None)


def _markdown_heading(text: str) -> str | None:
    heading = _MD_HEADING.match(text)
    return heading.group(1) if heading else None


def parse_mycodeagent(text: str) -> CompactionSummary:
    """MyCodeAgent's "Archived Session Summary": ``###`` sections of labelled bullets."""
    return _collect(_sections(text.splitlines(), _markdown_heading), None)


def _any_heading(text: str) -> str | None:
    for pattern in (_MD_HEADING, _BOLD_HEADING, _TITLE_HEADING):
        heading = pattern.match(text)
        if heading is not None:
            return heading.group(1)
    return _claude_heading(text)


def parse_codex(text: str) -> CompactionSummary:
    """A Codex handoff summary: free Markdown; text under no heading is where work resumes."""
    return _collect(_sections(text.splitlines(), _any_heading), "resume")


_PARSERS: Final[dict[SummaryDialect, Callable[[str], CompactionSummary]]] = {
    "claude-code": parse_claude_code,
    "codex": parse_codex,
    "native": parse_mycodeagent,
}


def parse_summary(text: str, dialect: SummaryDialect) -> CompactionSummary:
    """The facts a compaction summary of ``dialect`` states."""
    return _PARSERS[dialect](text[:SUMMARY_CHARS])
