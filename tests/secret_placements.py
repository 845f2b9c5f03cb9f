"""Count the secrets corpus placed one slot at a time: placements, leaks and false positives.

``python -m tests.secret_placements`` plants every secret of ``tests/secret_corpus.py`` in each
slot of a session of each format (``tests/transcripts.py``: 20 slots, 3 formats), the other
slots harmless, and counts a *leak* when a line of the secret is in the rendered memory, its
JSON or the view's JSON; it plants every ordinary string the same way and counts a *false
positive* when a ``[redacted:`` marker is in the memory's JSON. The tests plant each string in
every slot at once; this gives the figures per placement, and the leaks by kind.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from tests.secret_corpus import ALL_ORDINARY, ALL_SECRETS
from tests.test_grammar import harmless
from tests.test_secrets_in_memory import outputs
from tests.transcripts import FORMATS, SLOTS, derive, jsonl, records


def _memory_outputs(fmt: str, slot: str, text: str) -> dict[str, str]:
    planted = records(fmt, lambda s: text if s == slot else harmless(s))
    return outputs(derive(jsonl(planted), fmt))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--verbose", action="store_true", help="print every leak and false positive"
    )
    options = parser.parse_args(argv)
    placements = leaks = 0
    leaked: Counter[str] = Counter()
    for kind, secret, sentence in ALL_SECRETS:
        text = sentence.format(secret)
        for fmt in FORMATS:
            for slot in SLOTS:
                placements += 1
                found = _memory_outputs(fmt, slot, text)
                if any(line in out for out in found.values() for line in secret.splitlines()):
                    leaks += 1
                    leaked[kind] += 1
                    if options.verbose:
                        print(f"leak: {kind} in {slot} ({fmt}): {text!r}")
    checked = false_positives = 0
    for text in ALL_ORDINARY:
        for fmt in FORMATS:
            for slot in SLOTS:
                checked += 1
                if "[redacted:" in _memory_outputs(fmt, slot, text)["memory JSON"]:
                    false_positives += 1
                    if options.verbose:
                        print(f"false positive in {slot} ({fmt}): {text!r}")
    kinds = len({kind for kind, _s, _t in ALL_SECRETS})
    print(
        f"{len(ALL_SECRETS)} secrets of {kinds} kinds: {placements} placements, {leaks} leaks"
        + (f" ({', '.join(f'{k} {n}' for k, n in leaked.most_common())})" if leaked else "")
    )
    print(f"{len(ALL_ORDINARY)} ordinary strings: {checked} placements, ", end="")
    print(f"{false_positives} false positives")
    return 1 if leaks or false_positives else 0


if __name__ == "__main__":
    sys.exit(main())
