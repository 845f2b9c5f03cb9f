"""Item keys: the one place that builds the keys the store finds items by.

Each kind of key has its own namespace, so a path, a command and a decision text never
collide however alike they read.
"""

from __future__ import annotations

from typing import Final, Literal, NewType

__all__ = [
    "PLAN_STEPS_KEY",
    "PULL_BOXES_KEY",
    "ItemKey",
    "Verification",
    "call_identity",
    "call_key",
    "check_key",
    "check_of",
    "checkpoint_key",
    "decision_key",
    "done_key",
    "failure_key",
    "issue_key",
    "verify_key",
]

ItemKey = NewType("ItemKey", str)
"""The key of one item in the store."""

Verification = Literal["final", "stop_hook"]
"""The verification items there is only ever one of."""
_CHECK: Final = "check:"
PLAN_STEPS_KEY: Final = ItemKey("plan:verification")
"""The one todo of a plan's verification steps not seen taken."""
PULL_BOXES_KEY: Final = ItemKey("pull:unchecked")
"""The one todo of the boxes the open pull request's description left unchecked."""


def call_key(run_id: str | None, call_id: str | int) -> ItemKey:
    """An open tool call (and its todo), by run and call id: ids are reused across runs."""
    return ItemKey(f"call:{run_id or ''}\x00{call_id}")


def call_identity(tool: str, argument: str | None) -> str:
    """A tool on an argument: what a later success must match to resolve a failure."""
    return f"{tool}\x00{argument or ''}"


def failure_key(identity: str, line: str) -> ItemKey:
    """A failed attempt: the same call failing with the same first line is one item."""
    return ItemKey(f"fail:{identity}\x00{line}")


def done_key(text: str) -> ItemKey:
    return ItemKey(f"done:{text}")


def decision_key(text: str) -> ItemKey:
    return ItemKey(f"decision:{text}")


def verify_key(name: Verification) -> ItemKey:
    return ItemKey(f"verify:{name}")


def check_key(command: str) -> ItemKey:
    return ItemKey(f"{_CHECK}{command}")


def check_of(key: ItemKey) -> str:
    """What a :func:`check_key` was made of."""
    return key.removeprefix(_CHECK)


def checkpoint_key(checkpoint_id: str) -> ItemKey:
    """A compaction checkpoint, by its id: its transition and a repeat update one item."""
    return ItemKey(f"checkpoint:{checkpoint_id}")


def issue_key(issue: str) -> ItemKey:
    """An issue of a task tracker used through the shell, by its id."""
    return ItemKey(f"issue:{issue}")
