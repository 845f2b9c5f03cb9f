"""PNG plots of one run, drawn with matplotlib when it is installed (the ``bench`` extra)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchmarks.runner import Results

__all__ = ["draw"]

_DPI = 100
_SIZE = (7.5, 4.6)


def draw(results: Results, out: Path) -> tuple[list[str], str]:
    """Write the plots into ``out``; returns their file names and a note for the report."""
    if importlib.util.find_spec("matplotlib") is None:
        return [], (
            "Plots skipped: matplotlib is not installed (`pip install -e '.[bench]'`, or "
            "`make bench`)."
        )
    # Imported by name so that type checking does not need matplotlib installed.
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    plt: Any = importlib.import_module("matplotlib.pyplot")

    written: list[str] = []
    for name, plot in (
        ("cumulative.png", _cumulative),
        ("per_event.png", _per_event),
        ("throughput.png", _throughput),
    ):
        fig, ax = plt.subplots(figsize=_SIZE)
        if plot(results, ax):
            fig.tight_layout()
            fig.savefig(out / name, dpi=_DPI)
            written.append(name)
        plt.close(fig)
    return written, ""


def _series(measured: dict[int, float], extrapolated: dict[int, float]) -> tuple[Any, Any]:
    solid = sorted(measured.items())
    dashed = sorted(extrapolated.items())
    if solid and dashed:
        dashed = [solid[-1], *dashed]
    return solid, dashed


def _cumulative(results: Results, ax: Any) -> bool:
    pass_, steps, base = results.pass_, results.steps, results.baseline
    if pass_ is None or steps is None or base is None:
        return False
    inc = sorted(pass_.cumulative.items())
    ax.plot(*zip(*inc, strict=True), "o-", color="tab:green", label="incremental apply")
    for label, color, (solid, dashed) in (
        ("rebuild at each step", "tab:red", _series(steps.measured, steps.extrapolated)),
        ("copy-on-update baseline", "tab:orange", _series(base.measured, base.extrapolated)),
    ):
        if solid:
            ax.plot(*zip(*solid, strict=True), "o-", color=color, label=f"{label} (measured)")
        if dashed:
            ax.plot(
                *zip(*dashed, strict=True),
                "--",
                color=color,
                alpha=0.8,
                label=f"{label} (extrapolated)",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("events in the transcript (N)")
    ax.set_ylabel("total time to stay current (s)")
    ax.set_title("Keeping the memory current after every event")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    return True


def _per_event(results: Results, ax: Any) -> bool:
    pass_, base = results.pass_, results.baseline
    if pass_ is None or not pass_.curve:
        return False
    xs = [p for p, _, _ in pass_.curve]
    ax.plot(xs, [p50 for _, p50, _ in pass_.curve], "-", color="tab:green", label="apply p50")
    ax.plot(xs, [p99 for _, _, p99 in pass_.curve], "-", color="tab:olive", label="apply p99")
    if base is not None and base.blocks:
        bx = [mid for mid, _ in base.blocks]
        ax.plot(
            bx,
            [cost * 1e6 for _, cost in base.blocks],
            "-",
            color="tab:orange",
            label="copy-on-update baseline (measured)",
        )
        last = bx[-1]
        ext = [x for x in xs if x > last]
        if ext:
            ax.plot(
                [last, *ext],
                [base.per_event(int(x)) * 1e6 for x in [last, *ext]],
                "--",
                color="tab:orange",
                alpha=0.8,
                label="baseline (extrapolated)",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("position of the event in the transcript")
    ax.set_ylabel("time per event (µs)")
    ax.set_title("Cost of one event against its position in the transcript")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    return True


def _throughput(results: Results, ax: Any) -> bool:
    tp = results.throughput
    if tp is None:
        return False
    rows = [
        ("raw limit\n(read + orjson.loads)", tp.raw_s),
        ("read_transcript\n(decode)", tp.parse_s),
        ("full rebuild\n(read_transcript + fold)", tp.rebuild_s),
    ]
    labels = [label for label, _ in rows]
    rates = [tp.events / seconds for _, seconds in rows]
    bars = ax.barh(labels, rates, color=["tab:gray", "tab:blue", "tab:green"])
    for bar, (_, seconds) in zip(bars, rows, strict=True):
        events, mb = tp.rate(seconds)
        ax.text(
            bar.get_width(),
            bar.get_y() + bar.get_height() / 2,
            f"  {events:,.0f}/s, {mb:,.0f} MB/s",
            va="center",
            fontsize=8,
        )
    ax.axvline(100_000, color="tab:red", linestyle=":", label="issue 2 target: 100,000 events/s")
    ax.axvline(
        0.4 * rates[0], color="tab:purple", linestyle="--", label="issue 5 target: 40% of raw"
    )
    ax.invert_yaxis()
    ax.set_xlim(0, max(rates) * 1.45)
    ax.set_xlabel("events per second")
    ax.set_title(f"Rebuilding from a {tp.bytes / 1e6:,.0f} MB JSONL file of {tp.events:,} events")
    ax.legend(fontsize=8, loc="lower right")
    return True
