"""The sample transcript generator in examples/: deterministic, well-formed, realistic."""

from __future__ import annotations

import importlib.util
import io
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from session_memory.core.events import KNOWN_EVENT_TYPES, TranscriptEvent
from session_memory.formats.reader import read_records

_EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_sample", _EXAMPLES / "generate_sample.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def _jsonl(n_events: int, seed: int) -> bytes:
    return b"".join(
        orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE)
        for e in gen.generate_events(n_events, seed)
    )


@pytest.fixture(scope="module")
def sample() -> list[dict[str, Any]]:
    return list(gen.generate_events(gen.DEFAULT_EVENTS, gen.DEFAULT_SEED))


def _calls(events: list[dict[str, Any]], status: str) -> set[tuple[str, str]]:
    return {
        (e["run_id"], e["payload"]["tool_call_id"])
        for e in events
        if e["event_type"] == "tool_lifecycle" and e["payload"]["status"] == status
    }


class TestDeterminism:
    def test_same_seed_gives_same_bytes(self) -> None:
        """Two generations with the same seed serialise to identical bytes."""
        assert _jsonl(2000, 3) == _jsonl(2000, 3)

    def test_different_seeds_differ(self) -> None:
        """Another seed gives another transcript."""
        assert _jsonl(500, 3) != _jsonl(500, 4)

    def test_prefix_is_stable(self) -> None:
        """Asking for fewer events gives a prefix of the longer transcript."""
        assert _jsonl(3000, 5).startswith(_jsonl(1234, 5))

    def test_committed_sample_is_the_default_output(self, tmp_path: Path) -> None:
        """examples/sample_transcript.jsonl is exactly what the CLI writes by default."""
        out = tmp_path / "sample.jsonl"
        assert gen.main(["--out", str(out)]) == 0
        assert out.read_bytes() == (_EXAMPLES / "sample_transcript.jsonl").read_bytes()


class TestShape:
    @pytest.mark.parametrize("n_events", [0, 1, 7, 2500])
    def test_exact_count(self, n_events: int) -> None:
        """Exactly the requested number of events is yielded."""
        assert sum(1 for _ in gen.generate_events(n_events, 1)) == n_events

    def test_negative_count_is_rejected(self) -> None:
        """A negative count is a ValueError, not an empty stream."""
        with pytest.raises(ValueError):
            list(gen.generate_events(-1))

    def test_event_ids_are_unique_and_sequential(self, sample: list[dict[str, Any]]) -> None:
        """Event ids are evt-1, evt-2, ... with no repeats."""
        assert [e["event_id"] for e in sample] == [f"evt-{i}" for i in range(1, len(sample) + 1)]

    def test_timestamps_are_utc_and_never_go_back(self, sample: list[dict[str, Any]]) -> None:
        """Timestamps are ISO-8601 UTC and non-decreasing."""
        stamps = [e["timestamp"] for e in sample]
        assert all(s.endswith("Z") and s[10] == "T" for s in stamps)
        assert stamps == sorted(stamps)

    def test_every_line_reads_as_an_event(self, tmp_path: Path) -> None:
        """The reader accepts every written line as a TranscriptEvent and skips none."""
        path = tmp_path / "t.jsonl"
        gen.write_transcript(path, 3000, seed=11, session_id="s-x")
        records = list(read_records(io.BytesIO(path.read_bytes())))
        assert len(records) == 3000
        assert all(isinstance(r, TranscriptEvent) for r in records)
        assert all(r.session_id == "s-x" and r.schema_version == 1 for r in records)  # type: ignore[union-attr]

    def test_lines_are_newline_terminated_objects(self, tmp_path: Path) -> None:
        """write_transcript writes one JSON object per newline-terminated line."""
        path = tmp_path / "t.jsonl"
        size = gen.write_transcript(path, 100, seed=2)
        data = path.read_bytes()
        assert size == len(data) and data.endswith(b"\n") and data.count(b"\n") == 100


class TestRealism:
    def test_all_event_types_present(self, sample: list[dict[str, Any]]) -> None:
        """The sample has all five event types, and nothing else."""
        assert {e["event_type"] for e in sample} == KNOWN_EVENT_TYPES

    def test_every_started_call_was_requested(self, sample: list[dict[str, Any]]) -> None:
        """Each started call has an earlier requested event with the same run and call id."""
        requested: set[tuple[str, str]] = set()
        for e in sample:
            if e["event_type"] != "tool_lifecycle":
                continue
            key = (e["run_id"], e["payload"]["tool_call_id"])
            if e["payload"]["status"] == "requested":
                requested.add(key)
            else:
                assert key in requested, e

    def test_call_ids_are_reused_across_runs(self, sample: list[dict[str, Any]]) -> None:
        """At least one tool_call_id appears in more than one run."""
        runs_per_id = Counter(call_id for _, call_id in _calls(sample, "requested"))
        assert max(runs_per_id.values()) > 1

    def test_dangling_calls_exist(self, sample: list[dict[str, Any]]) -> None:
        """There is an Edit or Bash started and never finished, and a call never started."""
        finished = _calls(sample, "completed") | _calls(sample, "failed")
        dangling = _calls(sample, "started") - finished
        names = {
            e["payload"]["tool_name"]
            for e in sample
            if e["event_type"] == "tool_lifecycle"
            and (e["run_id"], e["payload"]["tool_call_id"]) in dangling
        }
        assert names & {"Edit", "Bash"}
        assert _calls(sample, "requested") - _calls(sample, "started")

    def test_rule_triggers_present(self, sample: list[dict[str, Any]]) -> None:
        """The sample exercises the transitions, terminals and message kinds the rules read."""
        reasons = {e["payload"]["reason"] for e in sample if "reason" in e["payload"]}
        assert {
            "model_returned_tool_calls",
            "context_compacted",
            "stop_hook_blocking",
            "model_recovery_failed",
            "completed",
            "max_steps",
            "error",
            "interrupted",
        } <= reasons
        messages = [e["payload"] for e in sample if e["event_type"] == "message"]
        metadata = [m.get("metadata", {}) for m in messages]
        assert any(md.get("action_type") == "final" for md in metadata)
        assert any(md.get("source") == "completion_gate" for md in metadata)
        assert any(m["role"] == "assistant" and "\nDecision: " in m["content"] for m in messages)
        assert any(
            m["role"] == "user" and m["content"] in {"continue", "yes", "ok"} for m in messages
        )

    def test_tool_payloads_look_like_claude_code(self, sample: list[dict[str, Any]]) -> None:
        """Tool args use Claude Code's names; results are MyCodeAgent's envelopes, Bash's
        with its exit code in data."""
        expected = {
            "Read": {"file_path"},
            "Edit": {"file_path", "old_string", "new_string"},
            "Write": {"file_path", "content"},
            "Grep": {"pattern", "path"},
            "Glob": {"pattern"},
            "LS": {"path"},
            "TodoWrite": {"todos"},
            "Task": {"description", "prompt"},
        }
        seen: set[str] = set()
        for e in sample:
            p = e["payload"]
            if e["event_type"] != "tool_lifecycle":
                continue
            seen.add(p["tool_name"])
            if p["status"] == "requested":
                assert expected.get(p["tool_name"], {"command"}) <= p["args"].keys()
            if p["tool_name"] == "Bash" and p["status"] == "completed":
                assert isinstance(p["result"]["data"]["exit_code"], int)
                expected_status = "success" if p["result"]["data"]["exit_code"] == 0 else "partial"
                assert p["result"]["status"] == expected_status
            if p["status"] == "failed":
                assert p["result"]["status"] == "error"
                assert p["result"]["error"]["message"]
        assert seen == {*expected, "Bash"}

    def test_sample_is_small_enough_to_commit(self) -> None:
        """The committed sample stays under 2 MB."""
        assert (_EXAMPLES / "sample_transcript.jsonl").stat().st_size < 2_000_000
