"""Benchmark start-up: ``--help``, ``derive`` of a one-line transcript, ``hook`` (state current
and cold), side by side with ``python -c pass`` in the same run, against the budgets.

Plain script::

    .venv/bin/python benchmarks/bench_startup.py [--rounds N] [--mb 3] [--quick]
        [--baseline CHECKOUT]

Every figure is a real process of the same interpreter. Wall time and CPU time (user + sys of
the child, from ``wait4``) are both reported, as medians, with the ratio to ``python -c pass``
of the same run: on a loaded machine the wall time mostly measures the queue, the CPU time
and the ratio what the command costs; "start-up" is the share of the CPU time that the bare
interpreter start (``python -c pass``) takes. The share of each part of the imports comes from
``python -X importtime`` (cumulative microseconds of the top-level imports, grouped). The
hook runs on a generated Claude Code transcript of ``--mb`` MB (``bench_hook.py``). Figures,
not pass/fail; the budgets are printed next to them: a hook call whose state is current at
most 60 ms of CPU and at most 4 times ``python -c pass`` of the same run, a cold one on 3 MB
at most 1 s. Results go to ``benchmarks/results/startup.json`` (with ``--quick``, to
``benchmarks/results/quick/``).

``--baseline CHECKOUT`` times another checkout (with its own ``.venv``: ``git worktree add
/tmp/base main`` and ``make .venv/.installed`` there) in the same run, each command of both
checkouts one after the other in every round, and prints the two side by side: on a shared
machine whose speed varies, only figures of the same period compare.

``--shares`` also splits the CPU time of a cold hook call into its parts, in child processes
that run the hook in-process (after the interpreter's start): the imports a fold needs
(service, deriver, viewbuilder, adapters, msgspec, tiktoken's Python side), loading the
tokenizer, the fold of the transcript and the rest (state, outputs, the
hook's own work). The fold is split again by running it twice more with a part taken out
(the deriver's ``apply``, then the adapter's ``feed_line``): reading (splitting lines) is
the fold without the adapter, the adapter (decoding and adapting each line) what the
deriver-less fold adds to that, the deriver what the whole fold adds to the deriver-less
one. Medians of ``--rounds`` runs of each.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_hook import (
    BUDGET_COLD_MS,
    BUDGET_CURRENT_MS,
    BUDGET_CURRENT_VS_PASS,
    compact_event,
    write_transcript,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "startup.json"
PYTHON = sys.executable
CLI = [PYTHON, str(Path(PYTHON).with_name("session-memory"))]
"""The console script, run by the interpreter so ``-X importtime`` can be passed."""
BUDGETS = {
    "hook_current_ms": BUDGET_CURRENT_MS,
    "hook_current_vs_pass": BUDGET_CURRENT_VS_PASS,
    "hook_cold_ms": BUDGET_COLD_MS,
}

# Top-level import -> part it is counted in (anything else: "other").
PARTS = {
    "site": "interpreter (site)",
    "encodings": "interpreter (site)",
    "msgspec": "msgspec",
    "typing_extensions": "msgspec",
    "tiktoken": "tiktoken",
    "tiktoken_ext": "tiktoken",
    "regex": "tiktoken",
    "watchfiles": "watchfiles",
    "anyio": "watchfiles",
    "orjson": "orjson",
    "deriver": "deriver",
    "viewbuilder": "viewbuilder",
    "session_memory": "session_memory",
}


# Children may write bytecode, as an installed package's interpreter does: with
# PYTHONDONTWRITEBYTECODE set, every changed module would be compiled again in every run.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv: list[str], stdin: bytes = b"") -> tuple[float, float, bytes]:
    """Wall ms, CPU ms (user + sys) of one child process, and its stderr."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=CHILD_ENV,
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {err.decode()[-500:]}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, err


def import_parts(argv: list[str], stdin: bytes) -> dict[str, float]:
    """Milliseconds of imports per part, from ``-X importtime``: each module's own time,
    counted in the part of its top-level package (msgspec imported by the event module is
    msgspec, not session_memory)."""
    _, _, err = run([argv[0], "-X", "importtime", *argv[1:]], stdin)
    parts: dict[str, float] = defaultdict(float)
    for line in err.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        if not own.strip().isdigit():
            continue  # the header line
        top = name.strip().split(".")[0]
        if top.startswith("__editable__"):
            top = "site"
        parts[PARTS.get(top, "other (stdlib, ...)")] += int(own) / 1000
    return {k: round(v, 1) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])}


class Tree(NamedTuple):
    """A checkout whose commands are timed: its interpreter, its console script, and the
    state directory its current-state hook calls read."""

    label: str
    python: str
    cli: list[str]
    warm: Path


def tree_at(root: Path, label: str, tmp: Path) -> Tree:
    """The checkout at ``root``, run from its own ``.venv``."""
    python = root / ".venv" / "bin" / "python"
    if not python.is_file():
        raise SystemExit(f"{python} is missing: run `make .venv/.installed` in {root}")
    return Tree(label, str(python), [str(python), str(python.with_name("session-memory"))], tmp)


def commands_of(
    tree: Tree, one_line: Path, event: bytes, fresh: Callable[[], Path]
) -> dict[str, tuple[Callable[[], list[str]], bytes]]:
    """Each timed command of ``tree``: its argument list (made anew for every run: a cold
    call gets a new state directory) and its standard input."""
    cli, warm = tree.cli, str(tree.warm)

    def cold() -> list[str]:
        return [*cli, "hook", "--state-dir", str(fresh())]

    return {
        "python -c pass": (lambda: [tree.python, "-c", "pass"], b""),
        "--help": (lambda: [*cli, "--help"], b""),
        "derive (one line)": (lambda: [*cli, "derive", str(one_line)], b""),
        "hook, state current": (lambda: [*cli, "hook", "--state-dir", warm], event),
        "hook, cold": (cold, event),
    }


# Run by a checkout's own interpreter: argv = event file, state directory, mode. Prints the
# CPU milliseconds of each part as JSON. Mode "no-deriver" or "no-adapter" takes that part out
# of the fold (the memory it gives is then wrong; only the fold's time is used).
_SHARES_CHILD = """
import gc, json, sys, time
T = time.process_time
start = T()
gc.disable()  # as the hook process runs
event_path, state, mode = sys.argv[1:4]
from session_memory.apps import hook
import session_memory.apps.service as service, deriver, viewbuilder, session_memory.formats
import tiktoken
parts = {"imports": T() - start}
def timed(owner, name, part):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        began = T()
        try:
            return inner(*args, **kwargs)
        finally:
            parts[part] = parts.get(part, 0.0) + T() - began
    setattr(owner, name, wrapper)
timed(tiktoken, "get_encoding", "tokenizer")
timed(service.MemoryService, "_fold", "fold")
if mode == "no-deriver":
    deriver.SessionMemoryDeriver.apply = lambda self, event: True
elif mode == "no-adapter":
    from session_memory.formats.base import AdapterBase
    from session_memory.formats.detect import AutoAdapter
    AdapterBase.feed_line = AutoAdapter.feed_line = lambda self, line, offset, end=None: []
with open(event_path, "rb") as f:
    hook.run_hook(f.read(), hook.HookConfig(memory_dir=state))
parts["total"] = T() - start
print(json.dumps({k: v * 1000 for k, v in parts.items()}))
"""
SHARE_PARTS = ("imports", "tokenizer", "reading", "adapter", "deriver", "rest", "total")


def cold_shares(
    trees: list[Tree], event: bytes, rounds: int, fresh: Callable[[], Path]
) -> dict[str, dict[str, float]]:
    """Median CPU milliseconds of each part of a cold hook call, per checkout; every round
    runs each mode of each checkout, so that load changes hit them alike."""
    event_file = fresh().with_suffix(".json")
    event_file.write_bytes(event)
    runs: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    for round_ in range(rounds):
        for tree in trees if round_ % 2 else trees[::-1]:
            for mode in ("full", "no-deriver", "no-adapter"):
                state = fresh()
                state.mkdir(parents=True)
                out = subprocess.run(
                    [tree.python, "-c", _SHARES_CHILD, str(event_file), str(state), mode],
                    capture_output=True,
                    check=True,
                    env=CHILD_ENV,
                    cwd=state,
                ).stdout
                run = orjson.loads(out)
                run["rest"] = run["total"] - run["imports"] - run.get("tokenizer", 0) - run["fold"]
                runs[tree.label, mode].append(run)

    def median(label: str, mode: str, part: str) -> float:
        return statistics.median(run.get(part, 0.0) for run in runs[label, mode])

    shares = {}
    for tree in trees:
        label = tree.label
        fold = median(label, "full", "fold")
        no_deriver = median(label, "no-deriver", "fold")
        no_adapter = median(label, "no-adapter", "fold")
        row = {
            "imports": median(label, "full", "imports"),
            "tokenizer": median(label, "full", "tokenizer"),
            "reading": no_adapter,
            "adapter": no_deriver - no_adapter,
            "deriver": fold - no_deriver,
            "rest": median(label, "full", "rest"),
            "total": median(label, "full", "total"),
        }
        shares[label] = {k: round(v, 1) for k, v in row.items()}
    return shares


def rows_of(
    names: list[str], wall: dict[str, list[float]], cpu: dict[str, list[float]], parts: Any
) -> dict[str, dict[str, Any]]:
    base_wall = statistics.median(wall["python -c pass"])
    base_cpu = statistics.median(cpu["python -c pass"])
    rows = {}
    for name in names:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        rows[name] = {
            "wall_p50_ms": round(w, 1),
            "cpu_p50_ms": round(c, 1),
            "wall_vs_pass": round(w / base_wall, 2),
            "cpu_vs_pass": round(c / base_cpu, 2),
            "python_startup_share": round(base_cpu / c, 2),
            "import_ms": parts[name],
        }
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--mb", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true", help="5 rounds, 1 MB")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="CHECKOUT",
        help="also time another checkout with its own .venv (e.g. a worktree of main), "
        "interleaved with this one, and print both side by side",
    )
    parser.add_argument(
        "--shares",
        action="store_true",
        help="also split a cold hook call's CPU time into imports, tokenizer, reading, "
        "adapter, deriver and the rest",
    )
    args = parser.parse_args()
    rounds, mb = (5, 1.0) if args.quick else (args.rounds, args.mb)
    tmp = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        one_line = tmp / "one.jsonl"
        one_line.write_bytes(
            orjson.dumps(
                {
                    "event_id": "e1",
                    "event_type": "message",
                    "payload": {"role": "user", "content": "Port the orders API to v2"},
                }
            )
            + b"\n"
        )
        transcript = tmp / "projects" / "-home-dev-orders" / "bench-3f2a.jsonl"
        transcript.parent.mkdir(parents=True)
        write_transcript(transcript, mb)
        event = compact_event(transcript)
        trees = [Tree("this", PYTHON, CLI, tmp / "warm")]
        if args.baseline is not None:
            trees.append(tree_at(args.baseline.resolve(), "baseline", tmp / "warm-baseline"))
        states = iter(tmp / f"state-{i}" for i in itertools.count())
        commands = {t.label: commands_of(t, one_line, event, lambda: next(states)) for t in trees}
        for t in trees:
            run([*t.cli, "hook", "--state-dir", str(t.warm)], event)
        names = list(commands["this"])
        wall: dict[str, dict[str, list[float]]] = {t.label: defaultdict(list) for t in trees}
        cpu: dict[str, dict[str, list[float]]] = {t.label: defaultdict(list) for t in trees}
        # Interleaved, so load changes hit every command (and both checkouts) alike; the
        # checkouts take turns at going first. Round 0 warms the page cache and writes
        # bytecode.
        for round_ in range(rounds + 1):
            for name in names:
                for t in trees if round_ % 2 else trees[::-1]:
                    argv, stdin = commands[t.label][name]
                    w, c, _ = run(argv(), stdin)
                    if round_:
                        wall[t.label][name].append(w)
                        cpu[t.label][name].append(c)
        parts = {
            t.label: {
                name: import_parts(argv(), stdin)
                for name, (argv, stdin) in commands[t.label].items()
            }
            for t in trees
        }
        cold_parts = cold_shares(trees, event, rounds, lambda: next(states)) if args.shares else {}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = {t.label: rows_of(names, wall[t.label], cpu[t.label], parts[t.label]) for t in trees}
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "rounds": rounds,
        "transcript_mb": mb,
        "commands": rows["this"],
        "budgets": BUDGETS,
    }
    if args.baseline is not None:
        results["baseline"] = {"checkout": str(args.baseline.resolve()), **rows["baseline"]}
    if cold_parts:
        results["cold_shares_ms"] = cold_parts
    results_path = RESULTS.parent / "quick" / RESULTS.name if args.quick else RESULTS
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"{rounds} rounds, interleaved; hook on a {mb:g} MB Claude Code transcript")
    target = {
        "hook, state current": (
            f"  (budget ≤ {BUDGET_CURRENT_MS:.0f} ms, ≤ {BUDGET_CURRENT_VS_PASS:.0f}x)"
        ),
        "hook, cold": f"  (budget ≤ {BUDGET_COLD_MS:.0f} ms)",
    }
    if args.baseline is None:
        print(
            f"{'':22s} {'wall p50':>9s} {'CPU p50':>9s} {'wall/pass':>9s} {'CPU/pass':>9s}"
            f" {'start-up':>9s}"
        )
        for name, row in rows["this"].items():
            print(
                f"{name:22s} {row['wall_p50_ms']:7.1f}ms {row['cpu_p50_ms']:7.1f}ms "
                f"{row['wall_vs_pass']:8.2f}x {row['cpu_vs_pass']:8.2f}x "
                f"{row['python_startup_share']:8.0%}{target.get(name, '')}"
            )
        print("start-up: the share of the CPU time that python -c pass alone takes")
    else:
        print(f"baseline: {args.baseline.resolve()}")
        print(
            f"{'':22s} {'CPU p50':>9s} {'baseline':>9s} {'ratio':>6s}"
            f" {'wall p50':>9s} {'baseline':>9s}"
        )
        for name, row in rows["this"].items():
            old = rows["baseline"][name]
            print(
                f"{name:22s} {row['cpu_p50_ms']:7.1f}ms {old['cpu_p50_ms']:7.1f}ms "
                f"{row['cpu_p50_ms'] / old['cpu_p50_ms']:5.2f}x "
                f"{row['wall_p50_ms']:7.1f}ms {old['wall_p50_ms']:7.1f}ms{target.get(name, '')}"
            )
    print("imports by part (ms, -X importtime, one run each):")
    for t in trees:
        for name, row in rows[t.label].items():
            shares = ", ".join(f"{k} {v:.0f}" for k, v in row["import_ms"].items())
            label = name if len(trees) == 1 else f"{name} [{t.label}]"
            print(f"  {label:31s} {shares}")
    if cold_parts:
        print("a cold hook call in-process, CPU ms (medians; interpreter start not included):")
        print("  " + " ".join(f"{part:>9s}" for part in ("", *SHARE_PARTS)))
        for label, row in cold_parts.items():
            print("  " + f"{label:>9s} " + " ".join(f"{row[part]:9.1f}" for part in SHARE_PARTS))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; wrote {results_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
