"""How rules record facts in the store: decisions, verifications, counted items, failures.

Each helper adds an item or, when the item with the same key is there, changes it through
the store: the same fact again counts up one item instead of adding another.
"""

from __future__ import annotations

from deriver.keys import ItemKey, call_identity, decision_key, failure_key
from deriver.store import MemoryStore, Stamp
from deriver.wording import MAX_OPEN_CALLS
from session_memory.memory import SectionName

__all__ = ["Failures", "bump", "decision", "verification"]


def bump(
    store: MemoryStore, section: SectionName, kind: str, text: str, stamp: Stamp, key: ItemKey
) -> None:
    """Add an item, or count up and refresh the item with the same key."""
    item = store.get(key)
    if item is None:
        store.add(section, kind, text, stamp, key=key)
    else:
        store.update(item, stamp, text=text, count=item.count + 1)


def decision(store: MemoryStore, kind: str, text: str, stamp: Stamp) -> None:
    """A key decision; the same decision taken again counts up its item."""
    key = decision_key(text)
    item = store.get(key)
    if item is None:
        store.add("key_decisions", kind, text, stamp, status="decision", key=key)
    else:
        store.update(item, stamp, count=item.count + 1)


def verification(
    store: MemoryStore, kind: str, status: str, text: str, stamp: Stamp, *, key: ItemKey
) -> None:
    """A verification item: the latest status of what its key names."""
    item = store.get(key)
    if item is None:
        store.add("verification_status", kind, text, stamp, status=status, key=key)
    else:
        store.update(item, stamp, text=text, status=status, count=1)


class Failures:
    """Failed attempts, and which of them a later success of the same call resolves."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.by_call: dict[str, list[str]] = {}  # call identity -> failure item keys

    def record(
        self, kind: str, tool: str, key: str | None, text: str, stamp: Stamp, line: str = ""
    ) -> None:
        """A failed attempt; the same failure again counts up one item instead of adding."""
        store = self.store
        identity = call_identity(tool, key)
        item_key = failure_key(identity, line)
        item = store.get(item_key)
        if item is not None:
            # Failing again re-opens a resolved failure.
            store.update(
                item, stamp, text=text, status="open", count=item.count + 1,
                tier="open_failures", reopen=True,
            )  # fmt: skip
        else:
            store.add(
                "failed_attempts", kind, text, stamp, status="open", key=item_key,
                tier="open_failures",
            )  # fmt: skip
        keys = self.by_call.setdefault(identity, [])
        if item_key not in keys:
            keys.append(item_key)
        if len(self.by_call) > MAX_OPEN_CALLS:
            self.by_call = {
                k: live
                for k, v in self.by_call.items()
                if (live := [i for i in v if store.get(ItemKey(i)) is not None])
            }

    def resolve(self, tool: str, key: str | None, stamp: Stamp) -> None:
        """A success of the same tool on the same argument resolves its earlier failures."""
        keys = self.by_call.pop(call_identity(tool, key), None)
        for item_key in keys or ():
            item = self.store.get(ItemKey(item_key))
            if item is not None and item.status == "open":
                self.store.update(
                    item,
                    stamp,
                    status="resolved",
                    tier="resolved_failures",
                    touch=False,
                    closed=True,
                )
