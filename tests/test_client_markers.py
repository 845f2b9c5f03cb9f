"""The fold, the view and core know no client: every client's vocabulary is in its adapter.

The markers are gathered from the adapters' own tables (record types and subtypes, the
fields of a record they read, the texts that say a call did not succeed, the wrappers of
injected text, the summary headings each client writes), so a marker an adapter learns is
looked for here too. Then every module of ``deriver/``, ``viewbuilder/`` and
``session_memory/core/`` is searched for each, code, comments and docstrings alike.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from session_memory.formats import claude_code, claude_prompts, codex, detect, summaries
from session_memory.formats.outcomes import ResultMarkers
from session_memory.formats.summaries import KNOWN_HEADINGS

ROOT = Path(__file__).parent.parent
SEARCHED = ("deriver", "viewbuilder", "session_memory/core")

SHARED_WORDS = frozenset({"context_compacted", "token_count", "taskId", "exitCode"})
"""Client words that are others' too: MyCodeAgent's compaction transition, an everyday
variable name (Codex's token usage event), a tool's argument (TaskUpdate's), which the
fold reads as it reads every tool's arguments, not as a record's field, and the exit code
field of the plain result objects other agents write (core's outcome reader reads it)."""
CLIENT_MODULES = sorted(
    p
    for pattern in ("claude_*.py", "codex*.py")
    for p in (ROOT / "session_memory" / "formats").glob(pattern)
)
"""The adapters of Claude Code and Codex and the modules that hold their formats' knowledge."""
_CAMEL_CASE = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+")
_PREAMBLE = re.compile(r"\^([A-Za-z ]+)")


def _result_markers(markers: ResultMarkers) -> set[str]:
    """The texts that open a result, and the whole results, that say a call did not succeed.

    A whole result of one word ("aborted") is looked for as it would be written in code:
    quoted.
    """
    whole = set(markers.interrupted)
    quoted = {f'"{text}"' if text.isalpha() else text for text in whole}
    return {*markers.rejected, *markers.errored, *quoted}


def _record_fields(path: Path) -> set[str]:
    """The camelCase names in an adapter's code: the fields of a client's records it reads."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _CAMEL_CASE.fullmatch(node.value)
    }


def client_markers() -> set[str]:
    """Every marker of the Claude Code and Codex formats, from their adapters' vocabulary."""
    preamble = _PREAMBLE.match(summaries.COMPACT_PREAMBLE.pattern)
    assert preamble is not None
    markers = {
        *claude_code.RECORD_TYPES,
        *detect._CODEX_TYPES,
        *claude_code._SYSTEM_SUBTYPES,
        *codex._RESPONSE_ITEMS,
        *codex._EVENTS,
        *codex._ABORT_CAUSES,
        *_result_markers(claude_code.ClaudeCodeAdapter.result_markers),
        *_result_markers(codex.CodexAdapter.result_markers),
        *claude_prompts.WRAPPER_PREFIXES,
        claude_prompts.INTERRUPT_PREFIX,
        preamble.group(1).strip(),
        *(name for path in CLIENT_MODULES for name in _record_fields(path)),
        *(heading for headings in KNOWN_HEADINGS.values() for heading in headings),
    }
    # A plain word ("summary", "progress", "Decisions") is everybody's vocabulary.
    return {m for m in markers if not re.fullmatch(r"[A-Za-z][a-z]+", m)} - SHARED_WORDS


def _pattern(marker: str) -> re.Pattern[str]:
    """A marker as it would be written: an identifier whole, a phrase anywhere."""
    if re.fullmatch(r"[\w-]+", marker):
        return re.compile(rf"(?<![\w-]){re.escape(marker)}(?![\w-])")
    return re.compile(re.escape(marker))


def searched_files() -> list[Path]:
    return sorted(p for folder in SEARCHED for p in (ROOT / folder).rglob("*.py"))


MARKERS = sorted(client_markers())
PATTERNS = [(m, _pattern(m)) for m in MARKERS]


def test_the_vocabulary_is_gathered() -> None:
    """The list holds each kind of marker the adapters know."""
    for marker in (
        "isCompactSummary",
        "compact_boundary",
        "queue-operation",
        "response_item",
        "function_call_output",
        "event_msg",
        "turn_context",
        "toolUseResult",
        "User rejected tool use",
        "<tool_use_error>",
        "InputValidationError:",
        "Sibling tool call errored",
        '"aborted"',
        "write_stdin failed:",
        "apply_patch verification failed",
        "review_ended",
        "[Request interrupted by user",
        "This session is being continued from a previous conversation",
        "Primary Request and Intent",
        "Pending Tasks",
        "Archived Session Summary",
    ):
        assert marker in MARKERS


@pytest.mark.parametrize("path", searched_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_client_marker(path: Path) -> None:
    """The module names no client's record types, result texts or summary headings."""
    text = path.read_text(encoding="utf-8")
    found = sorted(marker for marker, pattern in PATTERNS if pattern.search(text))
    assert found == [], f"{path.relative_to(ROOT)} knows {found}"


def test_the_search_finds_a_marker() -> None:
    """The search itself finds a marker written in code, and only as a whole identifier."""
    patterns = dict(PATTERNS)
    assert patterns["compact_boundary"].search('if rtype == "compact_boundary":')
    assert not patterns["compact_boundary"].search("microcompact_boundary_x")
    assert patterns["User rejected tool use"].search("# User rejected tool use: a failure")
