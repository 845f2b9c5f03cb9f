"""docs/rules.md documents every rule the deriver applies."""

from __future__ import annotations

import re
from pathlib import Path

from deriver import SessionMemoryDeriver
from deriver.rules import RULES
from deriver.store import EVICTION_TIERS
from session_memory.formats import read_transcript
from session_memory.formats.reader import read_records

DOC = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
SAMPLE = Path(__file__).parents[2] / "examples" / "sample_transcript.jsonl"


class TestRulesDoc:
    def test_every_rule_has_a_row(self) -> None:
        """Each rule in the code has a table row naming its kind, section and tier."""
        rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", DOC, re.M)}
        for rule in RULES:
            assert rule.kind in rows, f"rule {rule.kind} is not documented"
            assert rule.section in rows[rule.kind] and rule.tier in rows[rule.kind]
        assert set(rows) == {r.kind for r in RULES}

    def test_every_eviction_tier_is_listed_in_order(self) -> None:
        """The eviction order in the doc is the order in the code."""
        listed = re.findall(r"^\d+\. `(\w+)`$", DOC, re.M)
        assert listed == list(EVICTION_TIERS)

    def test_items_of_the_sample_come_from_documented_rules(self) -> None:
        """Every item kind the deriver produces on the sample is a documented rule."""
        memory = SessionMemoryDeriver.rebuild(read_records(SAMPLE), budget_tokens=20000).memory
        kinds = {
            item.kind
            for section in (memory.earlier_goals, memory.todo_items, memory.completed_work,
                            memory.key_decisions, memory.failed_attempts,
                            memory.verification_status)
            for item in section
        }  # fmt: skip
        assert kinds
        assert kinds <= {r.kind for r in RULES}


class TestRulesTable:
    def test_tiers_and_sections_are_the_code_s(self) -> None:
        """Every item the deriver makes sits in the section and tier its RULES row names."""
        rules = {r.kind: r for r in RULES}
        paths = [SAMPLE, *sorted((SAMPLE.parents[1] / "tests" / "fixtures").rglob("*.jsonl"))]
        seen: set[tuple[str, str, str]] = set()
        for path in paths:
            deriver = SessionMemoryDeriver.rebuild(read_transcript(path), budget_tokens=20000)
            store = deriver._store
            for items in store.sections.values():
                for item in items.values():
                    seen.add((item.kind, item.section, EVICTION_TIERS[item.tier]))
        assert seen
        for kind, section, tier in seen:
            rule = rules[kind]
            assert section in rule.section.split(", "), (kind, section)
            assert tier in re.split(", then | or ", rule.tier), (kind, tier)
