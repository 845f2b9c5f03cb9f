"""The hook's JSON codec gives exactly what the json module gives: values, bytes, errors."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from session_memory.apps.memory_dir.json_codec import dumps_compact, loads

scalars = st.none() | st.booleans() | st.integers() | st.text() | st.floats()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)


def outcome_of_json(data: bytes) -> tuple[str, object]:
    try:
        return "value", json.loads(data)
    except Exception as exc:  # the comparison is of the exceptions themselves
        return "error", (type(exc), str(exc))


def outcome(data: bytes) -> tuple[str, object]:
    try:
        return "value", loads(data)
    except Exception as exc:
        return "error", (type(exc), str(exc))


def same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN (repr keeps the types: 1 and 1.0, True and 1 differ)."""
    return repr(a) == repr(b) or (isinstance(a, float) and math.isnan(a) and math.isnan(b))  # type: ignore[arg-type]


@given(values)
def test_dumps_compact_writes_jsons_bytes(value: object) -> None:
    """Any value is written as json.dumps writes it compactly, or fails as it fails."""
    try:
        expected: object = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except Exception as exc:
        expected = (type(exc), str(exc))
    try:
        got: object = dumps_compact(value)
    except Exception as exc:
        got = (type(exc), str(exc))
    assert got == expected


@given(values)
def test_loads_reads_what_json_wrote(value: object) -> None:
    """What json writes (objects, arrays, scalars, with spacing or not) reads back alike."""
    for data in (
        json.dumps(value, ensure_ascii=False).encode(),
        json.dumps(value).encode() + b"\n",
        json.dumps(value, separators=(",", ":")).encode("utf-16"),
    ):
        kind, read = outcome(data)
        assert kind == "value"
        assert same(read, outcome_of_json(data)[1])


@given(st.binary(max_size=40) | st.builds(lambda t: b"{" + t, st.binary(max_size=40)))
def test_loads_of_any_bytes_is_json_loads(data: bytes) -> None:
    """Any bytes give json.loads's value, or its exception with its message."""
    mine, theirs = outcome(data), outcome_of_json(data)
    assert mine[0] == theirs[0]
    assert same(mine[1], theirs[1]) if mine[0] == "value" else mine[1] == theirs[1]


def test_truncated_damaged_and_trailing_input_fail_as_json_fails() -> None:
    """A cut-off object, a bad escape or extra data: json's own error and message."""
    for data in (b'{"a": ', b'{"a": "\\x"}', b'{"a": 1} x', b"[1,]", b'{"a": "\xff"}'):
        assert outcome(data) == outcome_of_json(data), data
        assert outcome(data)[0] == "error"
