"""The fold's CPU cost: one long session, and a catch-up of many short ones.

``python -m benchmarks.bench_fold`` from the checkout measured (its code is the code
imported). One session: ``SessionMemoryDeriver.apply`` over a generated native transcript
(``examples/generate_sample.py``, 50,000 events, seed 1), the first run and the best of
``--repeats`` (CPU time). Catch-up: a new deriver per transcript of ``bench_watch_scale``
(1,000 transcripts of 50 events), each folded and its memory built, as ``watch`` does when it
starts on a tree. Events are read before the clock starts: only the fold is timed.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.bench_watch_scale import EVENTS, event_lines, session_of
from deriver import SessionMemoryDeriver
from session_memory.core.events import TranscriptEvent
from session_memory.formats.reader import read_records

ROOT = Path(__file__).resolve().parent.parent


def sample_events(path: Path, events: int) -> list[TranscriptEvent]:
    """The events of a generated sample, generating it first if it is missing."""
    if not path.exists():
        generator = ROOT / "examples" / "generate_sample.py"
        command = [sys.executable, str(generator), "--events", str(events), "--seed", "1"]
        subprocess.run([*command, "--out", str(path)], check=True)
    return [r for r in read_records(path) if isinstance(r, TranscriptEvent)]


def fold_seconds(transcripts: Sequence[Sequence[TranscriptEvent]]) -> float:
    """CPU seconds to fold each transcript with a new deriver and build its memory."""
    start = time.process_time()
    for events in transcripts:
        deriver = SessionMemoryDeriver()
        for event in events:
            deriver.apply(event)
        _ = deriver.memory
    return time.process_time() - start


def catch_up_transcripts(n: int) -> list[list[TranscriptEvent]]:
    transcripts = []
    for k in range(n):
        data = b"".join(event_lines(EVENTS, k, session_of(k)))
        records = read_records(io.BytesIO(data))
        transcripts.append([r for r in records if isinstance(r, TranscriptEvent)])
    return transcripts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sample", type=Path, default=Path("/tmp/bench-fold-sample50k.jsonl"))
    parser.add_argument("--events", type=int, default=50_000, help="events of a new sample")
    parser.add_argument("--transcripts", type=int, default=1000, help="transcripts to catch up")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}")
    events = sample_events(args.sample, args.events)
    runs = [fold_seconds([events]) for _ in range(args.repeats)]
    first, best = (t / len(events) * 1e6 for t in (runs[0], min(runs)))
    print(f"one session, {len(events):,} events: first {first:.2f}, best {best:.2f} us/event")
    transcripts = catch_up_transcripts(args.transcripts)
    count = sum(map(len, transcripts))
    runs = [fold_seconds(transcripts) for _ in range(3)]
    print(
        f"catch-up, {len(transcripts):,} transcripts ({count:,} events): "
        f"first {runs[0]:.2f} s, best {min(runs):.2f} s ({min(runs) / count * 1e6:.1f} us/event)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
