"""Benchmark the watch service: freshness, concurrency, restart cost, resident memory.

Plain script::

    .venv/bin/python benchmarks/bench_service.py [--quick]

The service runs as a real ``session-memory watch`` subprocess (so its work and this
process's polling do not share a GIL); freshness is measured from just before an append's
``write`` to the moment this process sees the updated ``.memory.json`` on disk (stat its
mtime, then read its ``event_count``). Figures, not pass/fail: the issue's targets are
printed next to them.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT))

from generate_sample import generate_events  # noqa: E402

from benchmarks.machine import process_cpu_seconds, process_rss_kib  # noqa: E402
from session_memory.apps.service import MemoryService  # noqa: E402

SCRIPT = str(Path(sys.executable).with_name("session-memory"))


def lines(n: int, seed: int, session: str) -> Iterator[bytes]:
    for event in generate_events(n, seed, session_id=session):
        yield orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)


def event_count(path: Path) -> int:
    try:
        count: int = orjson.loads(path.read_bytes())["event_count"]
    except (OSError, orjson.JSONDecodeError, KeyError):
        return -1
    return count


def wait_count(path: Path, want: int, timeout: float = 30.0, interval: float = 0.0005) -> float:
    """Poll until ``path`` reports ``want`` events; return the time it was seen."""
    deadline = time.perf_counter() + timeout
    last = None
    while time.perf_counter() < deadline:
        try:
            mtime = path.stat().st_mtime_ns
        except FileNotFoundError:
            mtime = None
        if mtime != last:
            last = mtime
            if event_count(path) >= want:
                return time.perf_counter()
        time.sleep(interval)
    raise TimeoutError(f"{path} never reached {want} events")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Watch:
    """A ``session-memory watch`` subprocess."""

    def __init__(self, watched: Path, out: Path) -> None:
        self.proc = subprocess.Popen(
            [SCRIPT, "watch", str(watched), "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def rss_kib(self) -> int:
        return process_rss_kib(self.proc.pid)

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.proc.pid)

    def stop(self) -> int:
        self.proc.terminate()
        return self.proc.wait(30)


def bench_freshness(tmp: Path, appends: int) -> dict[str, Any]:
    watched, out = tmp / "fresh", tmp / "fresh-out"
    watched.mkdir()
    path = watched / "t.jsonl"
    source = lines(appends + 1, seed=1, session="fresh")
    path.write_bytes(next(source))
    watch = Watch(watched, out)
    memory = out / "fresh.memory.json"
    wait_count(memory, 1, timeout=60)
    rng = random.Random(1)
    latencies = []
    with open(path, "ab") as f:
        for i, line in enumerate(source, start=2):
            time.sleep(rng.uniform(0.02, 0.08))
            t0 = time.perf_counter()
            f.write(line)
            f.flush()
            latencies.append(wait_count(memory, i) - t0)
    watch.stop()
    return {
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * pct(latencies, 0.99),
        "max_ms": 1000 * max(latencies),
    }


Append = tuple[Path, Path, list[bytes], int, int]
"""One transcript of :func:`concurrent_appends`: its path, its memory's path, the lines to
append, how many events the memory holds before them, and the seed of its pauses."""


def concurrent_appends(appends: list[Append], timeout: float = 30.0) -> list[float]:
    """Append to every transcript at once, one thread each, a line every 50-300 ms (seeded),
    and return the seconds from each line's write to its memory showing it."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(len(appends))

    def writer(transcript: Path, memory: Path, lines: list[bytes], before: int, seed: int) -> None:
        rng = random.Random(seed)
        start.wait()
        with open(transcript, "ab") as f:
            for i, line in enumerate(lines, start=before + 1):
                time.sleep(rng.uniform(0.05, 0.3))
                t0 = time.perf_counter()
                f.write(line)
                f.flush()
                seen = wait_count(memory, i, timeout=timeout, interval=0.005)
                with lock:
                    latencies.append(seen - t0)

    threads = [threading.Thread(target=writer, args=a) for a in appends]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def bench_concurrent(tmp: Path, files: int, per_file: int) -> dict[str, Any]:
    watched, out = tmp / "many", tmp / "many-out"
    watched.mkdir()
    sources = [list(lines(per_file + 1, seed=100 + k, session=f"c{k:03d}")) for k in range(files)]
    for k, src in enumerate(sources):
        (watched / f"c{k:03d}.jsonl").write_bytes(src[0])
    watch = Watch(watched, out)
    for k in range(files):
        wait_count(out / f"c{k:03d}.memory.json", 1, timeout=120, interval=0.01)
    latencies = concurrent_appends(
        [
            (watched / f"c{k:03d}.jsonl", out / f"c{k:03d}.memory.json", src[1:], 1, k)
            for k, src in enumerate(sources)
        ]
    )
    watch.stop()
    lost = sum(event_count(out / f"c{k:03d}.memory.json") != per_file + 1 for k in range(files))
    return {
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * pct(latencies, 0.99),
        "appends": len(latencies),
        "transcripts_with_lost_events": lost,
    }


def bench_restart(tmp: Path, events: int, new: int) -> dict[str, Any]:
    watched = tmp / "big"
    watched.mkdir()
    path = watched / "t.jsonl"
    source = lines(events + new, seed=7, session="big")
    with open(path, "wb") as f:
        for _ in range(events):
            f.write(next(source))
    tail = b"".join(source)
    MemoryService([path], tmp / "warm", budget_tokens=1200)  # load the encoding once
    t0 = time.perf_counter()
    MemoryService([path], tmp / "big-out").run_once()
    first = time.perf_counter() - t0
    with open(path, "ab") as f:
        f.write(tail)
    t0 = time.perf_counter()
    MemoryService([path], tmp / "big-out").run_once()
    restart = time.perf_counter() - t0
    shutil.rmtree(tmp / "full-out", ignore_errors=True)
    t0 = time.perf_counter()
    MemoryService([path], tmp / "full-out").run_once()
    full = time.perf_counter() - t0
    same = (tmp / "big-out" / "big.memory.json").read_bytes() == (
        tmp / "full-out" / "big.memory.json"
    ).read_bytes()
    return {
        "file_mib": path.stat().st_size / 2**20,
        "first_run_s": first,
        "full_rebuild_s": full,
        "restart_s": restart,
        "ratio": full / restart,
        "restart_equals_rebuild": same,
    }


def bench_rss(tmp: Path, files: int) -> dict[str, Any]:
    watched, out = tmp / "rss", tmp / "rss-out"
    watched.mkdir()
    for k in range(files):
        (watched / f"r{k:04d}.jsonl").write_bytes(b"".join(lines(50, seed=k, session=f"r{k:04d}")))
    watch = Watch(watched, out)
    t0 = time.perf_counter()
    for k in range(files):
        wait_count(out / f"r{k:04d}.memory.json", 50, timeout=300, interval=0.01)
    catch_up = time.perf_counter() - t0
    time.sleep(1.0)
    rss = watch.rss_kib()
    cpu0 = watch.cpu_seconds()
    time.sleep(5.0)
    idle_cpu = (watch.cpu_seconds() - cpu0) / 5.0
    watch.stop()
    return {
        "transcripts": files,
        "rss_mib": rss / 1024,
        "catch_up_s": catch_up,
        "idle_cpu_pct": 100 * idle_cpu,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args()
    q = args.quick
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-service-") as name:
        tmp = Path(name)
        f = bench_freshness(tmp, 20 if q else 200)
        rows.append(
            (
                f"freshness, {20 if q else 200} appends to one transcript",
                f"p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms, max {f['max_ms']:.1f} ms",
                "p50 <= 100 ms, p99 <= 300 ms",
            )
        )
        c = bench_concurrent(tmp, 10 if q else 100, 5 if q else 20)
        rows.append(
            (
                f"{10 if q else 100} transcripts appended concurrently ({c['appends']} appends)",
                f"p50 {c['p50_ms']:.1f} ms, p99 {c['p99_ms']:.1f} ms, "
                f"lost in {c['transcripts_with_lost_events']} transcripts",
                "none lost, p50 <= 250 ms",
            )
        )
        n = 20_000 if q else 200_000
        r = bench_restart(tmp, n, 1_000)
        rows.append(
            (
                f"restart, {n:,} events ({r['file_mib']:.0f} MiB) + 1,000 new",
                f"{r['restart_s'] * 1000:.0f} ms vs full rebuild {r['full_rebuild_s']:.2f} s: "
                f"{r['ratio']:.0f}x (equal: {r['restart_equals_rebuild']})",
                ">= 50x",
            )
        )
        s = bench_rss(tmp, 100 if q else 1_000)
        rows.append(
            (
                f"tailing {s['transcripts']:,} transcripts",
                f"RSS {s['rss_mib']:.0f} MiB, catch-up {s['catch_up_s']:.1f} s, "
                f"idle CPU {s['idle_cpu_pct']:.1f}%",
                "report",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    header = ("measure", "result", "target")
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
