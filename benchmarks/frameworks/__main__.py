"""``python -m benchmarks.frameworks [--out DIR] [NAME...]``: measure, write ``frameworks.md``.

NAME is one of pydantic-ai, openai-agents, langchain (all by default). Needs the extras of
the frameworks (``make bench`` installs them).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from benchmarks.frameworks import bench, report
from benchmarks.machine import machine_facts

RESULTS = Path(__file__).resolve().parent.parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.frameworks")
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(bench.RUNS))
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in bench.RUNS]
    if unknown:
        parser.error(f"unknown framework {unknown[0]!r}; choose from {', '.join(bench.RUNS)}")
    # The Agents SDK would export traces to the OpenAI platform; nothing here leaves the machine.
    os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
    command = "python -m benchmarks.frameworks " + " ".join(sys.argv[1:] if argv is None else argv)
    facts = machine_facts(command.strip())
    for name in ("pydantic-ai-slim", "openai-agents", "langchain", "langgraph"):
        facts[name] = report.version(name)
    results = bench.run_all(args.names or tuple(bench.RUNS))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "frameworks.md"
    path.write_text(report.markdown(results, facts), encoding="utf-8")
    print(report.overhead_table(results))
    print(report.facts_table(results))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
