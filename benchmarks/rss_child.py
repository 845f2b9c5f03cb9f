"""Derive N streamed events in a fresh interpreter and print its peak resident memory.

Run by the benchmark as ``python -m benchmarks.rss_child --events N --seed S``; prints one
JSON line. Events are generated, validated and applied one at a time, so what grows with N
is only what the deriver keeps.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Sequence

import orjson

from deriver import SessionMemoryDeriver
from examples.generate_sample import generate_events
from session_memory.events import TranscriptEvent


def _peak_kib() -> int:
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    deriver = SessionMemoryDeriver()
    after_imports = _peak_kib()
    t0 = time.perf_counter()
    for raw in generate_events(args.events, args.seed):
        deriver.apply(TranscriptEvent.model_validate(raw))
    _ = deriver.memory
    seconds = time.perf_counter() - t0
    figures = {
        "events": deriver.event_count,
        "peak_kib": _peak_kib(),
        "after_imports_kib": after_imports,
        "snapshot_bytes": len(deriver.snapshot()),
        "seconds": seconds,
    }
    sys.stdout.write(orjson.dumps(figures).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
