"""``python -m benchmarks [--quick] [--out DIR]``: run every measurement, write the report.

The full run takes N up to 1,000,000 events and stays under about 20 minutes on two cores;
``--quick`` takes N up to 100,000 and about two minutes, and writes to ``results/quick/``
unless told otherwise, so that it never overwrites the committed full results. Progress goes
to standard error; the report (Markdown) goes to ``DIR/latest.md`` and standard output, the
raw figures to ``DIR/latest.json`` and the plots beside them.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchmarks import external, measure, plots, report
from benchmarks.machine import load_average, machine_facts
from benchmarks.recall import cli as recall_cli

__all__ = ["FULL", "QUICK", "Config", "Results", "main", "run"]

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Config:
    """The sizes and time limits of one run."""

    name: str
    sizes: tuple[int, ...]
    """N for the per-event latency table; the largest is also the file and restart size."""
    curve: tuple[int, ...]
    """N for the cumulative-cost curve."""
    flat_short: int
    flat_long: int
    flat_repeats: int
    step_limit_s: float
    """Rebuild-at-each-step is run for real only where it is predicted under this."""
    baseline_limit_s: float
    list_events: int
    """Events held in a list for the single rebuilds and the baseline; rebuild-at-each-step
    above this many is extrapolated."""
    rss_sizes: tuple[int, ...]
    externals: bool
    external_timeout_s: float
    seed: int = 1
    warmup_seed: int = 99
    restart_fraction: float = 0.01
    recall: bool = True
    """Score recall on the real-transcript corpus (``benchmarks.recall``, a few seconds)."""

    @property
    def largest(self) -> int:
        return max(self.sizes)


FULL = Config(
    name="full",
    sizes=(1_000, 10_000, 100_000, 1_000_000),
    curve=(100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000),
    flat_short=1_000,
    flat_long=200_000,
    flat_repeats=5,
    step_limit_s=60.0,
    baseline_limit_s=60.0,
    list_events=30_000,
    rss_sizes=(1_000, 100_000, 1_000_000),
    externals=True,
    external_timeout_s=900.0,
)

QUICK = Config(
    name="quick",
    sizes=(1_000, 10_000, 100_000),
    curve=(100, 300, 1_000, 3_000, 10_000, 30_000, 100_000),
    flat_short=1_000,
    flat_long=20_000,
    flat_repeats=3,
    step_limit_s=5.0,
    baseline_limit_s=5.0,
    list_events=10_000,
    rss_sizes=(1_000, 100_000),
    externals=True,
    external_timeout_s=240.0,
)


@dataclass
class Results:
    """Everything one run measured, and where and how."""

    config: Config
    facts: dict[str, str]
    started: float
    pass_: measure.PassResult | None = None
    flat: measure.FlatnessResult | None = None
    throughput: measure.ThroughputResult | None = None
    restart: measure.RestartResult | None = None
    steps: measure.StepRebuildResult | None = None
    baseline: measure.BaselineRun | None = None
    rss: list[measure.RssResult] = field(default_factory=list)
    scripts: list[external.ScriptRun] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)
    plot_note: str = ""
    recall: list[str] = field(default_factory=list)
    """The closing lines of the recall benchmark, which wrote ``recall.md`` beside the report."""
    seconds: float = 0.0
    text: str = ""
    """The report as written to ``latest.md``."""


class _Progress:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.t0 = time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            elapsed = time.perf_counter() - self.t0
            print(f"[{elapsed:7.1f} s] {message}", file=sys.stderr, flush=True)


def run(config: Config, out: Path, *, command: str, quiet: bool = False) -> Results:
    """Measure everything ``config`` asks for and write the report into ``out``."""
    say = _Progress(quiet)
    out.mkdir(parents=True, exist_ok=True)
    results = Results(config=config, facts=machine_facts(command), started=time.time())
    n = config.largest

    if config.recall:
        say("recall: facts of the real-transcript corpus, against Claude Code's own summary")
        results.recall = recall_cli.run_and_write(out)

    say("warming up")
    measure.warm_up(config.warmup_seed)

    say(
        f"issue 2 flatness: mean apply, {config.flat_short:,} events against the last "
        f"1,000 of {config.flat_long:,}"
    )
    results.flat = measure.flatness(
        config.flat_short,
        config.flat_long,
        config.seed,
        tail=min(1000, config.flat_short),
        repeats=config.flat_repeats,
        progress=say,
    )

    with tempfile.TemporaryDirectory(prefix="session-memory-bench-") as tmp:
        path = Path(tmp) / "transcript.jsonl"
        say(f"incremental pass: {n:,} events applied one by one (and written to a JSONL file)")
        snapshot_at = n - max(1, int(n * config.restart_fraction))
        results.pass_ = measure.incremental_pass(
            n,
            config.seed,
            config.sizes,
            [c for c in config.curve if c <= n],
            window=min(1000, min(config.sizes)),
            jsonl_path=path,
            snapshot_at=snapshot_at,
            progress=say,
        )
        say(f"throughput: {results.pass_.jsonl_bytes / 1e6:,.0f} MB file of {n:,} events")
        results.throughput = measure.throughput(path, n, progress=say)
        say(f"restart: snapshot at {snapshot_at:,} events + the last {n - snapshot_at:,}")
        results.restart = measure.restart(
            path,
            results.pass_.snapshot,
            results.pass_.snapshot_offset,
            results.pass_.snapshot_events,
            results.throughput,
        )
        results.throughput.deriver = None
    gc.collect()

    say(f"holding {config.list_events:,} validated events for rebuilds and the baseline")
    held = measure.materialise(config.list_events, config.seed)
    say("rebuild at each step: single rebuilds for the model, then for real where it is cheap")
    results.steps = measure.step_rebuild(held, config.curve, config.step_limit_s, progress=say)
    say(f"copy-on-update baseline, for up to {config.baseline_limit_s:.0f} s")
    results.baseline = measure.run_baseline(
        held, config.curve, config.baseline_limit_s, progress=say
    )
    del held
    gc.collect()

    for size in config.rss_sizes:
        say(f"peak RSS: deriving {size:,} streamed events in a fresh interpreter")
        results.rss.append(measure.peak_rss(size, config.seed))

    if config.externals:
        say("other benchmark scripts (benchmarks/bench_*.py)")
        results.scripts = external.run_scripts(
            quick=config.name != "full", timeout_s=config.external_timeout_s, progress=say
        )

    results.facts["Load average at end"] = load_average()
    say("plots")
    results.plots, results.plot_note = plots.draw(results, out)
    results.seconds = time.perf_counter() - say.t0
    results.text = report.markdown(results)
    (out / "latest.md").write_text(results.text, encoding="utf-8")
    (out / "latest.json").write_bytes(
        orjson.dumps(
            _figures(results),
            option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS,
        )
    )
    say(f"wrote {out / 'latest.md'}")
    return results


def _figures(results: Results) -> dict[str, Any]:
    """The raw figures, for machines (snapshots and derivers left out)."""

    def plain(value: object) -> Any:
        if value is None:
            return None
        data = dataclasses.asdict(value)  # type: ignore[call-overload]
        for key in ("snapshot", "deriver", "jsonl_path"):
            data.pop(key, None)
        return data

    return {
        "config": dataclasses.asdict(results.config),
        "machine": results.facts,
        "seconds": results.seconds,
        "pass": plain(results.pass_),
        "flatness": plain(results.flat),
        "throughput": plain(results.throughput),
        "restart": plain(results.restart),
        "step_rebuild": plain(results.steps),
        "baseline": plain(results.baseline),
        "rss": [plain(r) for r in results.rss],
        "scripts": [plain(s) for s in results.scripts],
        "recall": results.recall,
        "targets": [dataclasses.asdict(t) for t in report.targets(results)],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="N up to 100,000 (about two minutes)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="directory for latest.md, latest.json and the plots "
        "(default: benchmarks/results, or benchmarks/results/quick with --quick)",
    )
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    out = args.out or (HERE / "results" / "quick" if args.quick else HERE / "results")
    shown = list(sys.argv[1:] if argv is None else argv)
    command = " ".join(["python -m benchmarks", *shown])
    results = run(config, out, command=command)
    sys.stdout.write(results.text)
    return 0
