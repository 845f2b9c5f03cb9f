"""The measurements. Each function measures one thing and returns plain figures.

Workloads come from the seeded generator in ``examples/generate_sample.py``; the same seed
gives the same events, and a shorter transcript is a prefix of a longer one, so the figures
at every N of one pass are the figures of the N-event transcript. Times are wall-clock
``perf_counter`` on one core; the garbage collector stays on, as it is in real use.
"""

from __future__ import annotations

import functools
import gc
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import orjson

from benchmarks.baseline_copy_on_update import BaselineMemory, CopyOnUpdateDeriver
from deriver import SessionMemoryDeriver
from examples.generate_sample import generate_events
from session_memory.core.events import TranscriptEvent
from session_memory.formats import read_transcript

__all__ = [
    "BaselineRun",
    "FlatnessResult",
    "LatencyStats",
    "PassResult",
    "RestartResult",
    "RssResult",
    "StepRebuildResult",
    "ThroughputResult",
    "events",
    "flatness",
    "incremental_pass",
    "peak_rss",
    "percentile",
    "raw_limit",
    "restart",
    "run_baseline",
    "step_rebuild",
    "throughput",
    "warm_up",
]

Progress = Callable[[str], None]

_CHUNK = 10_000
"""Events generated and validated ahead of the timed calls in the incremental pass."""

ROOT = Path(__file__).resolve().parent.parent


def _quiet(_: str) -> None:
    pass


def events(n: int, seed: int) -> Iterator[TranscriptEvent]:
    """The first ``n`` generated events, validated as the reader would."""
    for raw in generate_events(n, seed):
        yield msgspec.convert(raw, TranscriptEvent)


def percentile(ordered: Sequence[int] | Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence (q in 0..1)."""
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), math.ceil(q * len(ordered))))
    return float(ordered[rank - 1])


def warm_up(seed: int, n: int = 2000) -> None:
    """Load the encoding, compile the patterns and fill the caches before anything is timed."""
    deriver = SessionMemoryDeriver()
    for event in events(n, seed):
        deriver.apply(event)
    _ = deriver.memory
    CopyOnUpdateDeriver().update(None, next(events(1, seed)))


# -- 1 and 2: one incremental pass ------------------------------------------------------------


@dataclass
class LatencyStats:
    """Per-event ``apply`` latency over the first ``n`` events, and reads of ``memory``."""

    n: int
    p50_us: float
    p99_us: float
    max_us: float
    mean_us: float
    cumulative_s: float
    window_p50_us: float
    """p50 of ``apply`` over the last ``window`` events before ``n``."""
    window: int
    memory_read_p50_us: float
    memory_read_p99_us: float
    snapshot_bytes: int


@dataclass
class PassResult:
    """One pass of ``apply`` over ``n`` events, timed event by event."""

    n: int
    cumulative: dict[int, float]
    """Seconds spent in ``apply`` over the first N events, for each N of the curve."""
    prefix_folds: dict[int, float]
    """For each N of the curve, the sum over k <= N of the ``apply`` time of the first k."""
    stats: list[LatencyStats]
    curve: list[tuple[int, float, float]]
    """(position, p50 µs, p99 µs) of ``apply`` over windows of events ending at position."""
    timer_overhead_ns: float
    jsonl_path: Path | None = None
    jsonl_bytes: int = 0
    snapshot: bytes = b""
    snapshot_events: int = 0
    snapshot_offset: int = 0


def _timer_overhead_ns() -> float:
    clock = time.perf_counter_ns
    best = float("inf")
    for _ in range(5):
        t0 = clock()
        for _ in range(10_000):
            clock()
        best = min(best, (clock() - t0) / 10_000)
    return best


def incremental_pass(
    n: int,
    seed: int,
    sizes: Sequence[int],
    curve_sizes: Sequence[int],
    *,
    window: int = 1000,
    jsonl_path: Path | None = None,
    snapshot_at: int | None = None,
    progress: Progress = _quiet,
) -> PassResult:
    """Apply ``n`` generated events one by one to a fresh deriver, timing each ``apply``.

    Events are generated and validated on the fly (untimed), so the process never holds
    the transcript. Over the last ``window`` events before each N of ``sizes`` the frozen
    ``memory`` is also read after each event, and timed apart. When ``jsonl_path`` is given
    the same events are written there (for the throughput and restart measurements); when
    ``snapshot_at`` is given, the deriver's snapshot after that many events is kept, with
    the byte offset in the file where the remaining events start.
    """
    latencies = array("q", bytes(8 * n))
    reads: dict[int, list[int]] = {size: [] for size in sizes}
    read_windows = {size: max(0, size - window) for size in sizes}
    marks = set(sizes) | set(curve_sizes)
    cumulative: dict[int, float] = {}
    snapshot_bytes: dict[int, int] = {}
    result = PassResult(
        n=n, cumulative=cumulative, prefix_folds={}, stats=[], curve=[], timer_overhead_ns=0.0
    )
    result.timer_overhead_ns = _timer_overhead_ns()

    clock = time.perf_counter_ns
    dumps = orjson.dumps
    newline = orjson.OPT_APPEND_NEWLINE
    validate = functools.partial(msgspec.convert, type=TranscriptEvent)
    deriver = SessionMemoryDeriver()
    apply = deriver.apply
    total_ns = 0
    offset = 0
    report_every = max(1, n // 10)
    out = jsonl_path.open("wb") if jsonl_path is not None else None
    started = time.perf_counter()

    def window_after(done: int) -> list[int] | None:
        for size, start in read_windows.items():
            if start <= done < size:
                return reads[size]
        return None

    try:
        reading = window_after(0)
        stream = generate_events(n, seed)
        done = 0
        while done < n:
            # Generate, write and validate a chunk, then apply it back to back, so that the
            # timed calls run as they do in a rebuild, not interleaved with generation.
            chunk: list[TranscriptEvent] = []
            ends: list[int] = []
            for raw in itertools.islice(stream, _CHUNK):
                if out is not None:
                    line = dumps(raw, option=newline)
                    out.write(line)
                    offset += len(line)
                    ends.append(offset)
                chunk.append(validate(raw))
            if not chunk:
                break
            for j, event in enumerate(chunk):
                t0 = clock()
                apply(event)
                elapsed = clock() - t0
                latencies[done] = elapsed
                total_ns += elapsed
                done += 1
                if reading is not None:
                    t0 = clock()
                    _ = deriver.memory
                    reading.append(clock() - t0)
                if done in marks:
                    cumulative[done] = total_ns / 1e9
                    if done in reads:
                        snapshot_bytes[done] = len(deriver.snapshot())
                reading = window_after(done)
                if snapshot_at is not None and done == snapshot_at:
                    result.snapshot = deriver.snapshot()
                    result.snapshot_events = done
                    result.snapshot_offset = ends[j] if ends else 0
                if done % report_every == 0:
                    rate = done / (time.perf_counter() - started)
                    progress(f"  {done:,} / {n:,} events ({rate:,.0f} events/s with generation)")
    finally:
        if out is not None:
            out.close()
    result.jsonl_path = jsonl_path
    result.jsonl_bytes = offset

    for size in sizes:
        ordered = sorted(latencies[:size])
        window_sorted = sorted(latencies[max(0, size - window) : size])
        read_sorted = sorted(reads[size])
        result.stats.append(
            LatencyStats(
                n=size,
                p50_us=percentile(ordered, 0.50) / 1e3,
                p99_us=percentile(ordered, 0.99) / 1e3,
                max_us=ordered[-1] / 1e3,
                mean_us=sum(ordered) / len(ordered) / 1e3,
                cumulative_s=cumulative[size],
                window_p50_us=percentile(window_sorted, 0.50) / 1e3,
                window=len(window_sorted),
                memory_read_p50_us=percentile(read_sorted, 0.50) / 1e3,
                memory_read_p99_us=percentile(read_sorted, 0.99) / 1e3,
                snapshot_bytes=snapshot_bytes[size],
            )
        )
    result.curve = _latency_curve(latencies, window)
    result.prefix_folds = _prefix_folds(latencies, marks)
    return result


def _prefix_folds(latencies: array[int], marks: set[int]) -> dict[int, float]:
    folds: dict[int, float] = {}
    prefix = 0
    total = 0
    for i, elapsed in enumerate(latencies, 1):
        prefix += elapsed
        total += prefix
        if i in marks:
            folds[i] = total / 1e9
    return folds


def _latency_curve(latencies: array[int], window: int) -> list[tuple[int, float, float]]:
    """p50 and p99 over windows ending at log-spaced positions."""
    n = len(latencies)
    if n < window:
        return []
    points: list[tuple[int, float, float]] = []
    position = float(window)
    while True:
        end = min(n, int(position))
        chunk = sorted(latencies[end - window : end])
        points.append((end, percentile(chunk, 0.50) / 1e3, percentile(chunk, 0.99) / 1e3))
        if end == n:
            return points
        position *= 10 ** (1 / 8)


# -- issue 2: the mean apply, short transcript against the tail of a long one ----------------


@dataclass
class FlatnessResult:
    """Mean ``apply`` over a short transcript and over the last events of a long one."""

    short_n: int
    long_n: int
    tail: int
    repeats: int
    short_mean_us: float
    long_tail_mean_us: float
    short_cpu_us: float
    long_tail_cpu_us: float
    short_means_us: list[float] = field(default_factory=list)
    long_means_us: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.long_tail_mean_us / self.short_mean_us

    @property
    def cpu_ratio(self) -> float:
        return self.long_tail_cpu_us / self.short_cpu_us


def _timed_block(
    deriver: SessionMemoryDeriver, block: list[TranscriptEvent]
) -> tuple[float, float]:
    """Mean µs per ``apply`` over ``block``: wall-clock and this thread's CPU time."""
    apply = deriver.apply
    c0 = time.thread_time()
    t0 = time.perf_counter()
    for event in block:
        apply(event)
    wall = time.perf_counter() - t0
    cpu = time.thread_time() - c0
    return wall / len(block) * 1e6, cpu / len(block) * 1e6


def flatness(
    short_n: int,
    long_n: int,
    seed: int,
    *,
    tail: int = 1000,
    repeats: int = 3,
    progress: Progress = _quiet,
) -> FlatnessResult:
    """Issue 2's check: each figure is the median over ``repeats`` fresh derivers.

    Repeat r uses seed ``seed + r`` for both transcripts, so that no repeat finds the
    process-wide caches already filled with its own events.
    """
    short: list[tuple[float, float]] = []
    long: list[tuple[float, float]] = []
    for r in range(repeats):
        short_events = list(events(short_n, seed + r))
        gc.collect()
        short.append(_timed_block(SessionMemoryDeriver(), short_events))
        progress(f"  long transcript {r + 1}/{repeats}: {long_n:,} events")
        deriver = SessionMemoryDeriver()
        stream = events(long_n, seed + r)
        for event in itertools.islice(stream, long_n - tail):
            deriver.apply(event)
        last = list(stream)
        gc.collect()
        long.append(_timed_block(deriver, last))

    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    return FlatnessResult(
        short_n=short_n,
        long_n=long_n,
        tail=tail,
        repeats=repeats,
        short_mean_us=median([w for w, _ in short]),
        long_tail_mean_us=median([w for w, _ in long]),
        short_cpu_us=median([c for _, c in short]),
        long_tail_cpu_us=median([c for _, c in long]),
        short_means_us=[w for w, _ in short],
        long_means_us=[w for w, _ in long],
    )


# -- 1: rebuilding from all events so far at each step --------------------------------------


@dataclass
class StepRebuildResult:
    """Cumulative cost of ``rebuild(events[:k])`` for k = 1..N.

    One rebuild of k events, R(k), is timed at log-spaced k (best of three, so that another
    process taking the core does not count); between those k it is interpolated linearly,
    above the largest it grows by the per-event cost of its last segment. Rebuilding at
    each of N steps costs the sum of R(k) over k = 1..N. That model is checked against the
    real thing where the real thing stays under ``limit_s``.
    """

    points: list[tuple[int, float]]
    """(k, seconds of one rebuild of k events)."""
    measured: dict[int, float]
    extrapolated: dict[int, float]
    limit_s: float
    literal_check: tuple[int, float, float] | None = None
    """(N, measured, modelled) at the largest N run for real."""


def _rebuild_time(event_list: Sequence[TranscriptEvent], k: int, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        SessionMemoryDeriver.rebuild(itertools.islice(event_list, k))
        best = min(best, time.perf_counter() - t0)
    return best


def _sum_of_rebuilds(points: Sequence[tuple[int, float]], sizes: Sequence[int]) -> dict[int, float]:
    """sum(R(k) for k in 1..N) for each N of ``sizes``, R interpolated through ``points``."""
    wanted = sorted(sizes)
    sums: dict[int, float] = {}
    total = 0.0
    segment = 0
    last_k, last_r = points[-1]
    prev_k, prev_r = points[-2] if len(points) > 1 else (0, 0.0)
    tail_slope = (last_r - prev_r) / (last_k - prev_k) if last_k != prev_k else 0.0
    for k in range(1, wanted[-1] + 1):
        while segment + 1 < len(points) and points[segment + 1][0] < k:
            segment += 1
        k0, r0 = points[segment]
        if k <= k0:
            r = r0 * k / k0
        elif segment + 1 < len(points):
            k1, r1 = points[segment + 1]
            r = r0 + (r1 - r0) * (k - k0) / (k1 - k0)
        else:
            r = last_r + tail_slope * (k - last_k)
        total += r
        if k in sizes:
            sums[k] = total
    return sums


def step_rebuild(
    event_list: Sequence[TranscriptEvent],
    curve_sizes: Sequence[int],
    limit_s: float,
    progress: Progress = _quiet,
) -> StepRebuildResult:
    """Run rebuild-at-each-step for real where the model predicts under ``limit_s``."""
    ks = [1]
    while ks[-1] * 3 <= len(event_list):
        ks.append(ks[-1] * 3)
    points = [(k, _rebuild_time(event_list, k)) for k in ks]
    model = _sum_of_rebuilds(points, curve_sizes)
    result = StepRebuildResult(points=points, measured={}, extrapolated={}, limit_s=limit_s)
    for n in sorted(curve_sizes):
        predicted = model[n]
        if predicted <= limit_s and n <= len(event_list):
            progress(f"  rebuild at each of {n:,} steps (about {predicted:.1f} s)")
            total = 0.0
            for k in range(1, n + 1):
                t0 = time.perf_counter()
                SessionMemoryDeriver.rebuild(itertools.islice(event_list, k))
                total += time.perf_counter() - t0
            result.measured[n] = total
            result.literal_check = (n, total, predicted)
        else:
            result.extrapolated[n] = predicted
    return result


def _linear_fit(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (slope, intercept) of y against x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0, my
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


# -- 1: the copy-on-update baseline -----------------------------------------------------------


@dataclass
class BaselineRun:
    """Cumulative cost of the copy-on-update baseline, measured then extrapolated."""

    measured: dict[int, float]
    extrapolated: dict[int, float]
    stopped_at: int
    total_s: float
    slope_s: float
    intercept_s: float
    limit_s: float
    per_event_us: dict[int, tuple[float, bool]]
    """Per-event cost at a few N: (µs, extrapolated?)."""
    blocks: list[tuple[float, float]] = field(default_factory=list)
    """(middle position, seconds per event) for each block of events measured."""

    def per_event(self, k: int) -> float:
        return self.intercept_s + self.slope_s * k


def run_baseline(
    event_list: Sequence[TranscriptEvent],
    curve_sizes: Sequence[int],
    limit_s: float,
    *,
    block: int = 500,
    per_event_at: Sequence[int] = (1000, 50_000),
    progress: Progress = _quiet,
) -> BaselineRun:
    """Feed events to the baseline until its cumulative time passes ``limit_s``.

    The per-event cost grows linearly with the state it copies; a line fitted to the
    per-event cost of the later half of the measured blocks extrapolates it above.
    """
    deriver = CopyOnUpdateDeriver()
    memory: BaselineMemory | None = None
    marks = set(curve_sizes)
    measured: dict[int, float] = {}
    blocks: list[tuple[float, float]] = []
    total = 0.0
    block_total = 0.0
    done = 0
    clock = time.perf_counter
    next_report = limit_s / 4
    for event in event_list:
        t0 = clock()
        memory = deriver.update(memory, event)
        elapsed = clock() - t0
        total += elapsed
        block_total += elapsed
        done += 1
        if done in marks:
            measured[done] = total
        if done % block == 0:
            blocks.append((done - block / 2, block_total / block))
            block_total = 0.0
        if total >= next_report:
            progress(f"  baseline: {done:,} events in {total:.1f} s")
            next_report += limit_s / 4
        if total >= limit_s:
            break
    later = blocks[len(blocks) // 2 :] or blocks
    slope, intercept = _linear_fit(later) if later else (0.0, total / max(1, done))
    slope = max(0.0, slope)
    run = BaselineRun(
        measured=measured,
        extrapolated={},
        stopped_at=done,
        total_s=total,
        slope_s=slope,
        intercept_s=intercept,
        limit_s=limit_s,
        per_event_us={},
        blocks=blocks,
    )
    for n in curve_sizes:
        if n > done:
            run.extrapolated[n] = (
                total + intercept * (n - done) + slope * (n * (n + 1) / 2 - done * (done + 1) / 2)
            )
    for k in per_event_at:
        near = [cost for mid, cost in blocks if abs(mid - k) <= block]
        if near and k <= done:
            run.per_event_us[k] = (sum(near) / len(near) * 1e6, False)
        else:
            run.per_event_us[k] = (run.per_event(k) * 1e6, True)
    return run


# -- 3: throughput against the raw limit ------------------------------------------------------


@dataclass
class ThroughputResult:
    """Full rebuild from a JSONL file beside reading it with ``orjson.loads`` alone.

    Each round runs the three passes back to back; each time is its pass's median.
    """

    events: int
    bytes: int
    raw_s: float
    parse_s: float
    rebuild_s: float
    cpu_s: dict[str, float] = field(default_factory=dict)
    """Median CPU time of this process for each pass (raw, parse, rebuild)."""
    rounds: dict[str, list[float]] = field(default_factory=dict)
    """Wall-clock seconds of each pass in every round, in order."""
    deriver: SessionMemoryDeriver | None = None

    def rate(self, seconds: float) -> tuple[float, float]:
        """(events/s, MB/s) for a pass over the whole file."""
        return self.events / seconds, self.bytes / seconds / 1e6


def _warm_page_cache(path: Path) -> None:
    with path.open("rb") as f:
        while f.read(8 * 1024 * 1024):
            pass


def raw_limit(path: Path) -> int:
    """The raw limit: read ``path`` line by line and give each line to ``orjson.loads``,
    nothing else; the number of lines. A line that is not JSON costs its failed decode."""
    lines = 0
    loads = orjson.loads
    with path.open("rb") as f:
        for line in f:
            lines += 1
            # Not contextlib.suppress: a context manager per line would be timed with it.
            try:  # noqa: SIM105
                loads(line)
            except orjson.JSONDecodeError:
                pass
    return lines


def throughput(
    path: Path, n_events: int, progress: Progress = _quiet, rounds: int = 3
) -> ThroughputResult:
    """Time the raw limit, reading alone, and the full rebuild, on the same file.

    Reading is :func:`read_transcript`, what ``session-memory derive`` and the service
    fold: a native line decoded straight to a ``TranscriptEvent``.

    The three passes run side by side in each of ``rounds`` rounds, so that a noisy moment
    of the machine shows as one slow round instead of moving the result.
    """
    _warm_page_cache(path)
    size = path.stat().st_size
    wall: dict[str, list[float]] = {"raw": [], "parse": [], "rebuild": []}
    cpu: dict[str, list[float]] = {"raw": [], "parse": [], "rebuild": []}
    deriver = None
    for round_no in range(1, rounds + 1):
        progress(f"  round {round_no} of {rounds}: raw limit, reading alone, full rebuild")
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        count = raw_limit(path)
        wall["raw"].append(time.perf_counter() - t0)
        cpu["raw"].append(time.process_time() - c0)
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        parsed = sum(1 for _ in read_transcript(path, "native"))
        wall["parse"].append(time.perf_counter() - t0)
        cpu["parse"].append(time.process_time() - c0)
        deriver = None
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        deriver = SessionMemoryDeriver.rebuild(read_transcript(path, "native"))
        wall["rebuild"].append(time.perf_counter() - t0)
        cpu["rebuild"].append(time.process_time() - c0)
        if not count == parsed == deriver.event_count == n_events:
            raise RuntimeError(
                f"event counts differ: {count} lines, {parsed} records, "
                f"{deriver.event_count} applied, {n_events} generated"
            )
        progress(f"    full rebuild: {n_events / wall['rebuild'][-1]:,.0f} events/s")
    return ThroughputResult(
        events=n_events,
        bytes=size,
        raw_s=statistics.median(wall["raw"]),
        parse_s=statistics.median(wall["parse"]),
        rebuild_s=statistics.median(wall["rebuild"]),
        cpu_s={key: statistics.median(times) for key, times in cpu.items()},
        rounds=wall,
        deriver=deriver,
    )


# -- 4: restart -------------------------------------------------------------------------------


@dataclass
class RestartResult:
    """Restore a snapshot and fold the tail of the file, against a full rebuild."""

    events: int
    tail_events: int
    snapshot_bytes: int
    restore_s: float
    tail_s: float
    full_s: float
    equal: bool

    @property
    def restart_s(self) -> float:
        return self.restore_s + self.tail_s


def restart(
    path: Path,
    snapshot: bytes,
    offset: int,
    snapshot_events: int,
    full: ThroughputResult,
) -> RestartResult:
    """Restore from ``snapshot`` and apply the file's events from ``offset`` onwards."""
    gc.collect()
    t0 = time.perf_counter()
    deriver = SessionMemoryDeriver.restore(snapshot)
    restore_s = time.perf_counter() - t0
    with path.open("rb") as f:
        f.seek(offset)
        t0 = time.perf_counter()
        deriver.apply_all(read_transcript(f, "native"))
        tail_s = time.perf_counter() - t0
    equal = full.deriver is not None and deriver.memory == full.deriver.memory
    return RestartResult(
        events=full.events,
        tail_events=full.events - snapshot_events,
        snapshot_bytes=len(snapshot),
        restore_s=restore_s,
        tail_s=tail_s,
        full_s=full.rebuild_s,
        equal=equal,
    )


# -- 5: peak resident memory ------------------------------------------------------------------


@dataclass
class RssResult:
    """Peak resident memory of a process that derives ``events`` streamed events."""

    events: int
    peak_kib: int
    after_imports_kib: int
    snapshot_bytes: int
    seconds: float
    ru_maxrss_kib: int
    source: str
    """Where ``peak_kib`` comes from: ``VmHWM`` (Linux) or ``ru_maxrss``."""


def peak_rss(n: int, seed: int) -> RssResult:
    """Run :mod:`benchmarks.rss_child` in a fresh interpreter and read what it reports."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.rss_child", "--events", str(n), "--seed", str(seed)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return RssResult(
        events=figures["events"],
        peak_kib=figures["peak_kib"],
        after_imports_kib=figures["after_imports_kib"],
        snapshot_bytes=figures["snapshot_bytes"],
        seconds=figures["seconds"],
        ru_maxrss_kib=figures["ru_maxrss_kib"],
        source=figures["source"],
    )


def materialise(n: int, seed: int) -> list[TranscriptEvent]:
    """The first ``n`` validated events as a list (for measurements that reuse prefixes)."""
    return list(events(n, seed))


def consume(iterable: Iterable[object]) -> None:
    for _ in iterable:
        pass
