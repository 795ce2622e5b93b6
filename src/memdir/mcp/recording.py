"""Recording the answers :mod:`memdir.mcp.answers` gives early, from the SDK's own server.

:func:`record_answers` runs the server built by
:func:`~memdir.mcp.server.build_server` on the SDK's stdio transport (its
lifespan not entered: no memory opens) and sends what hosts open with, one
request at a time:

- for every protocol version the SDK knows, and for one it cannot know: the
  ``initialize`` handshake, then ``ping`` and the tools, prompts, resources and
  resource-template lists;
- for every version of the per-request envelope: ``server/discover``,
  ``ping``, the same lists and ``subscriptions/listen`` (what Claude Code sends).

For each request it keeps the first line the SDK writes that names the
request's id (the answer; for a listen, its acknowledgement), split where the
id was. The protocol's versions and envelope keys come from the SDK's types.
``python -m memdir.mcp.recording`` rewrites the shipped ``answers.json``.
"""

from __future__ import annotations

import queue
import sys
from collections.abc import Mapping
from functools import partial
from typing import Any

import anyio
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
)
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from memdir import __version__
from memdir.mcp.answers import FORMAT, SHIPPED, UNKNOWN, answers_key, save_answers
from memdir.mcp.lines import LineInbox
from memdir.mcp.server import MemdirServer, build_server
from memdir.utils.json_text import dumps, loads

__all__ = ["LISTEN", "REQUESTS", "record_answers", "recorded_answers"]

# What a host asks once connected, in every era.
REQUESTS = ("ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list")
# The listen Claude Code opens: every list's changes.
LISTEN = {
    "notifications": {
        "toolsListChanged": True,
        "promptsListChanged": True,
        "resourcesListChanged": True,
    }
}
# A protocol version no SDK will know: what an unknown version is answered.
_UNKNOWN_VERSION = "1970-01-01"
_CLIENT = {"name": "memdir-recording", "version": __version__}
_WAIT = 60.0  # seconds for the SDK's answer: a guard against a hung server, not a measure


def recorded_answers(server: MemdirServer, key: Mapping[str, Any]) -> dict[str, Any]:
    """The answers ``server`` gives, as :mod:`memdir.mcp.answers` reads them, for ``key``."""
    return anyio.run(record_answers, server, key)


async def record_answers(server: MemdirServer, key: Mapping[str, Any]) -> dict[str, Any]:
    """Drive ``server`` with the requests hosts open with; see the module docstring."""
    initialize: dict[str, Any] = {}
    handshake: dict[str, Any] = {}
    for version in (*KNOWN_PROTOCOL_VERSIONS, _UNKNOWN_VERSION):
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": _CLIENT}
        requests = [("initialize", params), *((method, None) for method in REQUESTS)]
        first, *rest = await _conversation(server, requests)
        negotiated = loads("0".join(first))["result"]["protocolVersion"]  # any id parses
        initialize[version if version != _UNKNOWN_VERSION else UNKNOWN] = {
            "negotiated": negotiated,
            "answer": first,
        }
        if version == negotiated:
            handshake[version] = {
                method: {"params": {}, "answer": answer}
                for method, answer in zip(REQUESTS, rest, strict=True)
            }
    modern: dict[str, Any] = {}
    for version in MODERN_PROTOCOL_VERSIONS:
        asked: list[tuple[str, dict[str, Any]]] = [
            ("server/discover", {}),
            *((method, {}) for method in REQUESTS),
            ("subscriptions/listen", LISTEN),  # last: it holds its request open
        ]
        meta = {
            PROTOCOL_VERSION_META_KEY: version,
            CLIENT_INFO_META_KEY: _CLIENT,
            CLIENT_CAPABILITIES_META_KEY: {},
        }
        answers = await _conversation(server, [(m, {**p, "_meta": meta}) for m, p in asked])
        modern[version] = {
            method: {"params": params, "answer": answer}
            for (method, params), answer in zip(asked, answers, strict=True)
        }
    return {
        "format": FORMAT,
        "key": dict(key),
        "envelope": {
            "version": PROTOCOL_VERSION_META_KEY,
            "client": CLIENT_INFO_META_KEY,
            "capabilities": CLIENT_CAPABILITIES_META_KEY,
        },
        "handshake": {"initialize": initialize, "requests": handshake},
        "modern": modern,
    }


async def _conversation(
    server: MemdirServer, requests: list[tuple[str, dict[str, Any] | None]]
) -> list[list[str]]:
    """One connection: each request's first line, split where its id was."""
    inbox = LineInbox()
    outbox = _Lines()
    answers: list[list[str]] = []
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(partial(server.serve_lines, inbox, outbox, lifespan=False))
        for number, (method, params) in enumerate(requests):
            request_id = f"memdir-recording-{number}"
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            inbox.put(dumps(message) + "\n")
            line = await anyio.to_thread.run_sync(outbox.first_naming, dumps(request_id))
            answers.append(line.split(dumps(request_id)))
            if method == "initialize":
                inbox.put(dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        inbox.close()
        tasks.cancel_scope.cancel()  # a listen may still hold its request open
    return answers


class _Lines:
    """The SDK's stdout while recording: its lines, in order."""

    def __init__(self) -> None:
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._partial = ""

    def write(self, text: str) -> int:
        self._partial += text
        while "\n" in self._partial:
            line, _, self._partial = self._partial.partition("\n")
            self._lines.put(line)
        return len(text)

    def flush(self) -> None:
        """Lines are kept as they complete."""

    def first_naming(self, request_id: str) -> str:
        """The next line holding ``request_id`` (JSON text); lines before it are skipped."""
        while True:
            try:
                line = self._lines.get(timeout=_WAIT)
            except queue.Empty:
                raise RuntimeError(f"the MCP SDK wrote nothing about {request_id}") from None
            if request_id in line:
                return line


def main() -> None:
    """Record the answers of this checkout's server into the shipped ``answers.json``."""
    key = answers_key()
    if key is None:
        sys.exit("memdir: error: the MCP SDK's version or memdir's sources cannot be read")
    save_answers(SHIPPED, recorded_answers(build_server(), key))
    print(f"wrote {SHIPPED}")


if __name__ == "__main__":
    main()
