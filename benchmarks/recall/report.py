"""The recall report: tables (Markdown), what was missed, and the closing summary lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.recall.bench import BUDGETS, EXPLAIN_BUDGET, MemoryScore, TranscriptScore
from benchmarks.recall.corpus import DEFAULT_GROUP, Fact
from benchmarks.recall.scoring import KINDS

__all__ = ["Totals", "markdown", "misses", "summary_lines", "totals"]

COMMAND = "python -m benchmarks.recall"
_TARGETS: dict[str, dict[int, float]] = {
    "corpus": {1200: 0.95, 600: 0.90},
    "corpus3": {1200: 0.85, 600: 0.75},
}


@dataclass(frozen=True)
class Totals:
    """Facts found, and forbidden lines seen, over a group of transcripts."""

    facts: int
    found: dict[int, int]
    """Per budget."""
    forbidden: int = 0
    seen: dict[int, int] | None = None
    """Per budget: how many forbidden lines appear."""


def totals(scores: Sequence[TranscriptScore], group: str = DEFAULT_GROUP) -> Totals:
    """The facts and the hits per budget over one group, and the forbidden lines seen."""
    chosen = [s for s in scores if s.transcript.group == group]
    return Totals(
        facts=sum(len(s.transcript.facts) for s in chosen),
        found={b: sum(s.by_budget[b].hits for s in chosen) for b in BUDGETS},
        forbidden=sum(len(s.transcript.forbidden) for s in chosen),
        seen={b: sum(s.by_budget[b].forbidden_seen for s in chosen) for b in BUDGETS},
    )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _groups(scores: Sequence[TranscriptScore]) -> list[str]:
    seen = dict.fromkeys(s.transcript.group for s in scores)
    return sorted(seen, key=lambda g: (g != DEFAULT_GROUP, g))


def _where(fact: Fact, score: MemoryScore, index: int) -> str:
    places = score.elsewhere[index]
    return f"only in {', '.join(places)}" if places else "not in the memory"


def misses(score: TranscriptScore) -> list[str]:
    """One line per fact missed at some budget: kind, substring, where it was instead."""
    lines = []
    facts = score.transcript.facts
    for i, fact in enumerate(facts):
        missed = [b for b in BUDGETS if not score.by_budget[b].found[i]]
        if not missed:
            continue
        budgets = "/".join(str(b) for b in missed)
        where = _where(fact, score.by_budget[missed[0]], i)
        line = f"- missed at {budgets}: {fact.kind} “{fact.must_contain}” ({where})"
        if score.explained is not None:
            big = score.explained
            state = "found" if big.found[i] else _where(fact, big, i)
            line += f"; with no budget limit: {state}"
        lines.append(line)
    for i, forbidden in enumerate(score.transcript.forbidden):
        seen = [b for b in BUDGETS if score.by_budget[b].appeared[i]]
        if seen:
            budgets = "/".join(str(b) for b in seen)
            lines.append(
                f"- appears at {budgets}: “{forbidden.must_not_contain}” in {forbidden.section}"
                + (f" ({forbidden.why})" if forbidden.why else "")
            )
    return lines


def _recall_table(scores: Sequence[TranscriptScore], group: str) -> list[str]:
    cols = " | ".join(f"found at {b} | tokens at {b}" for b in BUDGETS)
    seen_cols = " | ".join(f"must not appear, seen at {b}" for b in BUDGETS)
    lines = [
        f"| transcript | format | facts | {cols} | {seen_cols} |",
        "|---|---|---:|" + "---:|---:|" * len(BUDGETS) + "---:|" * len(BUDGETS),
    ]
    for s in scores:
        if s.transcript.group != group:
            continue
        n = len(s.transcript.facts)
        k = len(s.transcript.forbidden)
        cells = " | ".join(
            f"{s.by_budget[b].hits}/{n} | {s.by_budget[b].tokens:,}" for b in BUDGETS
        )
        seen = " | ".join(f"{s.by_budget[b].forbidden_seen}/{k}" for b in BUDGETS)
        lines.append(f"| `{s.transcript.file}` | {s.transcript.format} | {n} | {cells} | {seen} |")
    t = totals(scores, group)
    cells = " | ".join(
        f"**{t.found[b]}/{t.facts} ({_pct(t.found[b], t.facts)})** |" for b in BUDGETS
    )
    seen_total = t.seen or {}
    seen = " | ".join(f"**{seen_total.get(b, 0)}/{t.forbidden}**" for b in BUDGETS)
    lines.append(f"| **all** | | **{t.facts}** | {cells} {seen} |")
    return lines


def _kind_table(scores: Sequence[TranscriptScore], group: str) -> list[str]:
    cols = " | ".join(f"found at {b}" for b in BUDGETS)
    lines = [f"| kind | facts | {cols} |", "|---|---:|" + "---:|" * len(BUDGETS)]
    for kind in KINDS:
        n = 0
        hits = dict.fromkeys(BUDGETS, 0)
        for s in scores:
            if s.transcript.group != group:
                continue
            for i, fact in enumerate(s.transcript.facts):
                if fact.kind == kind:
                    n += 1
                    for b in BUDGETS:
                        hits[b] += s.by_budget[b].found[i]
        if n:
            lines.append(
                f"| {kind} | {n} | " + " | ".join(f"{hits[b]}/{n}" for b in BUDGETS) + " |"
            )
    return lines


def _compaction_rows(scores: Sequence[TranscriptScore]) -> list[TranscriptScore]:
    return [s for s in scores if s.compaction is not None]


def _compaction_table(scores: Sequence[TranscriptScore]) -> list[str]:
    ours = " | ".join(f"ours at {b} | tokens" for b in BUDGETS)
    lines = [
        f"| compaction point | facts | {ours} | Claude Code's summary | tokens |",
        "|---|---:|" + "---:|---:|" * (len(BUDGETS) + 1),
    ]
    rows = _compaction_rows(scores)
    for s in rows:
        c = s.compaction
        assert c is not None
        n = len(s.transcript.facts)
        cells = " | ".join(
            f"{s.by_budget[b].hits}/{n} | {s.by_budget[b].tokens:,}" for b in BUDGETS
        )
        name = f"`{c.cut.whole}` before line {c.cut.lines + 1}"
        lines.append(f"| {name} | {n} | {cells} | {c.hits}/{n} | {c.summary_tokens:,} |")
    n = sum(len(s.transcript.facts) for s in rows)
    cells = " | ".join(
        f"**{sum(s.by_budget[b].hits for s in rows)}/{n}** | "
        f"**{sum(s.by_budget[b].tokens for s in rows):,}**"
        for b in BUDGETS
    )
    llm = sum(s.compaction.hits for s in rows if s.compaction)
    llm_tokens = sum(s.compaction.summary_tokens for s in rows if s.compaction)
    lines.append(f"| **all** | **{n}** | {cells} | **{llm}/{n}** | **{llm_tokens:,}** |")
    return lines


def markdown(scores: Sequence[TranscriptScore]) -> str:
    """The whole report as Markdown (deterministic: no clock, no machine facts)."""
    out = [
        "# Recall of must-know facts",
        "",
        f"`{COMMAND}`: every transcript of `benchmarks/recall/corpus/` (sessions of the "
        "repositories the rules were developed on) and `benchmarks/recall/corpus3/` (sessions "
        "of other repositories, facts written before the tool was run on them) derived at "
        f"budgets {' and '.join(str(b) for b in BUDGETS)}; a fact counts when its substring "
        "(NFKC, whitespace collapsed) is in a line of the section where an agent would look "
        "for its kind, or of the section that quotes where the session stands. A line that "
        "must not appear counts when its text is in a line of the sections named. At each "
        "compaction point, Claude Code's own summary of the same prefix is scored on the same "
        "facts anywhere in its text; tokens are cl100k_base.",
        "",
    ]
    for group in _groups(scores):
        out += [f"## Recall: {group}", "", *_recall_table(scores, group), ""]
        out += [*_kind_table(scores, group), ""]
    if _compaction_rows(scores):
        out += ["## Compaction points: our memory and Claude Code's summary", ""]
        out += [*_compaction_table(scores), ""]
    out += ["## Missed facts, and lines that must not appear but do", ""]
    for s in scores:
        missed = misses(s)
        if missed:
            out += [f"### `{s.transcript.file}`", "", *missed, ""]
    out += ["## Summary", "", *(f"- {line}" for line in summary_lines(scores)), ""]
    return "\n".join(out)


def summary_lines(scores: Sequence[TranscriptScore]) -> list[str]:
    """The closing figures: recall per budget (per group) and the compaction comparison."""
    lines = []
    for group in _groups(scores):
        t = totals(scores, group)
        label = f" ({group})"
        for b in BUDGETS:
            target = _TARGETS.get(group, {}).get(b)
            goal = f" (target {target:.0%})" if target else ""
            lines.append(
                f"recall at budget {b}{label}: {t.found[b]}/{t.facts} facts "
                f"({_pct(t.found[b], t.facts)}){goal}"
            )
        if t.forbidden:
            seen = t.seen or {}
            lines.append(
                f"lines that must not appear{label}: "
                + ", ".join(f"{seen.get(b, 0)}/{t.forbidden} seen at {b}" for b in BUDGETS)
                + " (target 0)"
            )
    rows = _compaction_rows(scores)
    if rows:
        n = sum(len(s.transcript.facts) for s in rows)
        b = BUDGETS[0]
        ours = sum(s.by_budget[b].hits for s in rows)
        ours_tokens = sum(s.by_budget[b].tokens for s in rows)
        llm = sum(s.compaction.hits for s in rows if s.compaction)
        llm_tokens = sum(s.compaction.summary_tokens for s in rows if s.compaction)
        lines.append(
            f"compaction points ({len(rows)}): ours at {b} {ours}/{n} facts in "
            f"{ours_tokens:,} tokens; Claude Code's summary {llm}/{n} facts in "
            f"{llm_tokens:,} tokens"
        )
    return lines


def explain_note() -> str:
    """What the ``with no budget limit`` remarks mean."""
    return (
        f"(“with no budget limit” is the memory derived at budget {EXPLAIN_BUDGET:,}: "
        "found there means the rules derive the fact and the budget evicted it)"
    )
