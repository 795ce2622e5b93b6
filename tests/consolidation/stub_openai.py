"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1, for end-to-end CLI tests.

Each POST to ``/v1/chat/completions`` is recorded and answered with the next
queued reply: ``("tool", name, arguments)`` or ``("text", content)``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[Any, ...]


class StubServer(ThreadingHTTPServer):
    def __init__(self, replies: list[Reply]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies: deque[Reply] = deque(replies)
        self.requests: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _completion(reply: Reply, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if reply[0] == "tool":
        _, name, arguments = reply
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ]
        finish = "tool_calls"
    else:
        message["content"] = reply[1]
        finish = "stop"
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


class _Handler(BaseHTTPRequestHandler):
    server: StubServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if not self.server.replies:
            self._send(500, {"error": {"message": "the stub ran out of replies"}})
            return
        self._send(200, _completion(self.server.replies.popleft(), len(self.server.requests)))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


@contextmanager
def stub_openai(replies: list[Reply]) -> Iterator[StubServer]:
    """Serve ``replies`` on a free loopback port for the block."""
    server = StubServer(replies)
    thread = threading.Thread(target=server.serve_forever, name="stub-openai", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
