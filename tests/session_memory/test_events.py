"""The event: what a JSON object becomes (an event, or a skip saying why), and back."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.core.events import (
    SkippedLine,
    TranscriptEvent,
    event_fields,
    event_from_object,
)
from session_memory.formats.reader import object_of_line

_FIELDS = [
    "event_id",
    "event_type",
    "payload",
    "timestamp",
    "session_id",
    "run_id",
    "step",
    "reference_id",
    "schema_version",
    "unknown_fields",
]

_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["18446744073709551615", "-9223372036854775808", "9223372036854775808"]),
    st.from_regex(r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
)
_strings = st.one_of(
    st.text(max_size=12).map(lambda s: orjson.dumps(s).decode()),
    st.sampled_from(['"\\ud800"', '"a\\udfffb"', '"\\u00e9"']),
)
_scalars = st.one_of(st.sampled_from(["null", "true", "false"]), _numbers, _strings)


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{orjson.dumps(k).decode()}:{v}" for k, v in pairs) + "}"


_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda vs: "[" + ",".join(vs) + "]"),
        st.lists(st.tuples(st.text(max_size=4), inner), max_size=4).map(_object),
    ),
    max_leaves=12,
)
_keys = st.one_of(st.sampled_from(_FIELDS), st.text(max_size=5))


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    """A line that is often a valid event, and often nearly one."""
    pairs = [("event_id", draw(_strings)), ("event_type", '"message"')]
    pairs += draw(st.lists(st.tuples(_keys, _values), max_size=6))
    return _object(draw(st.permutations(pairs))).encode("utf-8", "surrogatepass")


def _exact(event: TranscriptEvent) -> bytes:
    """The event's fields, types and all (``1 == 1.0`` in Python, not here)."""
    return orjson.dumps(msgspec.structs.asdict(event), option=orjson.OPT_PASSTHROUGH_DATACLASS)


class TestEventFromObject:
    def test_a_valid_object_is_an_event_with_the_defaults(self) -> None:
        """The fields given, and the declared defaults for the others."""
        event = event_from_object({"event_id": "e1", "event_type": "message", "step": 3}, 0)
        assert event == TranscriptEvent(event_id="e1", event_type="message", step=3)
        assert isinstance(event, TranscriptEvent)
        assert (event.payload, event.schema_version, event.unknown_fields) == ({}, 1, None)

    @pytest.mark.parametrize(
        ("obj", "where"),
        [
            ({"event_type": "message"}, "event_id"),
            ({"event_id": 1, "event_type": "message"}, "$.event_id"),
            ({"event_id": "e", "event_type": "message", "step": "3"}, "$.step"),
            ({"event_id": "e", "event_type": "message", "step": True}, "$.step"),
            ({"event_id": "e", "event_type": "message", "step": 1.0}, "$.step"),
            ({"event_id": "e", "event_type": "message", "payload": [1]}, "$.payload"),
            ({"event_id": "e", "event_type": "message", "payload": None}, "$.payload"),
        ],
    )
    def test_a_field_missing_or_of_the_wrong_type_is_a_skip_naming_it(
        self, obj: dict[str, Any], where: str
    ) -> None:
        """Nothing is coerced: the object is skipped, and the reason names the field."""
        skip = event_from_object(obj, 7)
        assert isinstance(skip, SkippedLine)
        assert skip.offset == 7
        assert skip.reason.startswith("invalid event: ") and where in skip.reason

    def test_unknown_fields_are_kept_that_one_too(self) -> None:
        """Fields the event does not declare are kept as they were, one named like the
        attribute that keeps them included."""
        obj = {"event_id": "e", "event_type": "message", "extra": 1, "unknown_fields": {"a": 2}}
        event = event_from_object(obj, 0)
        assert isinstance(event, TranscriptEvent)
        assert event.unknown_fields == {"extra": 1, "unknown_fields": {"a": 2}}

    @settings(max_examples=400, deadline=None)
    @given(_lines())
    @example(b'{"event_id":"e","event_type":"message","payload":{"n":123456789012345678901234567}}')
    @example(b'{"event_id":"e","event_type":"message","payload":{"a":1},"payload":{"b":2.0}}')
    @example(b'{"event_id":"e","event_type":"message","step":18446744073709551615}')
    @example(b'{"event_id":"e","event_type":"message","unknown_fields":{}}')
    def test_an_event_reads_back_from_its_fields(self, line: bytes) -> None:
        """Whatever the line, an event made of it is made again, to the bit, from
        :func:`event_fields`; the fields of the line are those of the event."""
        obj = object_of_line(line, 0)
        if isinstance(obj, SkippedLine):
            return
        event = event_from_object(obj, 0)
        if isinstance(event, SkippedLine):
            return
        fields = event_fields(event)
        again = event_from_object(orjson.loads(orjson.dumps(fields)), 0)
        assert isinstance(again, TranscriptEvent)
        assert _exact(again) == _exact(event)
        assert fields.keys() <= obj.keys()


class TestTranscriptEvent:
    def test_frozen(self) -> None:
        """An event refuses assignment."""
        event = TranscriptEvent(event_id="e1", event_type="message")
        with pytest.raises(AttributeError):
            event.event_id = "e2"  # type: ignore[misc]

    def test_copies_and_pickles_equal(self) -> None:
        """A copy and a pickled event are equal to the event."""
        event = TranscriptEvent("e1", "message", {"role": "user"}, step=0, unknown_fields={"x": 1})
        assert pickle.loads(pickle.dumps(event)) == event
        assert copy.deepcopy(event) == event

    def test_fields_at_their_default_are_left_out_of_its_object(self) -> None:
        """The JSON object of an event holds what differs from the defaults, in field
        order, then its unknown fields."""
        event = TranscriptEvent("e1", "message", step=0, unknown_fields={"x": 1})
        assert list(event_fields(event).items()) == [
            ("event_id", "e1"),
            ("event_type", "message"),
            ("step", 0),
            ("x", 1),
        ]


def test_the_deriver_counts_events_with_unknown_fields() -> None:
    """An event with unknown fields is applied, and counted."""
    deriver = SessionMemoryDeriver()
    deriver.apply({"event_id": "e1", "event_type": "message", "extra": 1})
    deriver.apply(TranscriptEvent("e2", "message"))
    assert deriver.memory.diagnostics.events_with_unknown_fields == 1
    assert deriver.event_count == 2
