"""Operations: get, metrics, graceful SIGTERM, takeover of a dead worker's sessions."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

from session_memory.apps.distributed.jetstream import connect
from session_memory.apps.distributed.keys import state_key
from session_memory.apps.distributed.state import load_session
from session_memory.apps.distributed.wire import partition_of, session_key
from tests.distributed.corpus import derived, publish_once, wait_for_equality, write_corpus
from tests.distributed.nats_helpers import NatsServer, worker_process


def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "session_memory.apps.cli", *args], capture_output=True, timeout=60
    )


async def _stored(url: str, key: str) -> tuple[bytes | None, bytes | None]:
    """The session's stored state and its partition's checkpoint."""
    transport = await connect(url, connect_seconds=20)
    try:
        state = await transport.get("state", state_key(key))
        checkpoint = await transport.get("state", f"p.{partition_of(key, 16)}")
        return (
            None if state is None else state.value,
            None if checkpoint is None else checkpoint.value,
        )
    finally:
        await transport.close()


async def _lease_keys(url: str) -> list[str]:
    transport = await connect(url, connect_seconds=20)
    try:
        return await transport.keys("leases", "")
    finally:
        await transport.close()


def latest_owned(log: Path) -> list[int]:
    """The partitions a worker's last metrics line says it owns."""
    for line in reversed(log.read_bytes().splitlines()):
        if line.startswith(b'{"metrics"'):
            owned: list[int] = orjson.loads(line)["metrics"]["partitions_owned"]
            return owned
    return []


def owner_of(logs: list[Path], partition: int, timeout: float = 10.0) -> int:
    """The worker whose metrics say it owns ``partition``, waiting while it changes hands
    (the workers go on balancing the partitions after each owns some)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for i, log in enumerate(logs):
            if partition in latest_owned(log):
                return i
        time.sleep(0.1)
    raise AssertionError(f"no worker owns partition {partition}")


def wait_until_shared(logs: list[Path], timeout: float = 30.0) -> list[list[int]]:
    """Wait until every worker owns some partitions; what each owns then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        owned = [latest_owned(log) for log in logs]
        if all(owned):
            return owned
        time.sleep(0.2)
    raise AssertionError("the workers never shared the partitions")


def test_get_prints_the_memory_from_the_bucket(server: NatsServer, tmp_path: Path) -> None:
    """get SESSION prints the Markdown, --json the JSON, as derive would print them."""
    [path] = write_corpus(tmp_path / "t", 1, 60)
    worker = worker_process(server.url, log=tmp_path / "w.log")
    try:
        publish_once(server.url, [path], tmp_path / "pub")
        assert not wait_for_equality(server.url, [path], timeout=30)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(20)
    as_json = cli("get", path.stem, "--nats", server.url, "--json")
    as_md = cli("get", path.stem, "--nats", server.url)
    local_md = cli("derive", str(path))
    assert as_json.returncode == as_md.returncode == 0
    assert as_json.stdout == derived(path)
    assert as_md.stdout == local_md.stdout


def test_get_of_an_unknown_session_is_one_line_and_exit_2(server: NatsServer) -> None:
    """A session the bucket does not hold is an error message, not a traceback."""
    result = cli("get", "nobody", "--nats", server.url)
    assert result.returncode == 2
    assert result.stderr.decode().strip().splitlines() == [
        "session-memory: error: no memory for session 'nobody' in the bucket"
    ]


def test_an_unreachable_server_is_one_line_and_exit_2() -> None:
    """No server listening: the command says so and exits 2 (after its connect retries)."""
    from tests.distributed.nats_helpers import free_port

    result = cli("get", "x", "--nats", f"nats://127.0.0.1:{free_port()}")
    assert result.returncode == 2
    assert b"cannot connect to NATS" in result.stderr


def test_sigterm_stores_state_releases_leases_and_prints_metrics(
    server: NatsServer, tmp_path: Path
) -> None:
    """SIGTERM: exit 0, state and checkpoint stored, no lease left, a last metrics line."""
    [path] = write_corpus(tmp_path / "t", 1, 50)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "session_memory.apps.cli",
            "worker",
            "--nats",
            server.url,
            "--metrics",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    publish_once(server.url, [path], tmp_path / "pub")
    assert not wait_for_equality(server.url, [path], timeout=30)
    worker.send_signal(signal.SIGTERM)
    out, _ = worker.communicate(timeout=30)
    assert worker.returncode == 0
    last = orjson.loads(out.splitlines()[-1])["metrics"]
    memory = orjson.loads(derived(path))
    assert last["records_applied"] == memory["event_count"] + memory["diagnostics"]["lines_skipped"]
    assert last["partitions_owned"] == [] and last["sessions_owned"] == 0
    assert [k for k in asyncio.run(_lease_keys(server.url)) if k.startswith("p.")] == []
    state, checkpoint = asyncio.run(_stored(server.url, session_key(path.stem)))
    assert state is not None and checkpoint is not None
    stored = load_session(path.stem, state, 1)
    assert stored.deriver.event_count == memory["event_count"]
    assert stored.seq == int(checkpoint)  # the checkpoint covers what the state covers


def test_logs_are_json_lines_and_metrics_give_lag_per_owned_partition(
    server: NatsServer, tmp_path: Path
) -> None:
    """Every log line is a JSON object with its fields; each metrics line has lag per partition."""
    [path] = write_corpus(tmp_path / "t", 1, 40)
    log = tmp_path / "w.log"
    worker = worker_process(server.url, "--metrics", "0.3", log=log)
    try:
        wait_until_shared([log])
        publish_once(server.url, [path], tmp_path / "pub")
        assert not wait_for_equality(server.url, [path], timeout=30)
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    lines = [orjson.loads(line) for line in log.read_bytes().splitlines() if line.strip()]
    metrics = [line["metrics"] for line in lines if "metrics" in line]
    logs = [line for line in lines if "metrics" not in line]
    assert all({"ts", "level", "logger", "msg"} <= line.keys() for line in logs)
    claimed = [line for line in logs if line["msg"] == "partition claimed"]
    assert sorted(line["partition"] for line in claimed) == list(range(16))
    assert any(line["msg"].startswith("stopping") for line in logs)
    assert metrics and all(
        sorted(m["lag"]) == sorted(str(p) for p in m["partitions_owned"]) for m in metrics
    )
    assert any(m["partitions_owned"] for m in metrics)


def test_a_dead_workers_sessions_are_taken_over_within_seconds(
    server: NatsServer, tmp_path: Path
) -> None:
    """SIGKILL the worker holding a session: the other folds its next events within seconds."""
    [path] = write_corpus(tmp_path / "t", 1, 120)
    whole = path.read_bytes()
    path.write_bytes(whole[: whole.rfind(b"\n", 0, len(whole) // 2) + 1])
    args = ("--lease-seconds", "2", "--metrics", "0.3")
    logs = [tmp_path / "w0.log", tmp_path / "w1.log"]
    workers = [worker_process(server.url, *args, log=log) for log in logs]
    try:
        wait_until_shared(logs)
        publish_once(server.url, [path], tmp_path / "pub")
        assert not wait_for_equality(server.url, [path], timeout=30)
        partition = partition_of(session_key(path.stem), 16)
        owner = owner_of(logs, partition)
        workers[owner].send_signal(signal.SIGKILL)
        workers[owner].wait(10)
        killed = time.monotonic()
        path.write_bytes(whole)
        publish_once(server.url, [path], tmp_path / "pub")
        assert not wait_for_equality(server.url, [path], timeout=30)
        assert time.monotonic() - killed < 10.0
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
                w.wait(20)
