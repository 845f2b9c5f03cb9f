"""Cost per call of redaction and containment on the texts a real derivation hands them.

Plain script: ``python benchmarks/bench_redact.py [--repeat 5] [--against OLD_REDACT.py]``.

It derives the bundled sample and every fixture once while recording each text the deriver passes to
``redact_secrets``, ``contain_block``, ``contain_trusted_line`` and ``quote_untrusted`` (its memo
caches are cleared first, so every distinct call is recorded), then times each function over its
recorded inputs and prints the mean microseconds of CPU time per call (the best of ``--repeat``
rounds; CPU time, so that other processes on a shared machine count less). With ``--against``,
another version of ``redact.py`` (``git show REV:session_memory/core/redact.py``) is timed on the
same inputs, round by round alternating with the current one, for a before/after comparison that a
busy machine affects alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deriver import SessionMemoryDeriver  # noqa: E402
from session_memory.core import redact  # noqa: E402
from session_memory.formats import read_transcript  # noqa: E402

SOURCES = [
    ROOT / "examples" / "sample_transcript.jsonl",
    *sorted((ROOT / "tests" / "fixtures").rglob("*.jsonl")),
]
FUNCTIONS = ("redact_secrets", "contain_block", "contain_trusted_line", "quote_untrusted")


def record_calls() -> dict[str, list[tuple[Any, ...]]]:
    """The arguments of every call the deriver makes to the containment functions."""
    import deriver

    modules = [m for name, m in sorted(sys.modules.items()) if name.startswith("deriver.")]
    assert deriver is not None and modules
    calls: dict[str, list[tuple[Any, ...]]] = {name: [] for name in FUNCTIONS}
    originals = {name: getattr(redact, name) for name in FUNCTIONS}

    def recorder(name: str) -> Callable[..., str]:
        def call(*args: Any) -> str:
            calls[name].append(args)
            result: str = originals[name](*args)
            return result

        return call

    patched = {name: recorder(name) for name in FUNCTIONS}
    saved = [
        (module, name, getattr(module, name))
        for module in modules
        for name in FUNCTIONS
        if getattr(module, name, None) is originals[name]
    ]
    for module, name, _original in saved:
        setattr(module, name, patched[name])
    for module in modules:
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if clear is not None:
                clear()
    try:
        for source in SOURCES:
            SessionMemoryDeriver.rebuild(read_transcript(source))
    finally:
        for module, name, original in saved:
            setattr(module, name, original)
    return calls


def per_call_us(function: Callable[..., str], inputs: list[tuple[Any, ...]], repeat: int) -> float:
    """The best mean microseconds per call over ``repeat`` rounds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for args in inputs:
            function(*args)
        best = min(best, time.process_time() - started)
    return best / len(inputs) * 1e6


def load(path: Path) -> Any:
    """Another version of the redact module, imported under a name of its own."""
    spec = importlib.util.spec_from_file_location("redact_other", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another redact.py to time alike")
    options = parser.parse_args()
    calls = record_calls()
    texts = [args[0] for args in calls["contain_trusted_line"] + calls["quote_untrusted"]]
    cases = [(name, name, calls[name]) for name in FUNCTIONS if calls[name]]
    goals = [(t,) for (t,) in calls["contain_block"]]  # the whole requests, as the goal has them
    cases.append(("redact_secrets (lines)", "redact_secrets", [(t,) for t in texts]))
    cases.append(("redact_secrets (goals)", "redact_secrets", goals))
    modules = [("now", redact)] + ([("against", load(options.against))] if options.against else [])
    for label, name, inputs in cases:
        chars = sum(len(args[0]) for args in inputs) / len(inputs)
        timed = [(tag, module) for tag, module in modules if hasattr(module, name)]
        best = {tag: float("inf") for tag, _m in timed}
        for _ in range(options.repeat):
            for tag, module in timed:
                best[tag] = min(best[tag], per_call_us(getattr(module, name), inputs, 1))
        figures = ", ".join(f"{tag} {us:6.2f} us/call" for tag, us in best.items())
        print(f"{label:24} {len(inputs):5} calls, {chars:6.1f} chars avg: {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
