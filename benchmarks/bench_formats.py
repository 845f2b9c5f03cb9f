"""Cost per megabyte of reading and deriving each format, and the derive against the raw limit.

Plain script: ``python benchmarks/bench_formats.py [--mb 8] [--repeat 3]``.

It builds one large file per format by repeating real recordings with rewritten ids (so the
copies are distinct calls, messages and sessions-worth of events), and a native file of
similar size from ``examples/sample_transcript.jsonl`` (or a synthetic one when it is
missing). It then times the raw limit (each line read and given to ``orjson.loads``,
nothing else), ``read_transcript`` alone (what ``derive``, ``watch`` and the hook read
with) and ``read_transcript`` + the deriver's ``apply_all``, and prints milliseconds per
MB, the ratio to the native path and the derive rate as a share of the raw limit's on the
same file (the two run back to back in each round; the median of the rounds' ratios). The
targets: at most 2x native per MB; a derive at 30% of the raw limit or more for Claude Code
and Codex (40% for native, measured on the generated file by ``make bench``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import raw_limit  # noqa: E402
from session_memory.formats import read_transcript  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
CLAUDE_SOURCES = [
    "claude_code/cc-1.0.108_todowrite_inline-sidechain_5c0375b4.jsonl",
    "claude_code/cc-2.1.4_interleaved-summary-records_9eda1058.jsonl",
    "claude_code/cc-2.1.38_rejected-tools_interrupt_short.jsonl",
    "claude_code/cc-2.1.38_task-plan-mode_subagent-parent.jsonl",
    "claude_code/cc-2.1.39_auto-compaction_EXCERPT_4d5611e5_L741-773.jsonl",
    "claude_code/cc-2.1.39_manual-compact_EXCERPT_ae4a77f8_L1472-1499.jsonl",
]
CODEX_SOURCES = [
    "codex/codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl",
    "codex/codex-0.125.0-cli_update-plan_apply-patch_EXCERPT_019e1625_L228-386.jsonl",
    "codex/codex-0.104.0a1-desktop_mcp-tools_REDACTED_019c8bfe.jsonl",
    "codex/codex-0.104.0a1-desktop_compaction_REDACTED_EXCERPT_019c8a59_L1778-1800.jsonl",
    "codex/codex-0.104.0a1-desktop_abandoned-call_resume_REDACTED_EXCERPT_019c8a53_L770-837.jsonl",
]
NATIVE_SOURCE = ROOT / "examples" / "sample_transcript.jsonl"

# Ids to make unique per copy: uuids, Anthropic message/tool ids, Codex call ids, native ids.
# A prefixed id is a whole JSON string value: "function_call_output" is a record type and
# "call_id" a key, not ids (rewriting them made Codex tool calls and outputs unreadable).
_IDS = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb'|(?<=")(?:toolu|msg|call|ws|req)_[A-Za-z0-9_]+(?="(?!\s*:))'
    rb'|(?<="event_id":")[^"]+'
)


def build(sources: list[bytes], target_bytes: int, path: Path) -> int:
    """Write copies of ``sources`` (ids suffixed per copy) until ``target_bytes``."""
    written = 0
    copy = 0
    with path.open("wb") as out:
        while written < target_bytes:
            suffix = b"-c%d" % copy
            for data in sources:
                chunk = _IDS.sub(lambda m, s=suffix: m.group(0) + s, data)
                out.write(chunk if chunk.endswith(b"\n") else chunk + b"\n")
                written += len(chunk) + 1
            copy += 1
    return written


def native_source() -> bytes:
    if NATIVE_SOURCE.exists():
        return NATIVE_SOURCE.read_bytes()
    lines = []
    for i in range(2000):
        lines.append(
            b'{"event_id":"e%d","event_type":"tool_lifecycle","session_id":"s","run_id":"r%d",'
            b'"step":%d,"payload":{"tool_name":"Bash","tool_call_id":"c%d","status":"completed",'
            b'"args":{"command":"pytest -q"},"result":"3 passed"}}' % (i, i // 20, i, i)
        )
    return b"\n".join(lines) + b"\n"


def timed(fn: Callable[[], int], repeat: int) -> tuple[float, int]:
    """Best-of-``repeat`` seconds (least disturbed by the machine), and fn's count."""
    times = []
    count = 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = fn()
        times.append(time.perf_counter() - start)
    return min(times), count


def paired(
    first: Callable[[], int], second: Callable[[], int], repeat: int
) -> tuple[float, float, float]:
    """Best-of-``repeat`` seconds of two passes run back to back in each round, and the
    median over the rounds of the first's time over the second's: a ratio of passes a few
    seconds apart, which the machine's drifting speed moves far less than best-ofs."""
    firsts, seconds, ratios = [], [], []
    for _ in range(repeat):
        a, _ = timed(first, 1)
        b, _ = timed(second, 1)
        firsts.append(a)
        seconds.append(b)
        ratios.append(a / b)
    return min(firsts), min(seconds), statistics.median(ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=8.0, help="size of each test file (MB)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    args = parser.parse_args()
    target = int(args.mb * 1024 * 1024)

    from deriver import SessionMemoryDeriver

    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "native": (Path(tmp) / "native.jsonl", [native_source()]),
            "claude-code": (
                Path(tmp) / "claude.jsonl",
                [(FIXTURES / s).read_bytes() for s in CLAUDE_SOURCES],
            ),
            "codex": (
                Path(tmp) / "codex.jsonl",
                [(FIXTURES / s).read_bytes() for s in CODEX_SOURCES],
            ),
        }
        rows = []
        for fmt, (path, sources) in files.items():
            size = build(sources, target, path)
            mb = size / (1024 * 1024)

            def read_only(path: Path = path, fmt: str = fmt) -> int:
                return sum(1 for _ in read_transcript(path, fmt))

            def raw(path: Path = path) -> int:
                return raw_limit(path)

            def derive(path: Path = path, fmt: str = fmt) -> int:
                deriver = SessionMemoryDeriver(budget_tokens=1200)
                deriver.apply_all(read_transcript(path, fmt))
                return int(deriver.memory.event_count)

            read_s, records = timed(read_only, args.repeat)
            raw_s, derive_s, share = paired(raw, derive, args.repeat)
            rows.append((fmt, mb, records, raw_s, read_s, derive_s, share))

    native = rows[0]
    print(f"{'format':12} {'MB':>6} {'records':>8} {'us/record':>10}", end="")
    print(f" {'read ms/MB':>11} {'x native':>9}", end="")
    print(f" {'derive ms/MB':>13} {'x native':>9} {'of raw':>7}")
    for fmt, mb, records, _raw, read_s, derive_s, share in rows:
        read_ms = 1000 * read_s / mb
        ratio = read_ms / (1000 * native[4] / native[1])
        per_record = 1e6 * read_s / max(records, 1)
        line = f"{fmt:12} {mb:6.1f} {records:8d} {per_record:10.1f} {read_ms:11.1f} {ratio:9.2f}"
        derive_ms = 1000 * derive_s / mb
        line += f" {derive_ms:13.1f} {derive_ms / (1000 * native[5] / native[1]):9.2f}"
        print(line + f" {share:7.1%}")
    print(
        f"python {sys.version.split()[0]}, best of {args.repeat}; records = events + skips; "
        "of raw = the raw limit's time over the derive's, run back to back on the same file in "
        "each round (median of the rounds)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
