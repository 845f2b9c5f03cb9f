"""What travels on the log and how a session folds it: pure, no server."""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.apps.distributed.state import SessionState, load_session
from session_memory.apps.distributed.wire import (
    Decoded,
    _decode_checked,
    decode,
    encode_batch,
    encode_held,
    encode_positioned,
    encode_record,
    partition_of,
    session_key,
)
from session_memory.core.errors import SnapshotError
from session_memory.core.events import (
    Record,
    SkippedLine,
    TranscriptEvent,
    event_fields,
    event_from_object,
)
from tests.strategies import event_dicts


def records_of(events: list[dict[str, Any]]) -> list[Record]:
    return [event_from_object(e, -1) for e in events]


class TestSessionKey:
    def test_plain_names_are_kept(self) -> None:
        """A name of letters, digits, - and _ is its own key."""
        assert session_key("t001-abc_D") == "t001-abc_D"

    @given(st.text(min_size=0, max_size=200))
    def test_any_name_gives_a_valid_subject_token(self, name: str) -> None:
        """Whatever the session is called, its key has no dot, space or wildcard."""
        key = session_key(name)
        assert key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)

    def test_partitions_are_stable(self) -> None:
        """The partition of a key does not depend on the process (no salted hash)."""
        assert partition_of("t001", 16) == 14  # crc32, the same in every process


# Integers as far as a 64-bit encoder (orjson, on the log) writes them.
_VALUES = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8)
_OPTIONAL_FIELDS = {
    "payload": st.dictionaries(st.text(max_size=8), _VALUES, max_size=3),
    "timestamp": st.none() | st.text(max_size=8),
    "session_id": st.none() | st.text(max_size=8),
    "run_id": st.none() | st.text(max_size=8),
    "step": st.none() | st.integers(-(2**63), 2**64 - 1),
    "reference_id": st.none() | st.text(max_size=8),
    "schema_version": st.integers(0, 3),
    "surprise": _VALUES,
    "zz_extra": st.dictionaries(st.text(max_size=8), _VALUES, max_size=2),
}


class TestEventObject:
    @given(
        st.fixed_dictionaries(
            {"event_id": st.text(max_size=8), "event_type": st.text(max_size=8)},
            optional=_OPTIONAL_FIELDS,
        )
    )
    def test_an_event_travels_as_its_fields_and_comes_back(self, fields: dict[str, Any]) -> None:
        """An event goes on the log as its fields without defaults and decodes to itself."""
        event = event_from_object(fields, -1)
        assert isinstance(event, TranscriptEvent)
        assert encode_record(event) == orjson.dumps({"k": "e", "ev": event_fields(event)})
        decoded = decode(encode_record(event))
        assert isinstance(decoded, Decoded) and decoded.records == [event]


# Values of every JSON type, integers as far as a 64-bit encoder writes them.
_ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
_FIELD_VALUES = st.one_of(
    st.none(), st.text(max_size=6), st.integers(-(2**63), 2**64 - 1), _ANY_JSON
)


def _mostly(valid: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid`` nine times in ten, else ``other`` (``one_of`` would draw each half the time)."""
    return st.integers(0, 9).flatmap(lambda i: other if i == 9 else valid)


def _wire_events() -> st.SearchStrategy[dict[str, Any]]:
    """Event objects with each field missing, of its own type, or of any other."""
    names = ["event_id", "event_type", "payload", "timestamp", "session_id", "run_id"]
    names += ["step", "reference_id", "schema_version"]
    typed = {
        "event_id": st.text(max_size=6),
        "event_type": st.sampled_from(["message", "tool_lifecycle", "checkpoint"]),
        "payload": st.dictionaries(st.text(max_size=4), _ANY_JSON, max_size=3),
        "step": st.integers(0, 2**40),
        "schema_version": st.integers(0, 3),
    }
    field = {n: typed.get(n, st.none() | st.text(max_size=6)) for n in names}
    fields = st.fixed_dictionaries(
        {}, optional={n: _mostly(strategy, _FIELD_VALUES) for n, strategy in field.items()}
    )
    unknown = _mostly(st.just({}), st.fixed_dictionaries({"surprise": _FIELD_VALUES}))
    return st.builds(
        lambda d, u: {"event_id": "e", "event_type": "message", **d, **u}, fields, unknown
    )


def _wire_records(positioned: bool) -> st.SearchStrategy[Any]:
    position = _mostly(
        st.tuples(st.integers(-(2**63), 2**64 - 1), st.integers(0, 3)).map(list),
        _FIELD_VALUES,
    )
    event = st.fixed_dictionaries({"k": st.just("e"), "ev": _mostly(_wire_events(), _FIELD_VALUES)})
    skip = st.fixed_dictionaries(
        {
            "k": st.just("s"),
            "o": _mostly(st.integers(-5, 2**64 - 1), _FIELD_VALUES),
            "r": _mostly(st.text(max_size=6), _FIELD_VALUES),
        }
    )
    record = st.one_of(event, event, skip)
    if positioned:
        record = st.builds(lambda r, p: {**r, "p": p}, record, position)
    return _mostly(record, _FIELD_VALUES)


def _messages() -> st.SearchStrategy[Any]:
    batch = st.fixed_dictionaries(
        {
            "k": st.just("b"),
            "src": _mostly(st.text(max_size=4), _FIELD_VALUES),
            "recs": _mostly(st.lists(_wire_records(True), max_size=4), _FIELD_VALUES),
        }
    )
    held = st.fixed_dictionaries({"k": st.just("h"), "recs": st.lists(_wire_records(False))})
    return _mostly(st.one_of(batch, batch, held, _wire_records(False)), _FIELD_VALUES)


class TestDecode:
    @given(st.binary(max_size=300))
    def test_never_raises(self, body: bytes) -> None:
        """Any bytes decode to records or to a skipped line saying why."""
        decoded = decode(body)
        assert isinstance(decoded, Decoded | SkippedLine)

    @settings(max_examples=30)
    @given(event_dicts(max_size=20))
    def test_a_batch_round_trips(self, events: list[dict[str, Any]]) -> None:
        """Records encoded in a batch decode to the same records and positions."""
        records = records_of(events)
        records.append(SkippedLine(offset=7, reason="blank line"))
        positions = [(i * 10, 0) for i in range(len(records))]
        body = encode_batch(
            "src1", [encode_positioned(r, p) for r, p in zip(records, positions, strict=True)]
        )
        decoded = decode(body)
        assert isinstance(decoded, Decoded)
        assert decoded.records == records and decoded.positions == positions

    def test_single_and_held_messages_round_trip(self) -> None:
        """An agent's single event and a held-back list decode as such."""
        event = TranscriptEvent(event_id="e1", event_type="message", payload={"role": "user"})
        single = decode(encode_record(event))
        held = decode(encode_held([event]))
        assert isinstance(single, Decoded) and single.records == [event]
        assert not single.held
        assert isinstance(held, Decoded) and held.held and held.records == [event]

    @given(_messages())
    def test_the_fast_path_decodes_as_the_checked_one(self, message: Any) -> None:
        """Whatever a JSON encoder puts on the log (events of any field types, unknown
        fields, skips, held lists, broken shapes), decoding gives what orjson and
        ``event_from_object`` give: the same events, positions and skips, the same reasons."""
        body = orjson.dumps(message)
        fast, checked = decode(body), _decode_checked(body)
        if isinstance(checked, SkippedLine):
            assert fast == checked
        else:
            assert isinstance(fast, Decoded)
            assert fast.records == checked.records
            assert (fast.held, fast.src, fast.positions) == (
                checked.held,
                checked.src,
                checked.positions,
            )


def _batches(records: list[Record], cuts: list[int]) -> list[Decoded]:
    """The records as batches from one source, cut at ``cuts``."""
    bounds = [0, *sorted(set(cuts)), len(records)]
    return [
        Decoded(
            held=False,
            records=records[a:b],
            src="f",
            positions=[(i, 0) for i in range(a, b)],
        )
        for a, b in itertools.pairwise(bounds)
        if a < b
    ]


class TestSessionState:
    @settings(max_examples=15, deadline=None)
    @given(event_dicts(max_size=30), st.data())
    def test_batches_published_again_apply_once(
        self, events: list[dict[str, Any]], data: st.DataObject
    ) -> None:
        """Batches re-sent after a restart, cut anywhere, fold to what one pass folds."""
        records = records_of(events)
        n = len(records)
        first = _batches(records, data.draw(st.lists(st.integers(0, n), max_size=4)))
        again = _batches(records, data.draw(st.lists(st.integers(0, n), max_size=4)))
        state = SessionState("s", SessionMemoryDeriver())
        for seq, batch in enumerate([*first, *again], start=1):
            state.apply(seq, batch)
        expected = SessionMemoryDeriver()
        expected.apply_all(records)
        assert state.deriver.memory == expected.memory

    def test_a_position_already_covered_is_not_applied(self) -> None:
        """A log position at or before the covered one changes nothing."""
        event = TranscriptEvent(event_id="e1", event_type="checkpoint")
        state = SessionState("s", SessionMemoryDeriver())
        assert state.apply(5, Decoded(held=False, records=[event])) == 1
        assert state.apply(5, Decoded(held=False, records=[event])) == 0
        assert state.deriver.event_count == 1

    def test_stored_state_round_trips(self) -> None:
        """dump then load gives the same fold, position, sources and held records."""
        records = records_of([{"event_id": "e1", "event_type": "checkpoint"}])
        state = SessionState("s", SessionMemoryDeriver())
        state.apply(3, Decoded(held=False, records=records, src="f", positions=[(0, 0)]))
        state.apply(4, Decoded(held=True, records=records))
        back = load_session("s", state.dump(), 9)
        assert (back.seq, back.sources, back.held, back.state_rev) == (4, {"f": (0, 0)}, records, 9)
        assert back.deriver.memory == state.deriver.memory

    @pytest.mark.parametrize(
        "data", [b"", b"{}\n{}", b'{"format": 1, "seq": 1}\nnot a snapshot', b"\xff\n\xff"]
    )
    def test_unusable_state_is_a_snapshot_error(self, data: bytes) -> None:
        """A stored state that does not restore says so (the worker then rebuilds it)."""
        with pytest.raises(SnapshotError):
            load_session("s", data, 1)
