"""No secret planted anywhere in a transcript reaches the memory, its JSON or the view."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest

from deriver import SessionMemoryDeriver
from session_memory.core.memory import SessionMemory
from tests.secret_corpus import ALL_ORDINARY, ALL_SECRETS, ORDINARY, SECRETS
from tests.transcripts import FORMATS, derive, everywhere, jsonl, records
from viewbuilder import build_model_view, render_memory

_ids = count()
BIG_BUDGET = 50_000  # nothing is evicted: absence means redaction, not eviction


def ev(event_type: str, **payload: Any) -> dict[str, Any]:
    n = next(_ids)
    return {"event_id": f"e{n}", "run_id": "r", "event_type": event_type, "payload": payload}


def planted_everywhere(text: str) -> list[dict[str, Any]]:
    """One transcript with ``text`` in every place a memory item can take text from."""
    tool = {"tool_name": "Bash", "tool_call_id": "c1"}
    return [
        ev("message", role="user", content=f"First request: {text}"),
        ev("message", role="user", content=text),
        ev("message", role="assistant", content=f"Decision: {text}"),
        ev("message", role="assistant", content=text, metadata={"action_type": "final"}),
        ev("tool_lifecycle", **tool, status="requested", args={"command": text}),
        ev("tool_lifecycle", **tool, status="started", args={"command": text}),
        ev("tool_lifecycle", **tool, status="completed", result=text, exit_code=1),
        ev("tool_lifecycle", tool_name="Read", tool_call_id="c2", status="failed",
           args={"file_path": text}, error=text),
        ev("tool_lifecycle", tool_name="TodoWrite", tool_call_id="c3", status="requested",
           args={"todos": [{"content": text, "status": "pending"}]}),
        ev("tool_lifecycle", tool_name="TodoWrite", tool_call_id="c3", status="completed"),
        ev("checkpoint", checkpoint_id="k", summary=text),
        ev("state_transition", reason="model_recovery_failed", details=text),
        ev("terminal", reason="error", details={"message": text}),
    ]  # fmt: skip


def outputs(memory: SessionMemory) -> dict[str, str]:
    """Every form in which the memory leaves the library."""
    view = build_model_view(
        "You are a coding agent.", memory, [{"role": "user", "content": "go on"}]
    )
    return {
        "render_memory": render_memory(memory),
        "memory JSON": memory.to_json().decode(),
        "view JSON": view.to_json().decode(),
    }


class TestSecretsNeverReachTheMemory:
    @pytest.mark.parametrize(
        ("kind", "secret", "sentence"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in
                                                      enumerate(SECRETS)]
    )  # fmt: skip
    def test_planted_secret_is_absent_from_every_output(
        self, kind: str, secret: str, sentence: str
    ) -> None:
        """A secret in messages, tool arguments, results and errors appears in no output."""
        text = sentence.format(secret)
        memory = SessionMemoryDeriver.rebuild(
            planted_everywhere(text), budget_tokens=BIG_BUDGET
        ).memory
        for where, output in outputs(memory).items():
            assert secret not in output, f"{kind} leaked into {where}"
        assert f"[redacted:{kind}]" in outputs(memory)["render_memory"] or kind == "private-key"

    def test_corpus_is_large_and_varied(self) -> None:
        """At least 30 secrets across at least 12 kinds are planted."""
        assert len(SECRETS) >= 30
        assert len({kind for kind, _, _ in SECRETS}) >= 12


class TestOrdinaryIdentifiersSurvive:
    @pytest.mark.parametrize("text", ORDINARY)
    def test_ordinary_text_is_kept(self, text: str) -> None:
        """SHAs, UUIDs, hashes and code are not redacted: the goal keeps them verbatim."""
        memory = SessionMemoryDeriver.rebuild(
            planted_everywhere(text), budget_tokens=BIG_BUDGET
        ).memory
        assert memory.current_goal is not None
        assert memory.current_goal.text == text
        assert "[redacted" not in render_memory(memory)

    def test_corpus_is_large(self) -> None:
        """At least 30 ordinary identifiers are checked."""
        assert len(ORDINARY) >= 30


class TestCorpusInEveryFormat:
    """The whole corpus, planted in every slot of a session of each of the three formats."""

    @pytest.mark.parametrize("fmt", FORMATS)
    @pytest.mark.parametrize(
        ("kind", "secret", "sentence"),
        ALL_SECRETS,
        ids=[f"{kind}-{i}" for i, (kind, _s, _t) in enumerate(ALL_SECRETS)],
    )
    def test_secret_reaches_no_output(
        self, fmt: str, kind: str, secret: str, sentence: str
    ) -> None:
        """No line of the secret is in the Markdown, the memory JSON or the view."""
        text = sentence.format(secret)
        memory = derive(jsonl(records(fmt, everywhere(text))), fmt)
        for where, output in outputs(memory).items():
            for line in secret.splitlines():
                assert line not in output, f"{kind} leaked into {where} ({fmt})"
        assert f"[redacted:{kind}]" in outputs(memory)["render_memory"]

    @pytest.mark.parametrize("fmt", FORMATS)
    @pytest.mark.parametrize("text", ALL_ORDINARY)
    def test_ordinary_text_is_kept(self, fmt: str, text: str) -> None:
        """No ordinary string is redacted anywhere, and the goal keeps it verbatim."""
        memory = derive(jsonl(records(fmt, everywhere(text))), fmt)
        assert memory.current_goal is not None
        assert memory.current_goal.text == text
        assert "[redacted" not in outputs(memory)["memory JSON"]

    def test_corpus_is_large_and_varied(self) -> None:
        """At least 100 secrets of at least 40 kinds, and at least 50 ordinary strings."""
        assert len(ALL_SECRETS) >= 100
        assert len({kind for kind, _s, _t in ALL_SECRETS}) >= 40
        assert len(ALL_ORDINARY) >= 50
