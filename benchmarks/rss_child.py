"""Derive N streamed events in a fresh interpreter and print its peak resident memory.

Run by the benchmark as ``python -m benchmarks.rss_child --events N --seed S``; prints one
JSON line. Events are generated, validated and applied one at a time, so what grows with N
is only what the deriver keeps.

The peak is read twice. ``ru_maxrss`` (``resource.getrusage``) is the portable figure, but
on Linux it survives ``execve``: a child started by a large process reports at least that
process's resident size. ``VmHWM`` in ``/proc/self/status`` belongs to the new program's
address space alone, so the report uses it where it exists.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Sequence

import msgspec
import orjson

from deriver import SessionMemoryDeriver
from examples.generate_sample import generate_events
from session_memory.core.events import TranscriptEvent


def _peak_kib() -> int:
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def _hwm_kib() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    deriver = SessionMemoryDeriver()
    after_imports = _hwm_kib() or _peak_kib()
    t0 = time.perf_counter()
    for raw in generate_events(args.events, args.seed):
        deriver.apply(msgspec.convert(raw, TranscriptEvent))
    _ = deriver.memory
    seconds = time.perf_counter() - t0
    figures = {
        "events": deriver.event_count,
        "peak_kib": _hwm_kib() or _peak_kib(),
        "ru_maxrss_kib": _peak_kib(),
        "source": "VmHWM" if _hwm_kib() else "ru_maxrss",
        "after_imports_kib": after_imports,
        "snapshot_bytes": len(deriver.snapshot()),
        "seconds": seconds,
    }
    sys.stdout.write(orjson.dumps(figures).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
