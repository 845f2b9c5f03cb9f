"""Files at the edges of ``derive``: what the bucket holds and ``get`` prints is what derive says.

Each test runs a real ``nats-server``: a file in no known format, an empty file and a last
line without a newline end in the bucket as ``derive`` ends them.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.distributed.corpus import derived, publish_once, wait_for_equality
from tests.distributed.nats_helpers import NatsServer, run_cli, worker_process
from tests.distributed.test_equality import stop_all


def fold(server: NatsServer, tmp_path: Path, *paths: Path) -> None:
    """Publish the files once and wait until a worker folded each as derive reads it."""
    worker = worker_process(server.url, log=tmp_path / "w.log")
    try:
        publish_once(server.url, paths, tmp_path / "pub-state")
        assert not wait_for_equality(server.url, paths, timeout=30)
    finally:
        assert stop_all([worker]) == [0]


EVENT = (
    b'{"event_id": "e%d", "event_type": "message", '
    b'"payload": {"role": "user", "content": "step %d"}}'
)


class TestFilesAtTheEdges:
    def test_a_file_in_no_known_format_is_refused_by_get_as_by_derive(
        self, server: NatsServer, tmp_path: Path
    ) -> None:
        """JSON lines of no format: derive and get both exit 2 and say why, with the count."""
        path = tmp_path / "t" / "unknown.jsonl"
        path.parent.mkdir()
        path.write_bytes(b"".join(b'{"n": %d}\n' % n for n in range(5)))
        fold(server, tmp_path, path)
        derive = run_cli("derive", str(path))
        get = run_cli("get", "unknown", "--nats", server.url)
        for done in (derive, get):
            assert done.returncode == 2
            assert done.stdout == ""
            assert "in no known transcript format" in done.stderr
            assert "5 lines skipped" in done.stderr

    def test_an_empty_file_has_the_empty_memory_derive_prints(
        self, server: NatsServer, tmp_path: Path
    ) -> None:
        """An empty transcript: get prints derive's empty memory byte for byte, exit 0."""
        path = tmp_path / "t" / "empty.jsonl"
        path.parent.mkdir()
        path.write_bytes(b"")
        fold(server, tmp_path, path)
        got = run_cli("get", "empty", "--nats", server.url, "--json")
        assert got.returncode == 0
        assert got.stdout == run_cli("derive", str(path), "--json").stdout
        assert orjson.loads(got.stdout)["event_count"] == 0

    def test_a_last_line_without_newline_is_applied_as_derive_applies_it(
        self, server: NatsServer, tmp_path: Path
    ) -> None:
        """A last line without its newline is in the memory, and once completed is not
        applied twice; an unfinished one is skipped as derive skips it, until it is whole."""
        path = tmp_path / "t" / "partial.jsonl"
        path.parent.mkdir()
        path.write_bytes(EVENT % (1, 1) + b"\n" + EVENT % (2, 2))
        worker = worker_process(server.url, log=tmp_path / "w.log")
        try:
            state = tmp_path / "pub-state"
            for more in (b"", b"\n" + (EVENT % (3, 3))[:40], (EVENT % (3, 3))[40:] + b"\n"):
                with path.open("ab") as f:
                    f.write(more)
                publish_once(server.url, [path], state)
                assert not wait_for_equality(server.url, [path], timeout=30)
            memory = orjson.loads(derived(path))
            assert memory["event_count"] == 3 and memory["diagnostics"]["lines_skipped"] == 0
        finally:
            assert stop_all([worker]) == [0]
