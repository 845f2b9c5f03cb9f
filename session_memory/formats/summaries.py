"""The compaction summaries Claude Code and Codex write, read into their sections.

Each client's summary has a heading style of its own; its sections are found by that style
and classified by keywords (:func:`session_memory.core.summary.section_kind`), so a heading
worded differently next time is still read. The adapters put what is read on the
checkpoint event (``summary_sections``); the fold never sees a client's headings.

* Claude Code (the ``isCompactSummary`` record): a fixed preamble ("This session is being
  continued from a previous conversation..."), an optional "Analysis:" part, then
  "Summary:" and numbered sections ("1. Primary Request and Intent:", "4. Errors and fixes:",
  "7. Pending Tasks:", "8. Current Work:", "9. Optional Next Step:"...), each a list of
  bullets or a paragraph, and fixed closing instructions ("If you need specific details from
  before compaction...", "Please continue the conversation..."). The preamble, the closing
  instructions and any ``<system-reminder>`` block are the client's, not the summary, and the
  analysis is the model's working notes, restated in the sections: the summary is what
  follows "Summary:" (:func:`claude_code_summary_text`). Of the user's messages the summary
  lists, the client's own commands (``/model``), interruptions and notifications are no
  requests and are left out.
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
from session_memory.formats.claude_prompts import is_request_text

__all__ = [
    "COMPACT_PREAMBLE",
    "KNOWN_HEADINGS",
    "claude_code_summary_text",
    "read_claude_code_summary",
    "read_codex_summary",
]

COMPACT_PREAMBLE: Final = re.compile(
    r"^This session is being continued from a previous conversation[^\n]*\n+"
)
_CONTINUED: Final = "This session is being continued from a previous conversation"
"""The client's prompt that resumes a session after a compaction: a summary that lists it
among the user's messages ("The only user message is the session continuation prompt: …")
lists no request."""
_CLOSING: Final = (
    "If you need specific details from before compaction",
    "Please continue the conversation from where we left",
    "Continue the conversation from where it left off",
    "The messages after this summary are the most recent messages from before compaction",
)
"""How the lines Claude Code appends after the summary start: where the full transcript is,
to continue without asking, and (2.1.3xx) that the newest messages follow verbatim."""
_REMINDER: Final = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)

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


def claude_code_summary_text(text: str) -> str:
    """The summary of Claude Code's summary record: its text after "Summary:" (the analysis
    before it is the model's working notes), without the client's preamble, closing
    instructions and ``<system-reminder>`` blocks (2.1.3xx puts the tools used before the
    summary in one)."""
    body = COMPACT_PREAMBLE.sub("", _REMINDER.sub("", text).strip(), count=1)
    start = _SUMMARY_START.search(body)
    lines = (body[start.end() :] if start else body).splitlines()
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith(_CLOSING)):
        lines.pop()
    return "\n".join(lines).strip()


def read_claude_code_summary(text: str) -> CompactionSummary:
    """Claude Code's summary: the numbered sections after "Summary:"; of the user messages,
    those that are requests."""
    text = text[:SUMMARY_CHARS]
    start = _SUMMARY_START.search(text)
    body = text[start.end() :] if start else text
    summary = read_sections(body, _claude_heading)
    requests = tuple(m for m in summary.user_messages if is_request_text(m) and _CONTINUED not in m)
    return summary._replace(user_messages=requests)


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
