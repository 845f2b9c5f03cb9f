"""Benchmark of the distributed fold on a real nats-server (needs the ``nats`` extra).

    python -m benchmarks.bench_distributed [--sessions 20] [--events 5000] [--rate 1000]

1. Throughput through 1 and 2 worker processes: every session's transcript published by
   a file publisher, timed from the first publish to the moment every memory in the bucket
   has its final ``event_count`` (publish, fold, state and memory writes all included).
2. Publish-to-memory latency at a steady rate: an agent-style publisher sends one event per
   message; a watch on the memory bucket sees each new ``event_count`` and so the latency of
   every event up to it.
3. Amortisation of the state writes: records folded per state write, from the workers' last
   metrics lines.

Not a test: nothing here is asserted; it prints a Markdown report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import nats
import orjson

from session_memory.apps.distributed.jetstream import connect
from session_memory.apps.distributed.partition import IDLE_SECONDS
from session_memory.apps.distributed.publisher import FilePublisher, Publisher
from session_memory.apps.distributed.worker import CHECKPOINT_SECONDS, SNAPSHOT_EVERY
from session_memory.core.events import TranscriptEvent
from tests.distributed.corpus import generate_events
from tests.distributed.nats_helpers import nats_server


def write_sessions(directory: Path, sessions: int, events: int) -> dict[str, int]:
    directory.mkdir(parents=True, exist_ok=True)
    counts = {}
    for i in range(sessions):
        name = f"bench{i:03d}"
        with (directory / f"{name}.jsonl").open("wb") as f:
            for e in generate_events(events, seed=i, session_id=name):
                f.write(orjson.dumps(e) + b"\n")
        counts[name] = events
    return counts


def start_workers(
    url: str, n: int, log_dir: Path, profile: Path | None = None
) -> list[subprocess.Popen[bytes]]:
    """``n`` worker processes (each under cProfile, its stats in ``profile``, if given)."""
    procs = []
    for i in range(n):
        python = [sys.executable]
        if profile is not None:
            python += ["-m", "cProfile", "-o", str(profile / f"{log_dir.name}-worker{i}.prof")]
        with (
            (log_dir / f"worker{i}.log").open("ab") as err,
            (log_dir / f"worker{i}.out").open("ab") as out,
        ):
            procs.append(
                subprocess.Popen(
                    [
                        *python,
                        *("-m", "session_memory.apps.cli", "worker"),
                        *("--nats", url, "--metrics", "1", "--log-format", "text"),
                    ],
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                )
            )
    return procs


def last_metrics(log_dir: Path, n: int) -> list[dict[str, Any]]:
    """The last metrics line of each of ``n`` workers so far."""
    lines = []
    for i in range(n):
        out = (log_dir / f"worker{i}.out").read_bytes()
        metrics = [orjson.loads(x)["metrics"] for x in out.splitlines() if x.startswith(b"{")]
        lines.append(metrics[-1] if metrics else {})
    return lines


def stop_workers(procs: list[subprocess.Popen[bytes]], log_dir: Path) -> list[dict[str, Any]]:
    """SIGTERM every worker; their last metrics lines."""
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return last_metrics(log_dir, len(procs))


def cpu_between(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> float:
    """CPU seconds the workers spent between two sets of metrics lines (start-up excluded)."""
    return sum(
        a.get("cpu_seconds", 0.0) - b.get("cpu_seconds", 0.0)
        for b, a in zip(before, after, strict=True)
    )


async def wait_ready(url: str, workers: int, timeout: float = 60.0) -> None:
    """Until the leases are spread over every worker (so no rebalancing during the run)."""
    transport = await connect(url)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            keys = await transport.keys("leases", "")
            owners = set()
            for k in keys:
                if k.startswith("p."):
                    found = await transport.get("leases", k)
                    if found is not None:
                        owners.add(found.value)
            if len(owners) == workers and sum(k.startswith("p.") for k in keys) == 16:
                return
            await asyncio.sleep(0.2)
        raise RuntimeError("workers did not claim the partitions")
    finally:
        await transport.close()


async def throughput(url: str, directory: Path, counts: dict[str, int]) -> dict[str, float]:
    """Publish every transcript; time it and the moment every memory has its final count.

    The memories are watched, not polled: polling every session's key every few
    milliseconds took CPU from the worker it was timing, on a machine of two cores.
    """
    transport = await connect(url)
    done = asyncio.Event()
    pending = dict(counts)
    finished = 0.0

    async def watch(entries: Any) -> None:
        nonlocal finished
        async for entry in entries:
            if entry is None or not entry.value:
                continue
            name = entry.key.removesuffix(".json")
            if name in pending and orjson.loads(entry.value)["event_count"] == pending[name]:
                del pending[name]
                if not pending:
                    finished = time.perf_counter()
                    done.set()

    nc = await nats.connect(url)
    watcher = await (await nc.jetstream().key_value("smem_memory")).watch("*.json")
    watching = asyncio.create_task(watch(watcher))
    try:
        start = time.perf_counter()
        publisher = FilePublisher(transport, [str(directory)], directory.parent / "pub-state")
        summary = await publisher.run_once()
        published = time.perf_counter() - start
        await done.wait()
        total = finished - start
    finally:
        watching.cancel()
        await watcher.stop()
        await nc.close()
        await transport.close()
    events = sum(counts.values())
    return {
        "events": events,
        "records": summary.records,
        "publish_s": published,
        "end_to_end_s": total,
        "publish_eps": events / published,
        "end_to_end_eps": events / total,
    }


async def latency(url: str, rate: int, seconds: float, sessions: int) -> dict[str, float]:
    """Latency of each event from its publish to the memory that counts it."""
    transport = await connect(url)
    nc = await nats.connect(url)
    kv = await nc.jetstream().key_value("smem_memory")
    sent: dict[str, list[float]] = {f"lat{i}": [] for i in range(sessions)}
    seen: dict[str, int] = dict.fromkeys(sent, 0)
    latencies: list[float] = []
    watcher = await kv.watch("*.json")

    async def watch() -> None:
        async for entry in watcher:
            if entry is None or entry.value is None or not entry.value:
                continue
            now = time.perf_counter()
            name = entry.key.removesuffix(".json")
            count = orjson.loads(entry.value)["event_count"]
            for k in range(seen[name], min(count, len(sent[name]))):
                latencies.append(now - sent[name][k])
            seen[name] = max(seen[name], count)

    watching = asyncio.create_task(watch())
    publisher = Publisher(transport)
    # Events are built (validated) before the clock starts: what is timed is publishing.
    streams = {
        name: iter(
            [
                msgspec.convert(e, TranscriptEvent)
                for e in generate_events(int(rate * seconds) // sessions + 2, 7, name)
            ]
        )
        for name in sent
    }
    names = list(sent)
    tick = 0.01
    per_tick = max(1, int(rate * tick))
    in_flight: set[asyncio.Task[None]] = set()
    acked: list[float] = []

    async def send(name: str, at: float) -> None:
        await publisher.publish(name, [next(streams[name])])
        acked.append(time.perf_counter() - at)

    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < seconds:
        # The events due by now, one per session in turn, each published without waiting
        # for the acks of the ones before (an agent does not wait for the log), so the rate
        # holds even while acks are slow; a session's events still go out in order.
        due = min(int((time.perf_counter() - start) * rate) + 1, int(rate * seconds))
        while n < due:
            name = names[n % len(names)]
            sent[name].append(time.perf_counter())
            task = asyncio.create_task(send(name, sent[name][-1]))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
            n += 1
        await asyncio.sleep(max(0.0, start + (n + per_tick) / rate - time.perf_counter()))
    achieved = n / (time.perf_counter() - start)
    if in_flight:
        await asyncio.gather(*in_flight)
    deadline = time.monotonic() + 30
    while len(latencies) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    watching.cancel()
    await watcher.stop()
    await nc.close()
    await transport.close()
    latencies.sort()
    return {
        "ack_p50_ms": 1000 * statistics.median(acked),
        "events": n,
        "rate": achieved,
        "measured": len(latencies),
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(len(latencies) * 0.99) - 1],
        "max_ms": 1000 * latencies[-1],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--events", type=int, default=5000, help="events per session")
    parser.add_argument("--rate", type=int, default=1000, help="events/s for the latency run")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the latency run")
    parser.add_argument("--only", choices=("throughput", "latency"), help="run one part")
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="run the workers under cProfile, stats here"
    )
    args = parser.parse_args(argv)
    lines = [
        "# Distributed fold on NATS JetStream",
        "",
        f"Machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start.",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="smem-bench-") as tmp:
        root = Path(tmp)
        if args.only != "latency":
            lines += throughput_runs(root, args.sessions, args.events, args.profile)
        if args.only != "throughput":
            lines += latency_run(root, args.rate, args.seconds, args.profile)
    lines += [
        "",
        f"State writes: a session's state is written after {SNAPSHOT_EVERY:,} of its records "
        f"(`--snapshot-every`), else with the partition checkpoint (every {CHECKPOINT_SECONDS:g} s "
        f"under load, or when the partition is idle for {IDLE_SECONDS:g} s).",
    ]
    print("\n".join(lines))
    return 0


def throughput_runs(root: Path, sessions: int, events: int, profile: Path | None) -> list[str]:
    counts = write_sessions(root / "transcripts", sessions, events)
    lines = [
        "| workers | events | publish only (events/s) | end to end (events/s) "
        "| worker CPU per 1,000 events | records folded | partitions lost "
        "| records per state write |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for workers in (1, 2):
        run_dir = root / f"run{workers}"
        run_dir.mkdir()
        transcripts = run_dir / "transcripts"
        transcripts.symlink_to(root / "transcripts", target_is_directory=True)
        with nats_server(run_dir) as server:
            procs = start_workers(server.url, workers, run_dir, profile)
            try:
                asyncio.run(wait_ready(server.url, workers))
                ready = last_metrics(run_dir, workers)
                result = asyncio.run(throughput(server.url, transcripts, counts))
            finally:
                metrics = stop_workers(procs, run_dir)
        applied = sum(m.get("records_applied", 0) for m in metrics)
        states = sum(m.get("states_written", 0) for m in metrics) or 1
        lost = sum(m.get("partitions_lost", 0) for m in metrics)
        cpu = cpu_between(ready, metrics)
        lines.append(
            f"| {workers} | {result['events']:,} | {result['publish_eps']:,.0f} "
            f"| {result['end_to_end_eps']:,.0f} | {1000 * cpu / result['events'] * 1000:.0f} ms "
            f"| {applied:,} | {lost} | {applied / states:,.0f} |"
        )
        print(lines[-1], flush=True)
    return lines


def latency_run(root: Path, rate: int, seconds: float, profile: Path | None) -> list[str]:
    run_dir = root / "latency"
    run_dir.mkdir()
    with nats_server(run_dir) as server:
        procs = start_workers(server.url, 1, run_dir, profile)
        try:
            asyncio.run(wait_ready(server.url, 1))
            ready = last_metrics(run_dir, 1)
            lat = asyncio.run(latency(server.url, rate, seconds, 10))
        finally:
            metrics = stop_workers(procs, run_dir)
    line = (
        f"Latency, publish to memory in KV, one worker, {lat['rate']:,.0f} events/s sent "
        f"(asked {rate:,}) over 10 sessions ({lat['measured']:,} of {lat['events']:,} events "
        f"seen): p50 {lat['p50_ms']:.1f} ms, p99 {lat['p99_ms']:.1f} ms, max {lat['max_ms']:.1f} "
        f"ms (of which publish to ack p50 {lat['ack_p50_ms']:.1f} ms); "
        f"worker CPU {cpu_between(ready, metrics):.1f} s, "
        f"{metrics[0].get('memories_written', 0):,} memory writes."
    )
    print(line, flush=True)
    return ["", line]


if __name__ == "__main__":
    raise SystemExit(main())
