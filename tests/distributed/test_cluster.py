"""A three-node cluster with replicated (R3) stream and buckets survives losing a node."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.distributed.corpus import publish_once, wait_for_equality, write_corpus
from tests.distributed.nats_helpers import nats_cluster, worker_process


def first_half(data: bytes) -> bytes:
    """The complete lines of the first half of a transcript."""
    return data[: data.rfind(b"\n", 0, len(data) // 2) + 1]


@pytest.mark.slow
def test_killing_one_node_mid_stream_loses_nothing(tmp_path: Path) -> None:
    """Publish half, SIGKILL a node while workers fold, publish the rest: all equal derive."""
    paths = write_corpus(tmp_path / "transcripts", 24, 200)
    whole = [p.read_bytes() for p in paths]
    for path, data in zip(paths, whole, strict=True):
        path.write_bytes(first_half(data))
    with nats_cluster(tmp_path) as nodes:
        urls = ",".join(n.url for n in nodes)
        survivors = ",".join(n.url for n in nodes[1:])
        workers: list[subprocess.Popen[bytes]] = []
        try:
            workers = [
                worker_process(
                    urls, "--replicas", "3", "--lease-seconds", "2", log=tmp_path / f"w{i}.log"
                )
                for i in range(2)
            ]
            publish_once(urls, paths, tmp_path / "pub-state", replicas=3)
            nodes[0].kill()
            for path, data in zip(paths, whole, strict=True):
                path.write_bytes(data)
            publish_once(survivors, paths, tmp_path / "pub-state", replicas=3)
            differing = wait_for_equality(survivors, paths, timeout=60)
            assert not differing, sorted(differing)[:5]
        finally:
            for w in workers:
                w.send_signal(signal.SIGTERM)
            codes = [w.wait(30) for w in workers]
        assert codes == [0, 0]
