"""Rolling items: calls that only look (reads, searches, listings, fetches, read-only shell
commands) are folded into one line per kind, "read 14 files, latest: `a.py`, ...", counted
up by each call, instead of a line each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from deriver.keys import fold_key
from deriver.store import MemoryStore, Stamp
from deriver.wording import code, path_code, relative

__all__ = ["Fold", "Folds"]

_NOUNS: Final = {
    "ran": ("read-only command", "read-only commands"),
    "read": ("file", "files"),
    "searched": ("pattern", "patterns"),
    "listed": ("path", "paths"),
    "fetched": ("web resource", "web resources"),
}
"""The folds, by the verb their line starts with, and what they count."""
_NAMES_SHOWN: Final = 5


@dataclass(slots=True)
class Fold:
    """A rolling item: how many calls it stands for, and the latest names shown."""

    count: int = 0
    recent: list[str] = field(default_factory=list)


class Folds:
    """The rolling items of a memory, one per verb of :data:`_NOUNS`."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.folds: dict[str, Fold] = {}

    def add(self, verb: str, name: str | None, stamp: Stamp) -> None:
        """One more call of a fold, on ``name`` (a path, pattern or command) if it has one."""
        store = self.store
        fold = self.folds.setdefault(verb, Fold())
        fold.count += 1
        if name:
            self._show(fold, verb, relative(name, store.cwd) or name)
        head = f"{verb} {fold.count} {_NOUNS[verb][fold.count != 1]}"
        text = f"{head}, latest: {', '.join(reversed(fold.recent))}" if fold.recent else head
        key = fold_key(verb)
        item = store.get(key)
        if item is None:
            store.add("completed_work", f"folded_{verb}", text, stamp, key=key)
        else:
            store.update(item, stamp, text=text)

    @staticmethod
    def _show(fold: Fold, verb: str, name: str) -> None:
        """Put ``name`` first among the latest names (once), keeping a few."""
        shown = path_code(name) if verb in ("read", "listed") else code(name, 80)
        recent = fold.recent
        if shown in recent:
            recent.remove(shown)
        recent.append(shown)
        del recent[:-_NAMES_SHOWN]

    def to_state(self) -> dict[str, Any]:
        return {verb: {"count": f.count, "recent": f.recent} for verb, f in self.folds.items()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.folds = {
            verb: Fold(count=f["count"], recent=list(f["recent"])) for verb, f in state.items()
        }
