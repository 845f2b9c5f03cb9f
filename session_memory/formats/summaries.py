"""The compaction summaries Claude Code and Codex write, read into their sections.

Each client's summary has a heading style of its own; its sections are found by that style
and classified by keywords (:func:`session_memory.core.summary.section_kind`), so a heading
worded differently next time is still read. The adapters put what is read on the
checkpoint event (``summary_sections``); the fold never sees a client's headings.

* Claude Code (the ``isCompactSummary`` record): an optional "Analysis:" part, then
  "Summary:" and numbered sections ("1. Primary Request and Intent:", "4. Errors and fixes:",
  "7. Pending Tasks:", "8. Current Work:", "9. Optional Next Step:"...), each a list of
  bullets or a paragraph. The analysis is the model's working notes, restated in the
  sections, and is not read.
* Codex (``compacted.message``): free Markdown; any heading style (``#``, a bold line, a
  "Title:" line) is a section, and text under no heading is where work resumes.

MyCodeAgent's own summary ("## Archived Session Summary", with ``###`` sections of labelled
bullets) is the native one: the fold reads it from the checkpoint's text
(:func:`session_memory.core.summary.read_markdown_summary`).
"""

from __future__ import annotations

import re
from typing import Final

from session_memory.core.summary import (
    SUMMARY_CHARS,
    CompactionSummary,
    markdown_heading,
    read_sections,
)

__all__ = ["KNOWN_HEADINGS", "read_claude_code_summary", "read_codex_summary"]

KNOWN_HEADINGS: Final = {
    "claude-code": (
        "Primary Request and Intent",
        "Key Technical Concepts",
        "Files and Code Sections",
        "Errors and fixes",
        "Problem Solving",
        "All user messages",
        "Pending Tasks",
        "Current Work",
        "Optional Next Step",
    ),
    "native": (
        "Archived Session Summary",
        "Objectives & Status",
        "Original Goal",
        "Completed Milestones",
        "Key Insights & Decisions",
        "Decisions",
        "Learnings",
        "File System State",
    ),
}
"""The headings (and bullet labels) each client is known to write. They are examples, not
what the readers match: every one of them names its kind by keywords."""

_NUMBERED_HEADING: Final = re.compile(r"^(\d{1,2})\.\s+([A-Z][^*:\n]{2,60}):\s*$")
_BOLD_HEADING: Final = re.compile(r"^\s{0,3}\*\*([^*]{2,60})\*\*:?\s*$")
_TITLE_HEADING: Final = re.compile(r"^([A-Z][A-Za-z &/'-]{2,40}):\s*$")
_SUMMARY_START: Final = re.compile(r"^\s*Summary:\s*$", re.M)


def _claude_heading(text: str) -> str | None:
    numbered = _NUMBERED_HEADING.match(text)
    if numbered is not None:
        return numbered.group(2)
    return markdown_heading(text)


def read_claude_code_summary(text: str) -> CompactionSummary:
    """Claude Code's summary: the numbered sections after "Summary:"."""
    text = text[:SUMMARY_CHARS]
    start = _SUMMARY_START.search(text)
    body = text[start.end() :] if start else text
    return read_sections(body, _claude_heading)


def _any_heading(text: str) -> str | None:
    heading = markdown_heading(text)
    if heading is not None:
        return heading
    for pattern in (_BOLD_HEADING, _TITLE_HEADING):
        found = pattern.match(text)
        if found is not None:
            return found.group(1)
    return _claude_heading(text)


def read_codex_summary(text: str) -> CompactionSummary:
    """A Codex handoff summary: free Markdown; text under no heading is where work resumes."""
    return read_sections(text[:SUMMARY_CHARS], _any_heading, "resume")
