"""``apply`` per event, streamed through one deriver: issue 35's measure of the fold's cost.

The bench generator's events (``benchmarks.measure.events``: 200,000, seed 1) are made first,
then applied one by one to one :class:`SessionMemoryDeriver`, each call timed; the figures are
the mean over events 1,000 to 3,000 and over 197,000 to 199,000 (flat: the fold costs the same
at any length), best of ``--repeats``. It imports only ``benchmarks.measure.events`` and
``deriver``, so it measures any checkout that has them, run from that checkout::

    python benchmarks/bench_apply.py
    cd OTHER && PYTHONPATH=OTHER python /path/to/benchmarks/bench_apply.py --label OTHER

Run the two one after the other, twice, and compare the ratios: the host is shared.
"""

from __future__ import annotations

import argparse
import gc
import time

from benchmarks.measure import events
from deriver import SessionMemoryDeriver

_EARLY = slice(1_000, 3_000)
_LATE = slice(197_000, 199_000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="this checkout")
    args = parser.parse_args()
    late = slice(args.events - 3_000, args.events - 1_000) if args.events != 200_000 else _LATE
    stream = list(events(args.events, 1))
    clock = time.perf_counter_ns
    early_us, late_us, whole_us = [], [], []
    for _ in range(args.repeats):
        deriver = SessionMemoryDeriver()
        apply = deriver.apply
        gc.collect()
        spent: list[int] = []
        started = clock()
        for event in stream:
            t = clock()
            apply(event)
            spent.append(clock() - t)
        whole_us.append((clock() - started) / len(stream) / 1000)
        early_us.append(sum(spent[_EARLY]) / len(spent[_EARLY]) / 1000)
        late_us.append(sum(spent[late]) / len(spent[late]) / 1000)
    print(
        f"{args.label}: apply per event {min(early_us):.2f} µs early, {min(late_us):.2f} µs "
        f"late, {min(whole_us):.2f} µs over the whole run (best of {args.repeats})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
