"""Benchmark ``session-memory watch`` over many transcripts: catch-up, memory, idle CPU, freshness.

Plain script::

    .venv/bin/python benchmarks/bench_watch_scale.py [--quick] [--sizes 1000,5000,10000]
        [--code LABEL=DIR]

For each size N it writes N native transcripts of 50 events each, laid out like
``~/.claude/projects`` (one directory per hundred sessions), starts a real ``session-memory
watch`` subprocess on the tree and measures:

- *catch-up*: from the start of the process to the log line that says every transcript is
  derived and tailed (every ``.memory.json`` is then checked to hold 50 events);
- *RSS* of the service 2 s after catch-up;
- *idle CPU*: the service's user + system CPU time over 10 s with nothing appended;
- *freshness*: 100 appends to one transcript, then 100 transcripts appended at once (20
  appends each), from just before an append's ``write`` to the moment this process sees
  the updated ``.memory.json``. The transcripts are among the first derived at catch-up,
  so a service that keeps idle ones on disk restores each from its state on its first
  append: that cost is in these figures;
- *restart*: the service stopped and started again on the same outputs and states with
  nothing changed (but the one transcript appended to after the previous start's
  "watching"), ``--restarts`` times: the time to "watching", the service's CPU time until
  then and its RSS, each time; then one append made as soon as "watching" is logged,
  from its ``write`` to the updated ``.memory.json``. Their medians are reported.

``--code DIR`` runs the service from another checkout of the project (its directory is put
first on ``PYTHONPATH``), so two versions can be measured side by side on the same files in
one run. Figures, not pass/fail; every figure comes with the load average (the machine's
two cores are shared). Results go to ``benchmarks/results/watch_scale.json``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT))

from generate_sample import generate_events  # noqa: E402

from benchmarks.bench_service import (  # noqa: E402
    concurrent_appends,
    event_count,
    pct,
    wait_count,
)
from benchmarks.machine import (  # noqa: E402
    load_average,
    machine_facts,
    process_cpu_seconds,
    process_rss_kib,
)

RESULTS = ROOT / "benchmarks" / "results" / "watch_scale.json"
EVENTS = 50
PER_DIR = 100
IDLE_SECONDS = 10.0
RESTARTS = 3
TARGETS = {
    "catch_up_s": 10.0,
    "rss_mib": 200.0,
    "idle_cpu_pct": 1.0,
    "one_p50_ms": 100.0,
    "one_p99_ms": 300.0,
    "many_p50_ms": 250.0,
    "many_p99_ms": 250.0,
    "restart_catch_up_s": 1.0,
    "restart_first_append_ms": 100.0,
}
_CAUGHT_UP = re.compile(rb"watching (\d+) transcript")


def event_lines(n: int, seed: int, session: str) -> list[bytes]:
    return [
        orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE)
        for e in generate_events(n, seed, session_id=session)
    ]


def session_of(k: int) -> str:
    return f"s{k:05d}"


def transcript_of(tree: Path, k: int) -> Path:
    return tree / f"project-{k // PER_DIR:03d}" / f"{session_of(k)}.jsonl"


def write_tree(tree: Path, n: int) -> None:
    """``n`` transcripts of :data:`EVENTS` events, :data:`PER_DIR` to a directory."""
    for k in range(n):
        path = transcript_of(tree, k)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(event_lines(EVENTS, k, session_of(k))))


class Watch:
    """A ``session-memory watch`` subprocess, its log read on a thread."""

    def __init__(self, tree: Path, out: Path, code: Path | None) -> None:
        env = dict(os.environ)
        if code is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")])
        command = [sys.executable, "-c", "from session_memory.apps.cli import main; main()"]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [*command, "watch", str(tree), "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            # ``python -c`` puts the working directory first on sys.path: run from the
            # checkout measured, so that its code is the code imported.
            cwd=code if code is not None else ROOT,
        )
        self.caught_up = threading.Event()
        self.caught_up_at = 0.0
        self.tailed = 0
        self._reader = threading.Thread(target=self._read_log, args=(self.proc.stderr,))
        self._reader.start()

    def _read_log(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for line in stream:
            match = _CAUGHT_UP.search(line)
            if match and not self.caught_up.is_set():
                self.caught_up_at = time.perf_counter()
                self.tailed = int(match.group(1))
                self.caught_up.set()

    def rss_mib(self) -> float:
        kib = process_rss_kib(self.proc.pid)
        return kib / 1024 if kib >= 0 else -1.0

    def cpu_seconds(self, *, children: bool = False) -> float:
        return process_cpu_seconds(self.proc.pid, children=children)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)
        self._reader.join(10)


def freshness_one(tree: Path, out: Path, k: int, appends: int) -> dict[str, float]:
    """``appends`` appends to transcript ``k``, 20-80 ms apart."""
    lines = event_lines(EVENTS + appends, k, session_of(k))[EVENTS:]
    memory = out / f"{session_of(k)}.memory.json"
    rng = random.Random(k)
    latencies = []
    with open(transcript_of(tree, k), "ab") as f:
        for i, line in enumerate(lines, start=EVENTS + 1):
            time.sleep(rng.uniform(0.02, 0.08))
            t0 = time.perf_counter()
            f.write(line)
            f.flush()
            latencies.append(wait_count(memory, i, timeout=60.0, interval=0.001) - t0)
    return _latency(latencies)


def freshness_many(tree: Path, out: Path, first: int, files: int, appends: int) -> dict[str, float]:
    """``files`` transcripts from ``first`` on, each appended ``appends`` times at once."""
    sources = {
        k: event_lines(EVENTS + appends, k, session_of(k))[EVENTS:]
        for k in range(first, first + files)
    }
    latencies = concurrent_appends(
        [
            (transcript_of(tree, k), out / f"{session_of(k)}.memory.json", lines, EVENTS, k)
            for k, lines in sources.items()
        ],
        timeout=60.0,
    )
    lost = sum(
        event_count(out / f"{session_of(k)}.memory.json") != EVENTS + appends for k in sources
    )
    return {**_latency(latencies), "lost": float(lost)}


def _latency(latencies: list[float]) -> dict[str, float]:
    return {
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * pct(latencies, 0.99),
        "max_ms": 1000 * max(latencies),
    }


def caught_up(tree: Path, out: Path, code: Path | None, what: str) -> Watch:
    """A watch started over ``tree``, once it has caught up (stopped if it never does)."""
    watch = Watch(tree, out, code)
    if not watch.caught_up.wait(600):
        watch.stop()
        raise TimeoutError(f"{what} never caught up")
    return watch


def bench_size(
    tmp: Path, pristine: Path, n: int, code: Path | None, restarts: int = RESTARTS
) -> dict[str, Any]:
    """One version's run over a copy of ``pristine`` made in ``tmp``, a new directory.

    Nothing is deleted before a catch-up: on this machine's file system (ext4 mounted with
    ``discard``), creating files soon after many were removed cost the service up to three
    times the CPU (``docs/performance.md``). Every run's files go at the end, together.
    """
    tree, out = tmp / "projects", tmp / "out"
    shutil.copytree(pristine, tree)
    # The copy is written back now, not during the catch-up: a user's transcripts were
    # written long before the service starts.
    os.sync()
    result: dict[str, Any] = {"transcripts": n, "load_before": load_average()}
    watch = caught_up(tree, out, code, "the service")
    try:
        result["catch_up_s"] = watch.caught_up_at - watch.started
        # CPU time is steadier than the wall clock on a shared machine: the service's own,
        # and its worker processes' (ended before it logs that it is watching).
        result["catch_up_cpu_s"] = watch.cpu_seconds()
        result["catch_up_workers_cpu_s"] = watch.cpu_seconds(children=True)
        result["load_catch_up"] = load_average()
        missing = sum(event_count(out / f"{session_of(k)}.memory.json") != EVENTS for k in range(n))
        result["tailed"] = watch.tailed
        result["incomplete_after_catch_up"] = missing
        time.sleep(2.0)
        result["rss_mib"] = watch.rss_mib()
        cpu0 = watch.cpu_seconds()
        time.sleep(IDLE_SECONDS)
        result["idle_cpu_pct"] = 100 * (watch.cpu_seconds() - cpu0) / IDLE_SECONDS
        result["load_idle"] = load_average()
        one = freshness_one(tree, out, n // 2, 100)
        result.update({f"one_{key}": value for key, value in one.items()})
        result["load_one"] = load_average()
        many = freshness_many(tree, out, 0, min(100, n // 2), 20)
        result.update({f"many_{key}": value for key, value in many.items()})
        result["load_many"] = load_average()
        result["rss_mib_end"] = watch.rss_mib()
    finally:
        watch.stop()
    runs = [restart(tree, out, code, n // 2 + 1 + i) for i in range(restarts)]
    result["restarts"] = runs
    for key in ("catch_up_s", "cpu_s", "first_append_ms", "rss_mib"):
        result[f"restart_{key}"] = statistics.median(r[key] for r in runs)
    return result


def restart(tree: Path, out: Path, code: Path | None, k: int) -> dict[str, Any]:
    """A start over the outputs and states a stop left, then one append to transcript ``k``
    made as soon as the service says it is watching."""
    line = event_lines(EVENTS + 1, k, session_of(k))[EVENTS]
    memory = out / f"{session_of(k)}.memory.json"
    watch = caught_up(tree, out, code, "the restarted service")
    try:
        r: dict[str, Any] = {"catch_up_s": watch.caught_up_at - watch.started}
        r["cpu_s"] = watch.cpu_seconds()
        with open(transcript_of(tree, k), "ab") as f:
            t0 = time.perf_counter()
            f.write(line)
            f.flush()
        r["first_append_ms"] = 1000 * (wait_count(memory, EVENTS + 1, timeout=60.0) - t0)
        r["load"] = load_average()
        time.sleep(2.0)
        r["rss_mib"] = watch.rss_mib()
    finally:
        watch.stop()
    return r


def describe(r: dict[str, Any]) -> str:
    return (
        f"{r['label']:>8} N={r['transcripts']:>6,}: catch-up {r['catch_up_s']:.1f} s "
        f"(CPU: service {r['catch_up_cpu_s']:.1f} s, workers {r['catch_up_workers_cpu_s']:.1f} s; "
        f"load {r['load_catch_up'].split(' (')[0]}), RSS {r['rss_mib']:.0f} MiB, "
        f"idle CPU {r['idle_cpu_pct']:.2f}% (load {r['load_idle'].split(' (')[0]}), "
        f"one p50/p99 {r['one_p50_ms']:.0f}/{r['one_p99_ms']:.0f} ms, "
        f"100 at once p50/p99 {r['many_p50_ms']:.0f}/{r['many_p99_ms']:.0f} ms "
        f"(lost {r['many_lost']:.0f}; load {r['load_many'].split(' (')[0]}), "
        f"incomplete after catch-up {r['incomplete_after_catch_up']}; "
        f"restart (median of {len(r['restarts'])}) to watching {r['restart_catch_up_s']:.2f} s "
        f"(CPU {r['restart_cpu_s']:.2f} s), first append {r['restart_first_append_ms']:.0f} ms, "
        f"RSS {r['restart_rss_mib']:.0f} MiB (load {r['restarts'][-1]['load'].split(' (')[0]})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated N")
    parser.add_argument("--quick", action="store_true", help="N=200 only, for a smoke run")
    parser.add_argument(
        "--code",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also measure the checkout in DIR under LABEL (repeatable); 'this' is this one",
    )
    parser.add_argument("--restarts", type=int, default=RESTARTS, help="restarts to measure")
    parser.add_argument("--skip-this", action="store_true", help="measure only the --code ones")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.quick:
        args.sizes = "200"
        if args.results == RESULTS:
            args.results = RESULTS.parent / "quick" / RESULTS.name
    versions: list[tuple[str, Path | None]] = [
        (label, Path(d).resolve()) for label, d in (c.split("=", 1) for c in args.code)
    ]
    if not args.skip_this:
        versions.append(("this", None))
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-watch-scale-") as name:
        for n in (int(s) for s in args.sizes.split(",")):
            # Apart from the runs' directories, so that no label can name the pristine tree.
            pristine = Path(name) / "pristine" / f"{n}"
            write_tree(pristine, n)
            for label, code in versions:
                # Each version gets the same transcripts, as they were before any append.
                run_dir = Path(name) / "runs" / f"{n}" / label
                r = {"label": label, **bench_size(run_dir, pristine, n, code, args.restarts)}
                runs.append(r)
                print(describe(r), flush=True)
    command = "python benchmarks/bench_watch_scale.py " + " ".join(sys.argv[1:])
    report = {"machine": machine_facts(command.strip()), "targets": TARGETS, "runs": runs}
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
