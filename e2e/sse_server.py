"""A bounded HTTP server on 127.0.0.1 that logs request bodies and answers with SSE."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Reply = Iterable[tuple[str, dict[str, Any]]]
"""Server-sent events: (event name, data object)."""

Brain = Callable[[str, dict[str, Any]], Reply | None]
"""Given the request path and body, the events to stream back (None: 404)."""


class MockModelServer:
    """Serves ``brain``'s replies; stops by itself after ``max_requests`` or ``lifetime`` s.

    Every request body is appended to ``log`` (one JSON object per line, with its path), so a
    test can assert on exactly what the client sent.
    """

    def __init__(
        self, brain: Brain, log: Path, *, max_requests: int = 200, lifetime: float = 240.0
    ) -> None:
        self.brain = brain
        self.log = log
        self.max_requests = max_requests
        self.requests = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:  # health checks, model lists
                self._send_json(404, {"error": "not found"})

            def do_HEAD(self) -> None:
                self._send_json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with server._lock:
                    server.requests += 1
                    n = server.requests
                    with server.log.open("a", encoding="utf-8") as f:
                        f.write(json.dumps({"n": n, "path": self.path, "body": body}) + "\n")
                if n > server.max_requests:
                    server.errors.append(f"request {n} over the limit")
                    self._send_json(429, {"error": "request limit of the mock reached"})
                    threading.Thread(target=server.stop, daemon=True).start()
                    return
                try:
                    reply = server.brain(self.path, body)
                except Exception as exc:  # a bug in the script: answer, and remember it
                    server.errors.append(f"{type(exc).__name__}: {exc}")
                    self._send_json(500, {"error": str(exc)})
                    return
                if reply is None:
                    self._send_json(404, {"error": f"no route {self.path}"})
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for name, data in reply:
                    chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                    self.wfile.write(chunk)
                self.wfile.flush()
                self.close_connection = True

            def _send_json(self, status: int, obj: dict[str, Any]) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def __enter__(self) -> MockModelServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def bodies(self) -> list[dict[str, Any]]:
        """Every logged request, in order."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
