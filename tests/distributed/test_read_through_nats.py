"""``hook --nats`` and ``mcp --nats``: memories read from the workers' bucket, failures silent."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from tests import mcp_client
from tests.distributed.corpus import publish_once, wait_for_equality, write_corpus
from tests.distributed.nats_helpers import NatsServer, free_port, nats_server, worker_process
from tests.mcp_client import data_of, text_of


@pytest.fixture(scope="module")
def folded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[NatsServer, list[Path]]]:
    """A server whose bucket holds the memories of three transcripts (native, Claude, Codex)."""
    root = tmp_path_factory.mktemp("read")
    paths = write_corpus(root / "t", 3, 60)
    with nats_server(root) as server:
        worker = worker_process(server.url, log=root / "w.log")
        try:
            publish_once(server.url, paths, root / "pub")
            assert not wait_for_equality(server.url, paths, timeout=60)
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(30)
        yield server, paths


def hook(
    state: Path, event: dict[str, Any], *extra: str, timeout: float = 30
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "session_memory.apps.cli",
            "hook",
            "--state-dir",
            str(state),
            *extra,
        ],
        input=orjson.dumps(event),
        capture_output=True,
        timeout=timeout,
    )


def compact(path: Path) -> dict[str, Any]:
    return {
        "session_id": "s-1",
        "transcript_path": str(path),
        "hook_event_name": "SessionStart",
        "source": "compact",
    }


def log_lines(state: Path) -> list[str]:
    return (state / "hook.log").read_text().splitlines()


def test_hook_with_nats_injects_what_the_local_hook_injects(
    folded: tuple[NatsServer, list[Path]], tmp_path: Path
) -> None:
    """After compaction, the memory read from the bucket is the one derived locally."""
    server, paths = folded
    for path in paths:
        remote = hook(tmp_path / "remote", compact(path), "--nats", server.url)
        local = hook(tmp_path / "local", compact(path))
        assert remote.returncode == local.returncode == 0
        assert remote.stdout and remote.stdout == local.stdout


def test_hook_with_nats_for_an_unknown_session_is_silent_with_one_log_line(
    folded: tuple[NatsServer, list[Path]], tmp_path: Path
) -> None:
    """A session the bucket does not hold: nothing printed, exit 0, one line in hook.log."""
    server, _paths = folded
    event = compact(tmp_path / "nobody.jsonl")
    done = hook(tmp_path / "state", event, "--nats", server.url)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [line] = log_lines(tmp_path / "state")
    assert "no memory for session 'nobody'" in line


def test_hook_with_nats_down_is_silent_bounded_and_logs_one_line(
    folded: tuple[NatsServer, list[Path]], tmp_path: Path
) -> None:
    """No server at the URL: nothing printed, exit 0 within seconds, one line in hook.log."""
    _server, paths = folded
    url = f"nats://127.0.0.1:{free_port()}"
    started = time.monotonic()
    done = hook(tmp_path / "state", compact(paths[1]), "--nats", url, "--nats-timeout", "1")
    assert time.monotonic() - started < 10
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [line] = log_lines(tmp_path / "state")
    assert "TransportError" in line


def test_hook_with_a_silent_server_gives_up_at_its_timeout(tmp_path: Path) -> None:
    """A listener that never answers: the hook exits 0 silently after about its timeout."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"nats://127.0.0.1:{listener.getsockname()[1]}"
        event = compact(tmp_path / "t.jsonl")
        started = time.monotonic()
        done = hook(tmp_path / "state", event, "--nats", url, "--nats-timeout", "1")
        elapsed = time.monotonic() - started
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert elapsed < 8
    assert len(log_lines(tmp_path / "state")) == 1


def test_hook_without_nats_imports_neither_nats_nor_asyncio(tmp_path: Path) -> None:
    """The local hook's start-up stays as it was: the NATS path is imported only with --nats."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(
        b'{"event_id": "e1", "event_type": "message", "payload": '
        b'{"role": "user", "content": "Port the orders API to v2"}}\n'
    )
    probe = (
        "import sys\nfrom session_memory.apps.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print([m for m in ('nats', 'asyncio', 'session_memory.apps.distributed.jetstream') "
        "if m in sys.modules], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "hook", "--state-dir", str(tmp_path / "s")],
        input=orjson.dumps(compact(transcript)),
        capture_output=True,
        check=True,
    )
    assert done.stdout
    assert done.stderr.decode().strip().splitlines()[-1] == "[]"


def with_client(url: str, work: Any) -> Any:
    return mcp_client.with_client(["--nats", url, "--nats-timeout", "5"], work)


def test_mcp_with_nats_answers_from_the_bucket(
    folded: tuple[NatsServer, list[Path]], tmp_path: Path
) -> None:
    """get_memory, list_sessions, the resource and explain answer from the workers' bucket."""
    server, paths = folded
    path = paths[0]
    local = hook(tmp_path / "local", compact(path))
    expected_md = json.loads(local.stdout)["hookSpecificOutput"]["additionalContext"]

    async def work(client: Client) -> tuple[str, str, Any, str, Any, Any]:
        missing = await client.call_tool("get_memory", {"session_id": "nobody"})
        by_id = text_of(await client.call_tool("get_memory", {"session_id": path.stem}))
        by_path = text_of(await client.call_tool("get_memory", {"transcript_path": str(path)}))
        listed = await client.call_tool("list_sessions", {})
        resource = await client.read_resource(f"session-memory://{path.stem}")
        memory = json.loads(await _json_of(server.url, path.stem))
        item = next(i for s in ("todo_items", "completed_work") for i in memory[s])
        explained = await client.call_tool(
            "explain", {"item_id": item["id"], "session_id": path.stem}
        )
        shown = "".join(getattr(c, "text", "") for c in resource.contents)
        return by_id, by_path, listed, shown, explained, missing

    by_id, by_path, listed, resource, explained, missing = with_client(server.url, work)
    assert missing.is_error
    assert expected_md.endswith(by_id) and by_id == by_path == resource
    assert sorted(p.stem for p in paths) == sorted(s["session_id"] for s in data_of(listed))
    explanation = data_of(explained)
    assert explanation["session_id"] == path.stem and explanation["transcript"] is None
    assert explanation["events"] and all(e["offset"] is None for e in explanation["events"])


async def _json_of(url: str, session: str) -> str:
    from session_memory.apps.distributed.jetstream import connect_reader
    from session_memory.apps.distributed.remote import fetch_memory

    transport = await connect_reader(url)
    try:
        return (await fetch_memory(transport, session)).json.decode()
    finally:
        await transport.close()
