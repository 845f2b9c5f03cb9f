"""Compaction summaries in the fold: the items a native checkpoint's sections become.

The summary is a minimal text shaped like the one MyCodeAgent writes, with this test's own
content; the clients' summaries are read by their adapters (tests/formats/test_summaries.py).
"""

from __future__ import annotations

from typing import Any

from session_memory.core.summary import CompactionSummary, summary_payload
from tests.deriver.test_rules import derive, event, texts, user

NATIVE = """## Archived Session Summary
*(Contains context from step 1 to step 9)*

### Objectives & Status
* **Original Goal**: Rename load() to read_config() everywhere and keep the tests green.

### Completed Milestones (The "Done" Pile)
* [✓] Renamed load() in config/io.py

### Key Insights & Decisions
* **Decisions**: kept a deprecated load() alias for one release
* **Learnings**: Edit needs the exact old text; the shell tool denies git reset

### File System State (Snapshot)
* `config/io.py`: read_config() defined
"""


SECTIONS = CompactionSummary(
    "Ship the CSV export",
    ("Add a test for the empty report",),
    ("the 404 came from a missing blueprint",),
    ("stream rows with a generator",),
    ("Writing tests/test_export.py",),
    ("also keep the JSON export working",),
    ("added the export route",),
)


def checkpoint(summary: str, **fields: Any) -> dict[str, Any]:
    return event("checkpoint", checkpoint_id="cp-1", summary=summary, **fields)


class TestNativeCheckpoint:
    def test_native_checkpoint_line_carries_the_original_goal(self) -> None:
        """The checkpoint's key decision names it and quotes the summary's original goal."""
        memory = derive(user("rename load"), checkpoint(NATIVE))
        (line,) = [t for t in texts(memory.key_decisions) if t.startswith("checkpoint")]
        assert line.startswith("checkpoint `cp-1`: \u201cRename load() to read_config()")

    def test_compaction_transition_adds_its_message_count(self) -> None:
        """context_compacted naming the checkpoint adds its count to the checkpoint's line."""
        compacted = event(
            "state_transition",
            reason="context_compacted",
            details={"checkpoint_id": "cp-1", "messages_compacted": 14},
        )
        memory = derive(user("rename load"), checkpoint(NATIVE), compacted)
        lines = [t for t in texts(memory.key_decisions) if "compacted" in t]
        assert lines == [
            "checkpoint `cp-1` (14 messages compacted): "
            "\u201cRename load() to read_config() everywhere and keep the tests green.\u201d"
        ]


class TestStatedSections:
    def test_each_section_becomes_its_item(self) -> None:
        """The stated sections become quoted items of their kinds, whatever the text says."""
        stated = checkpoint("Handoff.", summary_sections=summary_payload(SECTIONS))
        memory = derive(user("export"), stated)
        assert "summary: \u201cAdd a test for the empty report\u201d" in texts(memory.todo_items)
        assert "\u201cWriting tests/test_export.py\u201d" in texts(memory.todo_items)
        assert any("blueprint" in t for t in texts(memory.failed_attempts))
        assert any("generator" in t for t in texts(memory.key_decisions))
        assert any("export route" in t for t in texts(memory.completed_work))
        assert texts(memory.earlier_goals) == [
            "\u201calso keep the JSON export working\u201d (summary)"
        ]

    def test_a_summary_error_it_says_was_fixed_is_left_out(self) -> None:
        """The summary's errors come with their fixes: "…: fixed by …", or "Fix: …" below
        it, is past, nothing is open and the work went on from it, as is one that needed no
        change; an error it lists without a fix ("CURRENT: …") stays as the summary put it."""
        errors = (
            "TypeError in export: fixed by passing the encoding",
            "CURRENT: lint fails",
            # Its fix as a line of its own, or none needed: nothing open either.
            "**Syntax error in main.go**: Missing closing brace\n  - Fix: Added the brace",
            "User feedback: migrations run in staging too. This confirmed the approach was "
            "correct. No changes needed.",
        )
        listed = CompactionSummary("", (), errors, (), (), (), ())
        memory = derive(
            user("export"), checkpoint("Handoff.", summary_sections=summary_payload(listed))
        )
        assert [(f.status, f.text) for f in memory.failed_attempts] == [
            ("lesson", "summary: \u201cCURRENT: lint fails\u201d"),
        ]

    def test_where_work_stood_at_the_compaction_goes_at_the_next_request(self) -> None:
        """ "Writing tests/test_export.py" says where work resumes after the compaction; once
        the user asks for something new, it is past. The pending tasks stay."""
        stated = checkpoint("Handoff.", summary_sections=summary_payload(SECTIONS))
        memory = derive(user("export"), stated, user("now add a CSV header option"))
        assert texts(memory.todo_items) == ["summary: \u201cAdd a test for the empty report\u201d"]

    def test_a_message_the_memory_keeps_the_head_of_is_not_repeated(self) -> None:
        """A long earlier request is kept as its head; the summary's full copy of it is the
        same message, not a new one."""
        request = "Address these findings: H1, H2, H3 and M2. " + "Details follow. " * 20
        listed = CompactionSummary("", (), (), (), (), (request,), ())
        stated = checkpoint("Handoff.", summary_sections=summary_payload(listed))
        memory = derive(user(request), user("now open a PR"), stated)
        assert len(memory.earlier_goals) == 1
        assert "(summary)" not in memory.earlier_goals[0].text

    def test_a_summarys_first_line_of_a_request_kept_is_not_repeated(self) -> None:
        """The summary's copy of a request may be its first line only, in plain text where
        the memory shows the line break as "⏎" and a heading's "#" full-width: the same
        message."""
        request = "Implement the following plan:\n# Refactoring R5 + R6\n## Context\nR1-R4 done."
        listed = CompactionSummary(
            "", (), (), (), (), ("Implement the following plan: # Refactoring R5 + R6",), ()
        )
        stated = checkpoint("Handoff.", summary_sections=summary_payload(listed))
        memory = derive(user(request), user("now open a PR"), stated)
        assert not any("(summary)" in t for t in texts(memory.earlier_goals))

    def test_the_checkpoint_line_quotes_the_stated_request(self) -> None:
        """The checkpoint's line quotes the stated request, not the text's first line."""
        stated = checkpoint("Handoff.", summary_sections=summary_payload(SECTIONS))
        memory = derive(user("export"), stated)
        (line,) = [t for t in texts(memory.key_decisions) if t.startswith("checkpoint")]
        assert line == "checkpoint `cp-1`: \u201cShip the CSV export\u201d"
