"""The recall benchmark's scorer: normalisation, sections, kinds, compaction summaries, corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from benchmarks.recall import bench, report
from benchmarks.recall.corpus import (
    CORPORA,
    CORPUS,
    CORPUS3,
    CorpusError,
    find_cut,
    load_expectations,
    verify_checksums,
)
from benchmarks.recall.scoring import (
    CURRENT_GOAL,
    KINDS,
    appears_in_memory,
    compact_summary,
    found_in_memory,
    found_in_text,
    normalise,
    parse_sections,
    sections_containing,
)
from session_memory.core.layout import HEADER, body, goal_block, item_prefix, section_header


def _memory_markdown() -> str:
    """A rendered memory built from the layout's own parts, one line per section kind."""
    return "".join(
        [
            HEADER,
            goal_block(
                "Fix the login bug\nand add a test",
                truncated=False,
                acknowledgements=1,
                last_ack="continue",
            ),
            section_header("earlier_goals"),
            item_prefix(None) + body("“Port the parser”"),
            section_header("todo_items"),
            item_prefix("pending") + body("Write the migration"),
            item_prefix("uncertain", safe_to_replay=False) + body("Bash `sleep 30`"),
            section_header("verification_status"),
            item_prefix("passed") + body("`pytest -q` (12 passed)"),
            item_prefix("failed") + body("`mix test` (“3 failures”)"),
            section_header("failed_attempts"),
            item_prefix("open") + body("Bash `git push` exited 128: “no upstream branch”"),
            section_header("key_decisions"),
            item_prefix("decision") + body("use a table rewrite for SQLite"),
            section_header("completed_work"),
            item_prefix(None) + body("ran `just check`"),
        ]
    )


class TestNormalise:
    def test_nfkc_folds_compatibility_characters(self) -> None:
        """Ligatures, full-width letters and non-breaking spaces read as their plain forms."""
        assert normalise("\ufb01le \uff21\uff22\u00a0c") == "file AB c"

    def test_whitespace_runs_collapse_to_one_space(self) -> None:
        """Newlines, tabs and repeated spaces are one space, and the ends are trimmed."""
        assert normalise("  a\n\tb   c \n") == "a b c"

    def test_matching_normalises_both_sides(self) -> None:
        """A needle with odd spacing matches text with different spacing."""
        assert found_in_text("297 tests,\n  11 failures", "297  tests, 11\u00a0failures")


class TestParseSections:
    def test_every_heading_is_a_section(self) -> None:
        """Each ``## `` heading of the layout becomes a section; the preamble belongs to none."""
        sections = parse_sections(_memory_markdown())
        assert list(sections) == [
            CURRENT_GOAL,
            "Earlier goals",
            "Todo",
            "Verification",
            "Failed attempts",
            "Key decisions",
            "Completed work",
        ]
        assert not any("Session memory" in line for lines in sections.values() for line in lines)

    def test_current_goal_is_its_quoted_lines_joined(self) -> None:
        """The goal is one entry without quote marks; the acknowledgement line is not in it."""
        sections = parse_sections(_memory_markdown())
        assert sections[CURRENT_GOAL] == ("Fix the login bug\nand add a test",)

    def test_a_goal_fact_may_span_its_lines(self) -> None:
        """A substring across two quoted goal lines is found (whitespace collapsed)."""
        sections = parse_sections(_memory_markdown())
        assert found_in_memory(sections, "goal", "login bug and add")

    def test_item_lines_keep_their_status_tags(self) -> None:
        """Item entries are the rendered lines, bullet and tag included."""
        sections = parse_sections(_memory_markdown())
        assert sections["Verification"][1] == "- FAILED: `mix test` (“3 failures”)"

    def test_empty_markdown_has_no_sections(self) -> None:
        """The empty memory renders as the empty string: nothing is found in it."""
        assert parse_sections("") == {}
        assert not found_in_memory({}, "goal", "anything")


class TestKindPlaces:
    @pytest.mark.parametrize(
        ("kind", "needle"),
        [
            ("goal", "Fix the login bug"),
            ("goal", "Port the parser"),
            ("todo", "Write the migration"),
            ("failure", "no upstream branch"),
            ("failure", "3 failures"),
            ("verification", "12 passed"),
            ("verification", "3 failures"),
            ("decision", "table rewrite"),
            ("uncertain", "sleep 30"),
            ("uncertain", "12 passed"),
        ],
    )
    def test_a_fact_is_found_where_its_kind_belongs(self, kind: str, needle: str) -> None:
        """Each kind is looked for in its own sections (failure: also a FAILED check line)."""
        assert found_in_memory(parse_sections(_memory_markdown()), kind, needle)

    @pytest.mark.parametrize(
        ("kind", "needle"),
        [
            ("verification", "just check"),
            ("todo", "Fix the login bug"),
            ("failure", "12 passed"),
            ("decision", "no upstream branch"),
            ("goal", "Write the migration"),
            ("uncertain", "table rewrite"),
        ],
    )
    def test_a_fact_elsewhere_is_not_found(self, kind: str, needle: str) -> None:
        """Text in another section does not count, nor a passed check for a failure."""
        assert not found_in_memory(parse_sections(_memory_markdown()), kind, needle)

    def test_misfiled_facts_say_where_they_are(self) -> None:
        """sections_containing names the sections that hold the text, for the miss report."""
        sections = parse_sections(_memory_markdown())
        assert sections_containing(sections, "just check") == ["Completed work"]
        assert sections_containing(sections, "nowhere") == []

    @pytest.mark.parametrize("title", ["Where the session stands", "Where we left off",
                                       "The agent's last message"])  # fmt: skip
    def test_a_fact_of_any_kind_counts_where_the_session_stands(self, title: str) -> None:
        """A section whose heading says it quotes where the session stands counts for every
        kind, line by line and across a run of quoted lines."""
        markdown = _memory_markdown() + f"## {title}\n> CI should pass\n> now, I pushed\n"
        sections = parse_sections(markdown)
        for kind in KINDS:
            assert found_in_memory(sections, kind, "CI should pass now")
        assert not found_in_memory(parse_sections(_memory_markdown()), "todo", "CI should")

    def test_a_run_of_quoted_lines_is_one_line_too(self) -> None:
        """Quoted lines in a row are also matched joined, as the goal's are."""
        sections = parse_sections("## Key decisions\n> keep the\n> cache warm\n- other\n")
        assert found_in_memory(sections, "decision", "keep the cache warm")

    def test_an_unknown_kind_is_an_error(self) -> None:
        """A typo in the expectations fails loudly instead of scoring zero."""
        with pytest.raises(ValueError, match="unknown fact kind"):
            found_in_memory({}, "goals", "x")

    def test_the_corpus_uses_known_kinds_only(self) -> None:
        """Every fact of the committed corpus has one of the six kinds."""
        kinds = {f.kind for t in load_expectations() for f in t.facts}
        assert kinds <= set(KINDS)


def _boundary() -> dict[str, Any]:
    return {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}


def _summary(content: object) -> dict[str, Any]:
    return {
        "type": "user",
        "isCompactSummary": True,
        "isVisibleInTranscriptOnly": True,
        "message": {"role": "user", "content": content},
    }


class TestForbidden:
    def test_a_forbidden_text_appears_only_in_the_sections_named(self) -> None:
        """``todo`` looks in Todo, ``completed`` in Completed work, ``any`` everywhere."""
        sections = parse_sections(_memory_markdown())
        assert appears_in_memory(sections, "todo", "migration")
        assert not appears_in_memory(sections, "todo", "just check")
        assert appears_in_memory(sections, "completed", "just check")
        assert appears_in_memory(sections, "any", "just check")
        assert appears_in_memory(sections, "goal", "Port the parser")

    def test_an_unknown_section_is_an_error(self) -> None:
        """A typo in a forbidden line's section fails loudly."""
        with pytest.raises(ValueError, match="unknown section"):
            appears_in_memory({}, "todos", "x")

    def test_the_corpora_name_known_sections_only(self) -> None:
        """Every forbidden line of both corpora names a section the scorer knows."""
        for root in CORPORA:
            for transcript in load_expectations(root):
                for forbidden in transcript.forbidden:
                    appears_in_memory({}, forbidden.section, forbidden.must_not_contain)


class TestCompactSummary:
    def test_string_content(self) -> None:
        """The summary record right after the boundary gives its string content."""
        records = [{"type": "user", "message": {"content": "hi"}}, _boundary(), _summary("S1")]
        assert compact_summary(records) == "S1"

    def test_block_content(self) -> None:
        """List content gives its text blocks joined by newlines."""
        blocks = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
        assert compact_summary([_boundary(), _summary(blocks)]) == "a\nb"

    def test_a_summary_before_the_boundary_is_ignored(self) -> None:
        """Only a summary after a boundary counts."""
        assert compact_summary([_summary("early"), _boundary(), _summary("late")]) == "late"

    def test_the_first_compaction_only(self) -> None:
        """A boundary with no summary before the next boundary gives None, not a later one."""
        assert compact_summary([_boundary(), _boundary(), _summary("second")]) is None
        assert compact_summary([{"type": "user"}]) is None


class TestCorpus:
    def test_the_committed_corpora_match_their_checksums(self) -> None:
        """Every file listed in each corpus's SHA256SUMS is present and unchanged."""
        assert verify_checksums(CORPUS) == 13
        assert verify_checksums(CORPUS3) == 13

    def test_each_corpus_is_a_group_of_its_own(self) -> None:
        """Transcripts take their group from their corpus, so each is reported apart."""
        assert {t.group for t in load_expectations(CORPUS)} == {"corpus"}
        assert {t.group for t in load_expectations(CORPUS3)} == {"corpus3"}

    def test_a_changed_file_is_reported(self, tmp_path: Path) -> None:
        """A file whose digest differs is a CorpusError naming it."""
        (tmp_path / "a.jsonl").write_bytes(b"{}\n")
        (tmp_path / "SHA256SUMS").write_text("0" * 64 + "  a.jsonl\n", encoding="utf-8")
        with pytest.raises(CorpusError, match=r"a\.jsonl"):
            verify_checksums(tmp_path)

    def test_a_cut_is_a_prefix_of_its_whole_session(self, tmp_path: Path) -> None:
        """A cut names its whole file and line count; a cut that is not a prefix is refused."""
        (tmp_path / "whole").mkdir()
        (tmp_path / "whole" / "s1.jsonl").write_bytes(b"1\n2\n3\n")
        (tmp_path / "s1_L1-2_precompact.jsonl").write_bytes(b"1\n2\n")
        (tmp_path / "s1_L1-1_precompact.jsonl").write_bytes(b"9\n")
        cut = find_cut(tmp_path, "s1_L1-2_precompact.jsonl")
        assert cut is not None and (cut.whole, cut.lines) == ("whole/s1.jsonl", 2)
        assert find_cut(tmp_path, "whole/s1.jsonl") is None
        with pytest.raises(CorpusError, match="not the first 1 lines"):
            find_cut(tmp_path, "s1_L1-1_precompact.jsonl")


def _cc(kind: str, uuid: str, text: str, **extra: Any) -> dict[str, Any]:
    record = {
        "type": kind,
        "uuid": uuid,
        "sessionId": "s1",
        "timestamp": "2026-02-11T21:00:00.000Z",
        "message": {"role": kind, "content": text},
    }
    record.update(extra)
    return record


def _jsonl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


class TestEndToEnd:
    def test_a_tiny_corpus_is_scored_and_reported(self, tmp_path: Path) -> None:
        """A Claude Code session and its cut: goal found, summary scored, report deterministic."""
        before = [
            _cc("user", "u1", "Implement the review page"),
            _cc("assistant", "a1", "Decision: keep the page read-only"),
        ]
        after = [
            {**_boundary(), "uuid": "b1", "sessionId": "s1"},
            {**_summary("Pending Tasks: close the review session"), "uuid": "c1"},
        ]
        (tmp_path / "whole").mkdir()
        (tmp_path / "whole" / "s1.jsonl").write_bytes(_jsonl(before + after))
        (tmp_path / "s1_L1-2_precompact.jsonl").write_bytes(_jsonl(before))
        facts = [
            {"kind": "goal", "must_contain": "Implement the review page"},
            {"kind": "todo", "must_contain": "close the review session"},
        ]
        forbidden = [{"section": "goal", "must_not_contain": "review page"}]
        expectations = [
            {
                "file": "s1_L1-2_precompact.jsonl",
                "format": "claude-code",
                "expected": facts,
                "must_not": forbidden,
            }
        ]
        (tmp_path / "expectations.json").write_bytes(orjson.dumps(expectations))
        scores = bench.run(tmp_path)
        [score] = scores
        assert score.detected == "claude-code"
        assert [score.by_budget[b].found for b in bench.BUDGETS] == [(True, False)] * 2
        assert score.compaction is not None and score.compaction.found == (False, True)
        assert score.compaction.summary_tokens > 0
        text = report.markdown(scores)
        assert text == report.markdown(bench.run(tmp_path))
        assert "todo “close the review session” (not in the memory)" in text
        assert [score.by_budget[b].appeared for b in bench.BUDGETS] == [(True,)] * 2
        assert "appears at 1200/600: “review page” in goal" in text
        assert report.summary_lines(scores)[-1].startswith(
            "compaction points (1): ours at 1200 1/2"
        )
