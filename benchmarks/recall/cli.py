"""``python -m benchmarks.recall [--out DIR] [--explain]``: score recall, write ``recall.md``.

Prints, per transcript, the facts it missed and where their text was instead; writes the
tables to ``DIR/recall.md`` (default ``benchmarks/results``); ends with the summary lines.
The output is deterministic; the elapsed time goes to standard error only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.recall import bench, report
from benchmarks.recall.corpus import CORPORA, verify_checksums

__all__ = ["RESULTS", "main", "run_and_write", "write"]

RESULTS = Path(__file__).resolve().parent.parent / "results"


def write(scores: Sequence[bench.TranscriptScore], out: Path) -> Path:
    """Write ``recall.md`` into ``out``; its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "recall.md"
    path.write_text(report.markdown(scores), encoding="utf-8")
    return path


def run_and_write(out: Path, roots: Sequence[Path] = CORPORA) -> list[str]:
    """Check the corpora, score them, write ``out/recall.md``; the summary lines."""
    for root in roots:
        verify_checksums(root)
    scores = bench.run(roots)
    write(scores, out)
    return report.summary_lines(scores)


def _print_transcript(score: bench.TranscriptScore) -> None:
    t = score.transcript
    n = len(t.facts)
    figures = ", ".join(
        f"{score.by_budget[b].hits}/{n} at {b} ({score.by_budget[b].tokens} tokens)"
        for b in bench.BUDGETS
    )
    print(f"{t.group}/{t.file} ({t.format}): {figures}")
    if score.detected != t.format and t.format != "auto":
        print(f"  warning: auto-detection reads this file as {score.detected}")
    if score.compaction is not None:
        c = score.compaction
        print(f"  Claude Code's summary of this prefix: {c.hits}/{n} ({c.summary_tokens} tokens)")
    for line in report.misses(score):
        print(f"  {line}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.recall", description=__doc__.split("\n")[0] if __doc__ else ""
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        action="append",
        help="a corpus root directory (repeat for several; default: corpus and corpus3)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for recall.md")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also derive with no budget limit and say, per miss, whether the budget evicted it",
    )
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    roots = args.corpus or list(CORPORA)
    for root in roots:
        verify_checksums(root)
    scores = bench.run(roots, explain=args.explain)
    for score in scores:
        _print_transcript(score)
    if args.explain:
        print(report.explain_note())
    path = write(scores, args.out)
    print(f"wrote {path}")
    for line in report.summary_lines(scores):
        print(line)
    print(f"[{time.perf_counter() - t0:.1f} s]", file=sys.stderr)
    return 0
