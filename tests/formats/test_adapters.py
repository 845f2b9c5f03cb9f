"""Adapter behaviour that holds for every format: incremental equivalence, snapshots,
detection, tolerance of unknown records and of fields of unexpected types."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_memory.core.errors import ConfigError, SnapshotError
from session_memory.core.events import Record, TranscriptEvent
from session_memory.core.memory import SkippedLine
from session_memory.formats import (
    AutoAdapter,
    ClaudeCodeAdapter,
    CodexAdapter,
    NativeAdapter,
    classify_object,
    detect_format,
    make_adapter,
    read_transcript,
    restore_adapter,
)
from session_memory.formats.codex_calls import parse_output
from session_memory.formats.reader import iter_lines, read_records
from tests.formats.fixture_reads import ALL_FIXTURES, FIXTURES, dumped

FORMAT_OF_DIR = {"claude_code": "claude-code", "codex": "codex"}


def dump(records: list[Record]) -> list[Any]:
    return [dumped(r) for r in records]


def fed_line_by_line(path: Path, split: int) -> list[Record]:
    """Feed a file one line at a time; snapshot, serialise and restore after ``split`` lines."""
    adapter: Any = make_adapter("auto")
    out: list[Record] = []
    with path.open("rb") as stream:
        for n, (offset, line, _end) in enumerate(iter_lines(stream)):
            if n == split:
                state = orjson.loads(orjson.dumps(adapter.snapshot()))
                adapter = restore_adapter(state)
            assert line is not None
            out.extend(adapter.feed_line(line, offset))
    out.extend(adapter.finish())
    return out


class TestIncremental:
    """Feeding line by line, with a restart in between, equals reading whole."""

    @pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name[:40])
    def test_line_by_line_with_restore_equals_whole(self, path: Path) -> None:
        """For every fixture and a restart at a third, half and two thirds of its lines."""
        whole = dump(list(read_transcript(path)))
        lines = len(path.read_bytes().splitlines())
        for split in {lines // 3, lines // 2, 2 * lines // 3}:
            assert dump(fed_line_by_line(path, split)) == whole

    @pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name[:40])
    def test_event_ids_are_unique(self, path: Path) -> None:
        """Every event of a file has its own id."""
        ids = [r.event_id for r in read_transcript(path) if isinstance(r, TranscriptEvent)]
        assert len(ids) == len(set(ids))

    def test_snapshot_is_small(self) -> None:
        """A snapshot holds open calls and grouping, not the transcript."""
        path = FIXTURES / "claude_code/cc-2.1.39_subagents_agent-a2898e3.jsonl"
        adapter = ClaudeCodeAdapter()
        with path.open("rb") as stream:
            for offset, line, _ in iter_lines(stream):
                assert line is not None
                adapter.feed_line(line, offset)
                assert len(orjson.dumps(adapter.snapshot())) < 20_000

    def test_restore_rejects_a_foreign_snapshot(self) -> None:
        """A snapshot of another format, or garbage, is a SnapshotError."""
        with pytest.raises(SnapshotError):
            CodexAdapter.restore(ClaudeCodeAdapter().snapshot())
        with pytest.raises(SnapshotError):
            restore_adapter({"format": "gemini"})
        good = ClaudeCodeAdapter().snapshot()
        for bad in ({"step": "x"}, {"group": {"id": "m"}}, {"open": {"t": "Bash"}}, {"scope": 3}):
            with pytest.raises(SnapshotError):
                ClaudeCodeAdapter.restore({**good, **bad})
        with pytest.raises(SnapshotError):
            CodexAdapter.restore({**CodexAdapter().snapshot(), "sessions": {"1": 2}})


class TestDetection:
    """The format is detected from the first telling record."""

    @pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name[:40])
    def test_every_fixture_is_detected(self, path: Path) -> None:
        """Each fixture's first records name its format."""
        objects = [orjson.loads(line) for line in path.read_bytes().splitlines()[:5]]
        assert detect_format(objects) == FORMAT_OF_DIR[path.parent.name]

    def test_native_and_nothing(self) -> None:
        """Native events are native; records that say nothing leave the default, native."""
        native = {"event_id": "e", "event_type": "message", "payload": {}}
        assert detect_format([{}, 3, native]) == "native"
        assert detect_format([{"type": "mystery"}]) == "native"
        assert classify_object({"type": "user", "message": {}}) == "claude-code"
        assert classify_object({"type": "event_msg", "payload": {}}) == "codex"
        assert classify_object({"type": ["user"], "payload": {}}) is None

    def test_a_claude_code_metadata_record_first_tells_the_format(self) -> None:
        """A session that opens in plan mode starts with a ``permission-mode`` record: it is
        Claude Code's, read as such, and no line is skipped."""
        first = {"type": "permission-mode", "permissionMode": "plan", "sessionId": "s-1"}
        prompt = {"type": "user", "uuid": "u1", "sessionId": "s-1", "cwd": "/p",
                  "message": {"role": "user", "content": "add a dark theme"}}  # fmt: skip
        data = b"\n".join(orjson.dumps(r) for r in (first, prompt)) + b"\n"
        records = list(read_transcript(io.BytesIO(data), "auto"))
        assert [r.event_type for r in records if isinstance(r, TranscriptEvent)] == ["message"]
        assert len(records) == 1

    def test_native_reads_as_the_reader_does(self) -> None:
        """format native and auto on a native file equal read_records, skips included, once
        the format is known."""
        data = b'{"event_id":"a","event_type":"message","payload":{"role":"user","content":"x"}}\n'
        data += b"not json\n[1]\n"
        data += b'{"event_id":"b","event_type":"message","payload":{}}\n{"type":"user"}\n'
        data = b"\n" + data + b"{}\n" + b'{"event_id":"c"'
        expected = dump(list(read_records(io.BytesIO(data))))
        assert dump(list(read_transcript(io.BytesIO(data), "native"))) == expected
        assert dump(list(read_transcript(io.BytesIO(data), "auto"))) == expected

    def test_unknown_format_is_a_config_error(self) -> None:
        """An impossible --format fails before reading."""
        with pytest.raises(ConfigError):
            list(read_transcript(io.BytesIO(b""), "gemini"))

    def test_auto_adapter_reports_what_it_detected(self) -> None:
        """Before a telling record nothing is detected; records before it are skipped."""
        adapter = AutoAdapter()
        assert isinstance(adapter.feed({"x": 1}, 0)[0], SkippedLine)
        assert adapter.detected is None
        adapter.feed({"type": "session_meta", "payload": {"id": "s"}}, 10)
        assert adapter.detected == "codex"


CLAUDE_BAD = [
    ({"type": "brand-new-record", "uuid": "u"}, "unknown Claude Code record type"),
    ({"type": "system", "subtype": "mystery", "uuid": "u"}, "unknown Claude Code system subtype"),
    ({"type": "user", "uuid": "u", "message": "hello"}, "'message' is not an object"),
    ({"type": "assistant", "uuid": "u", "message": {"content": 5}}, "'message.content' is int"),
    ({"type": 7}, "without a string 'type'"),
]
CODEX_BAD = [
    ({"type": "inter_agent_message", "payload": {}}, "unknown Codex record type"),
    ({"type": "event_msg", "payload": {"type": "brand_new"}}, "unknown Codex event_msg type"),
    ({"type": "response_item", "payload": "text"}, "'payload' is not an object"),
    ({"type": "event_msg", "payload": {"type": "user_message", "message": 5}}, "not a string"),
    ({"type": "response_item", "payload": {"type": "function_call", "name": 3}}, "call_id"),
    (
        {
            "type": "response_item",
            "payload": {"type": "message", "role": "assistant", "content": "x"},
        },
        "'content' is not a list",
    ),
]


class TestTolerance:
    """Unknown records and fields of unexpected types are skipped and counted, never fatal."""

    @pytest.mark.parametrize(("record", "reason"), CLAUDE_BAD)
    def test_claude_code_skips(self, record: dict[str, Any], reason: str) -> None:
        """Each bad Claude Code record is one SkippedLine naming the problem."""
        adapter = ClaudeCodeAdapter()
        adapter.feed({"type": "user", "uuid": "p", "message": {"content": "go"}}, 0)
        (skip,) = adapter.feed(record, 42)
        assert isinstance(skip, SkippedLine)
        assert skip.offset == 42
        assert reason in skip.reason

    @pytest.mark.parametrize(("record", "reason"), CODEX_BAD)
    def test_codex_skips(self, record: dict[str, Any], reason: str) -> None:
        """Each bad Codex record is one SkippedLine naming the problem."""
        (skip,) = CodexAdapter().feed(record, 42)
        assert isinstance(skip, SkippedLine)
        assert reason in skip.reason

    @pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name[:40])
    def test_a_corrupted_fixture_still_reads(self, path: Path) -> None:
        """Garbage lines spliced into a real file are skipped; the rest reads as before."""
        lines = path.read_bytes().splitlines()
        junk = [b"{not json", b'{"type":"brand-new"}', b"[]"]
        spliced = b"\n".join(lines[:3] + junk + lines[3:]) + b"\n"
        records = list(read_transcript(io.BytesIO(spliced)))
        skipped = [r for r in records if isinstance(r, SkippedLine)]
        assert len(skipped) == 3

        def payloads(rs: Any) -> list[dict[str, Any]]:
            # Codex ids come from byte offsets, which the splice shifts.
            return [
                {k: v for k, v in r.payload.items() if k != "checkpoint_id"}
                for r in rs
                if isinstance(r, TranscriptEvent)
            ]

        assert payloads(records) == payloads(read_transcript(path))

    def test_partial_last_line_is_reported_as_incomplete(self) -> None:
        """A cut-off last line (the agent still writing) is skipped as incomplete."""
        path = FIXTURES / "codex/codex-0.125.0-cli_turn1_EXCERPT_019e1625_L1-19.jsonl"
        data = path.read_bytes()[:-200]
        last = list(read_transcript(io.BytesIO(data)))
        skip = [r for r in last if isinstance(r, SkippedLine)]
        assert len(skip) == 1
        assert skip[0].reason.startswith("incomplete last line")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
CLAUDE_KEYS = st.sampled_from(
    ["type", "uuid", "message", "content", "isSidechain", "isMeta", "isCompactSummary", "subtype",
     "toolUseResult", "compactMetadata", "sessionId", "agentId", "tool_use_id", "id", "name",
     "input", "is_error", "text", "stop_reason"]
)  # fmt: skip
CLAUDE_VALUES = st.sampled_from(
    ["user", "assistant", "system", "tool_use", "tool_result", "text", "compact_boundary",
     "turn_duration", "stop_hook_summary", "end_turn", "<command-name>/x</command-name>",
     "[Request interrupted by user]", "Error: Exit code 1", "t1", "m1"]
)  # fmt: skip
CODEX_KEYS = st.sampled_from(
    ["type", "payload", "role", "content", "phase", "call_id", "name", "arguments", "output",
     "input", "turn_id", "exit_code", "status", "success", "message", "session_id", "id",
     "last_agent_message", "replacement_history", "cell_id", "invocation", "result",
     "server", "tool", "task_name", "cmd", "target", "agent_id", "previous_status"]
)  # fmt: skip
CODEX_VALUES = st.sampled_from(
    ["response_item", "event_msg", "session_meta", "compacted", "message", "function_call",
     "function_call_output", "custom_tool_call_output", "exec_command_end", "task_complete",
     "user_message", "assistant", "final_answer", "write_stdin", "exec_command", "c1",
     "Process running with session ID 7\nOutput:\n", "Process exited with code 2\nOutput:\n",
     '{"session_id": 7}', '{"output": "x", "metadata": {"exit_code": 1}}',
     # Codex Desktop's code mode and agent tools
     "custom_tool_call", "custom_tool_call_output", "exec", "wait", "spawn_agent",
     "wait_agent", "mcp_tool_call_end", "patch_apply_end", "apply_patch", "7", "3",
     'await tools.exec_command({cmd: "go test ./..."}); text(JSON.stringify(r));',
     "const p = `*** Begin Patch`; await tools.apply_patch(p); tools.mcp__s__t({a: [1]})",
     "await tools.write_stdin({session_id: 7, chars: ''})",
     "Script running with cell ID 3\nWall time 10.0 seconds\nOutput:\n",
     "Script completed\nOutput:\n", "Script failed\nOutput:\nScript error:\nboom",
     '{"output": "ok", "exit_code": 0}', '{"output": "", "session_id": 7, "chunk_id": "a"}',
     "close_agent", '{"agent_id": "a1"}', "a1", '{"status": {"a1": {"errored": "boom"}}}',
     '{"previous_status": {"errored": "boom"}}', '{"previous_status": "shutdown"}']
)  # fmt: skip


def shaped(keys: st.SearchStrategy[str], values: st.SearchStrategy[str]) -> Any:
    """Objects built from a format's own vocabulary, nested, so the adapter goes deep."""
    leaf = values | JSON
    node = st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=25,
    )
    return st.lists(st.dictionaries(keys, node, max_size=6), max_size=12)


def run_total(adapter_cls: Any, objects: list[dict[str, Any]]) -> None:
    adapter = adapter_cls()
    for offset, obj in enumerate(objects):
        for record in adapter.feed(obj, offset):
            if isinstance(record, SkippedLine):
                assert not record.reason.startswith("internal error"), record.reason
        adapter = adapter_cls.restore(orjson.loads(orjson.dumps(adapter.snapshot())))
    adapter.finish()


class TestTotality:
    """No JSON object makes an adapter raise or fall into its safety net."""

    @settings(max_examples=150, deadline=None)
    @given(shaped(CLAUDE_KEYS, CLAUDE_VALUES))
    def test_claude_code(self, objects: list[dict[str, Any]]) -> None:
        """Arbitrary Claude-shaped objects."""
        run_total(ClaudeCodeAdapter, objects)

    @settings(max_examples=150, deadline=None)
    @given(shaped(CODEX_KEYS, CODEX_VALUES))
    def test_codex(self, objects: list[dict[str, Any]]) -> None:
        """Arbitrary Codex-shaped objects."""
        run_total(CodexAdapter, objects)

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.dictionaries(st.text(max_size=10), JSON, max_size=6), max_size=8))
    def test_native_and_auto(self, objects: list[dict[str, Any]]) -> None:
        """Arbitrary objects, any keys."""
        run_total(NativeAdapter, objects)
        run_total(AutoAdapter, objects)


FIXTURE_LINES = {
    p: [orjson.loads(line) for line in p.read_bytes().splitlines()] for p in ALL_FIXTURES
}
ODD_VALUES = st.sampled_from([None, 0, -1, 2.5, True, "", "x", [], [None], {}, {"type": 1}])


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists (bounded depth)."""
    found = [prefix] if prefix else []
    if len(prefix) < 5:
        if isinstance(value, dict):
            for key, inner in value.items():
                found += paths_of(inner, (*prefix, key))
        elif isinstance(value, list):
            for index, inner in enumerate(value[:4]):
                found += paths_of(inner, (*prefix, index))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = replaced(copy[head], rest, new)
    return copy


class TestMutatedFixtures:
    """Real records with one field of an unexpected type never break an adapter."""

    @settings(max_examples=200, deadline=None)
    @given(st.data())
    def test_one_field_changed_anywhere(self, data: st.DataObject) -> None:
        """Any field, at any depth, of any record of any fixture, set to an odd value."""
        path = data.draw(st.sampled_from(ALL_FIXTURES), label="fixture")
        objects = FIXTURE_LINES[path]
        index = data.draw(st.integers(0, len(objects) - 1), label="line")
        field = data.draw(st.sampled_from(paths_of(objects[index]) or [()]), label="field")
        mutated = [*objects]
        mutated[index] = replaced(objects[index], field, data.draw(ODD_VALUES, label="value"))
        if not isinstance(mutated[index], dict):
            mutated[index] = {}
        adapter: Any = make_adapter(FORMAT_OF_DIR[path.parent.name])
        records = [r for offset, obj in enumerate(mutated) for r in adapter.feed(obj, offset)]
        records += adapter.finish()
        assert not any(
            isinstance(r, SkippedLine) and r.reason.startswith("internal error") for r in records
        )


class TestCodexOutput:
    def test_codex_metadata_json(self) -> None:
        """Codex custom tool output carries it in ``metadata.exit_code`` (fixture)."""

        patch_output = (
            '{"output":"Success. Updated the following files:\\n'
            'M src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\\n",'
            '"metadata":{"exit_code":0,"duration_seconds":2.2}}'
        )
        assert parse_output(patch_output).exit_code == 0
        failing = '{"output": "boom", "metadata": {"exit_code": 3, "duration_seconds": 0.1}}'
        assert parse_output(failing).exit_code == 3

    def test_large_codex_metadata_json(self) -> None:
        """A metadata exit code after megabytes of output is still found."""

        text = '{"output": "' + "x" * (5 * 1024 * 1024) + '", "metadata": {"exit_code": 4}}'
        assert parse_output(text).exit_code == 4
