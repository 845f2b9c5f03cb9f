"""Every public entry point names the argument of a wrong type in the project's error."""

from __future__ import annotations

import functools
import inspect
import io
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver import SessionMemoryDeriver
from session_memory.apps.service import MemoryService
from session_memory.core.errors import (
    ConfigError,
    SessionMemoryError,
    SnapshotError,
    ViewInputError,
)
from session_memory.core.memory import SessionMemory
from session_memory.formats import make_adapter, read_transcript
from session_memory.formats.reader import read_events, read_records
from viewbuilder import build_model_view, render_memory
from viewbuilder.cache import MessageTokenCache
from viewbuilder.counting import message_tokens

SAMPLE = Path(__file__).parents[1] / "examples" / "sample_transcript.jsonl"

# Values of every JSON type and a few that are not; each argument rejects those it does not take.
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.text(max_size=4),
    st.binary(max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(0, 3), max_size=2),
    st.just(object()),
)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    return is_int(value) or isinstance(value, float)


def is_str(value: object) -> bool:
    return isinstance(value, str)


def is_path(value: object) -> bool:
    return isinstance(value, str | os.PathLike)


def optional(accepts: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: value is None or accepts(value)


def is_sequence(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, bytes)


class Entry(NamedTuple):
    """A public entry point: how to call it with valid arguments, and what each accepts."""

    call: Callable[..., object]
    valid: Callable[[Path], dict[str, Any]]
    accepts: Mapping[str, Callable[[object], bool]]
    error: type[SessionMemoryError]


def consumed(function: Callable[..., Iterator[object]]) -> Callable[..., object]:
    return lambda **kwargs: list(function(**kwargs))


def service(**kwargs: Any) -> object:
    return MemoryService(kwargs.pop("paths"), kwargs.pop("out_dir"), **kwargs)


ENTRIES: dict[str, Entry] = {
    "SessionMemoryDeriver": Entry(
        SessionMemoryDeriver,
        lambda _: {},
        {
            "budget_tokens": is_int,
            "encoding": is_str,
            "goal_tokens": optional(is_int),
            "dedup_window": is_int,
        },
        ConfigError,
    ),
    "SessionMemoryDeriver.restore": Entry(
        SessionMemoryDeriver.restore,
        lambda _: {"data": SessionMemoryDeriver().snapshot()},
        {"data": lambda value: isinstance(value, bytes | bytearray | memoryview)},
        SnapshotError,
    ),
    "render_memory": Entry(
        render_memory,
        lambda _: {"memory": SessionMemoryDeriver().memory},
        {"memory": lambda value: isinstance(value, SessionMemory)},
        ViewInputError,
    ),
    "build_model_view": Entry(
        build_model_view,
        lambda _: {"system_prompt": "", "memory": None, "history": []},
        {
            "system_prompt": is_sequence,
            "memory": optional(lambda value: isinstance(value, SessionMemory)),
            "history": lambda value: is_sequence(value) and not isinstance(value, str),
            "previous": optional(lambda value: False),
        },
        ViewInputError,
    ),
    "build_model_view options": Entry(
        build_model_view,
        lambda _: {"system_prompt": "", "memory": None, "history": []},
        {
            "shape": is_str,
            "context_window": optional(is_int),
            "reserve_output_tokens": is_int,
            "memory_position": is_str,
            "encoding": is_str,
            "cache": optional(lambda value: isinstance(value, MessageTokenCache)),
        },
        ConfigError,
    ),
    "message_tokens": Entry(
        message_tokens,
        lambda _: {"message": {"role": "user", "content": "hi"}},
        {"message": lambda value: isinstance(value, Mapping)},
        ViewInputError,
    ),
    "message_tokens options": Entry(
        message_tokens,
        lambda _: {"message": {"role": "user", "content": "hi"}},
        {"encoding": is_str},
        ConfigError,
    ),
    "read_transcript": Entry(
        consumed(read_transcript),
        lambda _: {"source": SAMPLE},
        {"source": is_path, "format": is_str, "max_line_bytes": is_int},
        ConfigError,
    ),
    "make_adapter": Entry(
        lambda format: make_adapter(format),
        lambda _: {"format": "auto"},
        {"format": is_str},
        ConfigError,
    ),
    "read_records": Entry(
        consumed(read_records),
        lambda _: {"source": SAMPLE},
        {"source": is_path, "max_line_bytes": is_int},
        ConfigError,
    ),
    "read_events": Entry(
        consumed(read_events),
        lambda _: {"source": SAMPLE},
        {"source": is_path, "on_skip": optional(callable)},
        ConfigError,
    ),
    "MemoryService": Entry(
        service,
        lambda tmp: {"paths": [SAMPLE], "out_dir": tmp / "out"},
        {
            "paths": lambda value: is_sequence(value) and not isinstance(value, str),
            "out_dir": is_path,
            "state_dir": optional(is_path),
            "budget_tokens": is_int,
            "encoding": is_str,
            "format": is_str,
            "stop_event": optional(lambda value: False),
            "sweep_seconds": is_number,
            "force_polling": optional(lambda value: isinstance(value, bool)),
            "clock": callable,
        },
        ConfigError,
    ),
}
CASES = [(entry, name) for entry in ENTRIES for name in ENTRIES[entry].accepts]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("arguments")


@pytest.mark.parametrize(("entry", "argument"), CASES)
@settings(max_examples=25, deadline=None)
@given(value=ANY_VALUE)
def test_a_wrong_type_raises_the_projects_error_naming_the_argument(
    entry: str, argument: str, value: object, scratch: Path
) -> None:
    """A value the argument does not take raises the entry's error, naming the argument."""
    spec = ENTRIES[entry]
    if spec.accepts[argument](value):
        return
    kwargs = spec.valid(scratch) | {argument: value}
    with pytest.raises(spec.error) as raised:
        spec.call(**kwargs)
    assert argument in str(raised.value)


@pytest.mark.parametrize(("entry", "argument"), CASES)
def test_every_argument_of_the_table_is_a_parameter_of_its_entry(entry: str, argument: str) -> None:
    """The table names real parameters, so a renamed one cannot leave its check untested."""
    functions: dict[str, Callable[..., object]] = {
        "SessionMemoryDeriver": SessionMemoryDeriver,
        "SessionMemoryDeriver.restore": SessionMemoryDeriver.restore,
        "build_model_view options": build_model_view,
        "read_transcript": read_transcript,
        "read_records": read_records,
        "read_events": read_events,
        "MemoryService": MemoryService,
    }
    function = functions.get(entry, ENTRIES[entry].call)
    names = set(inspect.signature(function).parameters)
    assert argument in names


def test_a_binary_stream_is_a_source() -> None:
    """An open binary file is a source like a path: the check does not refuse it."""
    assert list(read_records(io.BytesIO(SAMPLE.read_bytes()))) == list(read_records(SAMPLE))


def test_a_string_is_not_a_list_of_paths(tmp_path: Path) -> None:
    """A single path given where a list of paths is expected names ``paths``."""
    with pytest.raises(ConfigError, match="paths"):
        MemoryService(str(SAMPLE), tmp_path / "out")


def test_an_event_for_stopping_is_accepted(tmp_path: Path) -> None:
    """Any object with ``is_set()`` passes as ``stop_event``."""
    MemoryService([SAMPLE], tmp_path / "out", stop_event=threading.Event())


@functools.cache
def sample_snapshot() -> bytes:
    deriver = SessionMemoryDeriver()
    deriver.apply_all(read_records(SAMPLE))
    return deriver.snapshot()


SNAPSHOT_FIELDS = ["config", "seen", "event_count", "last_event_id", "session_id", "version"]
SNAPSHOT_FIELDS += ["diagnostics", "store", "rules", "store.next_id", "store.items"]


@pytest.mark.parametrize("field", SNAPSHOT_FIELDS)
@settings(max_examples=15, deadline=None)
@given(value=st.one_of(st.just("x"), st.just([]), st.just({}), st.just(True), st.floats(0, 1)))
def test_a_snapshot_field_of_the_wrong_type_is_a_snapshot_error(field: str, value: object) -> None:
    """A top-level or store field of a snapshot with a value of another type is refused."""
    state = orjson.loads(sample_snapshot())
    *parents, last = field.split(".")
    holder = state
    for parent in parents:
        holder = holder[parent]
    original = holder[last]
    if type(original) is type(value) or (original is None and isinstance(value, str)):
        return
    holder[last] = value
    with pytest.raises(SnapshotError):
        SessionMemoryDeriver.restore(orjson.dumps(state))
