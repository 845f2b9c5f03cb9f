"""Values made once per object: the items' JSON fields and Markdown lines stay exact."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings

from deriver import SessionMemoryDeriver
from session_memory.core.memory import SessionMemory
from session_memory.core.per_object import PerObject
from tests.strategies import event_dicts
from viewbuilder import render_memory


def test_a_value_is_made_once_per_object_by_identity() -> None:
    """The same object gets the value made for it; an equal but distinct one is made anew."""
    made: list[tuple[int, ...]] = []

    def make(obj: tuple[int, ...]) -> int:
        made.append(obj)
        return sum(obj)

    per = PerObject(make)
    a, b = (1, 2, 3), tuple([1, 2, 3])
    assert a is not b
    assert (per(a), per(a), per(b)) == (6, 6, 6)
    assert made == [a, b]


def test_a_full_table_forgets_everything_and_makes_values_again() -> None:
    """Past its size the table starts afresh, and what it hands out is still right."""
    per: PerObject[tuple[int], int] = PerObject(lambda obj: obj[0] * 2, size=2)
    objects = [(n,) for n in range(5)]
    assert [per(o) for o in objects] == [0, 2, 4, 6, 8]
    assert [per(o) for o in objects] == [0, 2, 4, 6, 8]
    assert len(per._table) <= 2


def _plain_json(memory: SessionMemory) -> bytes:
    return orjson.dumps(memory.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n"


@settings(max_examples=40, deadline=None)
@given(event_dicts(max_size=30))
def test_memories_sharing_items_give_the_json_and_markdown_of_fresh_ones(
    events: list[dict[str, Any]],
) -> None:
    """After every event, JSON and Markdown equal those of a copy whose items are all new."""
    deriver = SessionMemoryDeriver()
    for event in events:
        deriver.apply(event)
        memory = deriver.memory
        fresh = SessionMemory.model_validate(memory.model_dump())
        assert memory.to_json() == _plain_json(memory) == fresh.to_json()
        assert render_memory(memory) == render_memory(fresh)
