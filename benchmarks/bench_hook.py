"""Benchmark ``session-memory hook``: a call when the state is current, and a cold call.

Plain script::

    .venv/bin/python benchmarks/bench_hook.py [--rounds N] [--mb 3] [--quick]

Every call is a real ``session-memory hook`` process fed a SessionStart ``compact`` event on
standard input, as Claude Code runs it, on a generated Claude Code transcript of about
``--mb`` megabytes (records shaped like 2.1.3xx ones: metadata on every record, tool calls and
results of a realistic size). *Current*: the state already covers the whole transcript (a
previous call, or ``watch``, brought it up to date). *Cold*: a fresh state directory, so the
whole transcript is derived. The Python start-up share is measured with the same
interpreter running ``pass`` and importing the CLI. Figures, not pass/fail: the targets are
printed next to them. Results go to ``benchmarks/results/hook.json`` (with ``--quick``, to
``benchmarks/results/quick/``, beside the rest of a quick run).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "hook.json"
SCRIPT = Path(sys.executable).with_name("session-memory")
TARGET_CURRENT_MS = 60.0
TARGET_COLD_MS = 500.0


def write_transcript(path: Path, megabytes: float) -> int:
    """A Claude Code session file of about ``megabytes`` MB; the number of records."""
    session = "bench-3f2a"
    meta = {
        "sessionId": session,
        "cwd": "/home/dev/projects/orders-api",
        "version": "2.1.328",
        "gitBranch": "main",
        "userType": "external",
        "isSidechain": False,
    }
    records = 0
    step = 0
    target = int(megabytes * 1_000_000)
    with path.open("wb") as f:

        def put(record: dict[str, Any]) -> None:
            nonlocal records
            records += 1
            base = {**meta, "uuid": f"u-{records}", "parentUuid": f"u-{records - 1}"}
            base["timestamp"] = f"2026-12-01T10:{records // 60 % 60:02d}:{records % 60:02d}Z"
            f.write(orjson.dumps({**base, **record}) + b"\n")

        put({"type": "user", "message": {"role": "user", "content": "Port the orders API to v2"}})
        while f.tell() < target:
            step += 1
            call = f"toolu_{step:06d}"
            name, args, result = _tool(step)
            put(
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{step}",
                        "role": "assistant",
                        "model": "claude-opus-5-5",
                        "content": [{"type": "tool_use", "id": call, "name": name, "input": args}],
                        "usage": {"input_tokens": 1200 + step, "output_tokens": 80},
                    },
                }
            )
            put(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": call, "content": result}
                        ],
                    },
                    "toolUseResult": {"stdout": result, "stderr": "", "interrupted": False},
                }
            )
            if step % 50 == 0:
                put({"type": "attachment", "attachment": {"type": "file", "content": "x" * 400}})
    return records


def _tool(step: int) -> tuple[str, dict[str, Any], str]:
    kind = step % 4
    path = f"/home/dev/projects/orders-api/src/orders/module_{step % 97:02d}.py"
    if kind == 0:
        return "Read", {"file_path": path}, "\n".join(f"{i}\tline {i} of code" for i in range(40))
    if kind == 1:
        return "Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "updated"
    if kind == 2:
        out = "." * 60 + f"\n{100 + step % 7} passed in 1.{step % 9}s"
        return "Bash", {"command": "pytest -q tests/"}, out
    return "Grep", {"pattern": f"def handler_{step}"}, f"{path}:12:def handler_{step}():"


def _run(argv: list[str], stdin: bytes = b"") -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def _p50(values: list[float]) -> float:
    return statistics.median(values)


def _in_process(
    event: bytes, tmp: Path, warm_state: Path, rounds: int, cold_rounds: int
) -> tuple[list[float], list[float]]:
    """The hook's own work, without interpreter start-up and imports (all imported first)."""
    from session_memory.apps.hook import HookConfig, run_hook
    from session_memory.core.tokens import counter

    counter().count("warm the tokenizer")  # a process derives with it loaded once

    def timed(state: Path) -> float:
        started = time.perf_counter()
        run_hook(event, HookConfig(memory_dir=state))
        return (time.perf_counter() - started) * 1000

    current = [timed(warm_state) for _ in range(rounds)]
    cold = [timed(tmp / f"in-process-cold-{i}") for i in range(cold_rounds)]
    return current, cold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--cold-rounds", type=int, default=7)
    parser.add_argument("--mb", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true", help="5 rounds, 3 cold, 1 MB")
    args = parser.parse_args()
    results_path = RESULTS
    if args.quick:
        args.rounds, args.cold_rounds, args.mb = 5, 3, 1.0
        results_path = RESULTS.parent / "quick" / RESULTS.name
    tmp = Path(tempfile.mkdtemp(prefix="bench-hook-"))
    try:
        transcript = tmp / "projects" / "-home-dev-projects-orders-api" / "bench-3f2a.jsonl"
        transcript.parent.mkdir(parents=True)
        records = write_transcript(transcript, args.mb)
        size = transcript.stat().st_size
        event = orjson.dumps(
            {
                "session_id": "bench-3f2a",
                "transcript_path": str(transcript),
                "cwd": "/home/dev/projects/orders-api",
                "hook_event_name": "SessionStart",
                "source": "compact",
            }
        )
        python = [sys.executable, "-c", "pass"]
        imports = [sys.executable, "-c", "import session_memory.apps.cli, session_memory.apps.hook"]
        startup = [_run(python) for _ in range(args.rounds)]
        imported = [_run(imports) for _ in range(args.rounds)]
        cold = []
        for i in range(args.cold_rounds):
            state = tmp / f"cold-{i}"
            cold.append(_run([str(SCRIPT), "hook", "--state-dir", str(state)], event))
        warm_state = tmp / "warm"
        _run([str(SCRIPT), "hook", "--state-dir", str(warm_state)], event)
        current = [
            _run([str(SCRIPT), "hook", "--state-dir", str(warm_state)], event)
            for _ in range(args.rounds)
        ]
        out = subprocess.run(
            [str(SCRIPT), "hook", "--state-dir", str(warm_state)],
            input=event,
            capture_output=True,
            check=True,
        ).stdout
        injected = len(orjson.loads(out)["hookSpecificOutput"]["additionalContext"])
        work_current, work_cold = _in_process(event, tmp, warm_state, args.rounds, args.cold_rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
        "transcript": {"bytes": size, "records": records},
        "injected_chars": injected,
        "rounds": args.rounds,
        "cold_rounds": args.cold_rounds,
        "p50_ms": {
            "python_startup": round(_p50(startup), 1),
            "python_startup_and_imports": round(_p50(imported), 1),
            "hook_current": round(_p50(current), 1),
            "hook_cold": round(_p50(cold), 1),
            "in_process_current": round(_p50(work_current), 2),
            "in_process_cold": round(_p50(work_cold), 1),
        },
        "min_ms": {
            "python_startup": round(min(startup), 1),
            "python_startup_and_imports": round(min(imported), 1),
            "hook_current": round(min(current), 1),
            "hook_cold": round(min(cold), 1),
        },
        "targets_ms": {"hook_current": TARGET_CURRENT_MS, "hook_cold": TARGET_COLD_MS},
    }
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2) + b"\n")
    p, m = results["p50_ms"], results["min_ms"]
    print(f"transcript: {size / 1e6:.1f} MB, {records} records; injected {injected} characters")
    print("                                      p50        min")
    for label, key, target in (
        ("python start-up (pass)", "python_startup", ""),
        ("python start-up + imports", "python_startup_and_imports", ""),
        ("hook process, state current", "hook_current", "  (target ≤ 60)"),
        ("hook process, cold (fresh state)", "hook_cold", "  (target ≤ 500)"),
    ):
        print(f"{label:34s} {p[key]:7.1f} ms {m[key]:7.1f} ms{target}")
    print(f"{'hook work in-process, current':34s} {p['in_process_current']:7.2f} ms")
    print(f"{'hook work in-process, cold':34s} {p['in_process_cold']:7.1f} ms")
    share = p["python_startup_and_imports"] / p["hook_current"] * 100
    print(f"start-up and imports are {share:.0f}% of a current call")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; wrote {results_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
