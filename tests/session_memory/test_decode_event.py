"""``decode_event`` reads a native line as ``orjson.loads`` and the model's validator do.

The fast path may decline a line (None: it is then read the checked way), but an event it
returns is the checked way's to the bit; and a decoding adapter, which tries it first, gives
the records of one that does not, whatever the bytes.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from session_memory.core.event_struct import DecodedEvent, Record, decode_event, event_from_object
from session_memory.core.events import TranscriptEvent
from session_memory.core.memory import SkippedLine
from session_memory.formats import NativeAdapter, make_adapter

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
]

_numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["18446744073709551615", "-9223372036854775808", "9223372036854775808"]),
    st.from_regex(r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.sampled_from(["-0", "1E400", "1e-400", "01", "1.", ".5", "+1", "NaN", "Infinity"]),
)
_strings = st.one_of(
    st.text(max_size=12).map(lambda s: orjson.dumps(s).decode()),
    st.sampled_from(['"\\ud800"', '"a\\udfffb"', '"\\u00e9"', '"\x01"', '"\\x"', '"\t"']),
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
_keys = st.one_of(st.sampled_from(_FIELDS), st.sampled_from(["payload"]), st.text(max_size=5))


@st.composite
def _lines(draw: st.DrawFn) -> bytes:
    """A line that is often a valid event, and often nearly one."""
    pairs = [("event_id", draw(_strings)), ("event_type", '"message"')]
    pairs += draw(st.lists(st.tuples(_keys, _values), max_size=6))
    pairs = draw(st.permutations(pairs))
    text = _object(pairs)
    if draw(st.booleans()):
        spaces = st.sampled_from(["", " ", "\t", "\r", "\n ", "\x0c", "\ufeff"])
        text = draw(spaces) + text + draw(spaces)
    line = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        cut = draw(st.integers(0, len(line)))
        line = line[:cut] + draw(st.binary(max_size=3)) + line[cut:]
    return line


def _exact(event: DecodedEvent | TranscriptEvent) -> bytes:
    """The event's dump, types and all (``1 == 1.0`` in Python, not here).

    Not the fields set: a struct cannot tell a field given at its default from one left out,
    and the fold does not either (``tests/deriver/test_decoded_events.py``).
    """
    model = event.model() if isinstance(event, DecodedEvent) else event
    return orjson.dumps(model.model_dump())


def _comparable(records: list[Record]) -> list[Any]:
    return [
        ("skip", r.offset, r.reason) if isinstance(r, SkippedLine) else _exact(r) for r in records
    ]


@settings(max_examples=400, deadline=None)
@given(_lines())
@example(b'{"event_id":"e","event_type":"message","payload":{"n":123456789012345678901234567}}')
@example(b'{"event_id":"e","event_type":"message","payload":{"a":1},"payload":{"b":2.0}}')
@example(b'{"event_id":"e","event_type":"message","step":1.0}')
@example(b'{"event_id":"e","event_type":"message","step":18446744073709551615}')
@example(b'{"event_id":"e","event_type":"message","payload":null}')
@example(b'{"event_id":"e","event_type":"message","extra":1}')
@example(b'{"event_id":"e","event_type":"message"} x')
def test_an_event_decoded_in_one_step_is_the_checked_one(line: bytes) -> None:
    """Whatever the line, an event ``decode_event`` returns is what the checked way makes."""
    fast = decode_event(line)
    if fast is None:
        return
    checked = event_from_object(orjson.loads(line), 0)
    assert isinstance(checked, TranscriptEvent)
    assert not checked.model_extra
    assert _exact(fast) == _exact(checked)


@settings(max_examples=300, deadline=None)
@given(st.lists(_lines(), max_size=4), st.sampled_from(["native", "auto"]))
def test_a_decoding_adapter_reads_lines_as_the_checked_one(lines: list[bytes], fmt: str) -> None:
    """Line for line, a decoding adapter gives the records a checked one gives."""
    fast, checked = make_adapter(fmt).decoding(), make_adapter(fmt)
    offset = 0
    for line in lines:
        end = offset + len(line)  # as if each were the last line, without its newline
        assert _comparable(fast.feed_line(line, offset, end)) == _comparable(
            checked.feed_line(line, offset, end)
        )
        offset = end + 1


def test_the_fast_path_is_taken_for_a_plain_event() -> None:
    """A plain native line decodes to a ``DecodedEvent`` without the validator."""
    line = b'{"event_id":"e1","event_type":"message","payload":{"role":"user"},"step":3}'
    (record,) = NativeAdapter().decoding().feed_line(line, 0)
    assert isinstance(record, DecodedEvent)
    assert record == DecodedEvent("e1", "message", {"role": "user"}, step=3)
