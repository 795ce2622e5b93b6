"""`memdir serve` on stdio answers a host at once, and every answer is the MCP SDK's.

The server is the real `memdir serve` child process, spoken to over its stdin and
stdout as a host does: the handshake era (`initialize`) and the 2026 envelope
(`server/discover`, as Claude Code opens), the version probes hosts make before
they settle, a close and a second start. The early answers (given before the SDK
is imported) are checked against the SDK's own server, line for line, and against
what the SDK's client lists.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.types import ListToolsResult, Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, KNOWN_PROTOCOL_VERSIONS

from memdir.mcp import TOOL_NAMES, build_server
from memdir.mcp.answers import (
    CACHE_NAME,
    SHIPPED,
    EarlyAnswers,
    answers_key,
    load_answers,
    read_answers,
    save_answers,
)
from memdir.mcp.lines import LineInbox
from memdir.mcp.recording import LISTEN, recorded_answers
from memdir.mcp.stdio import stdio_args

SRC = Path(__file__).resolve().parent.parent / "src"
DEADLINE = 60.0  # seconds: a guard against a hung server, never a measure
CLIENT = {"name": "test", "version": "1"}
# What Claude Code 2.1 sends in each request of the 2026 envelope.
CLAUDE_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {
        "name": "claude-code",
        "title": "Claude Code",
        "version": "2.1.332",
        "description": "Anthropic's agentic coding tool",
        "websiteUrl": "https://claude.com/claude-code",
    },
    "io.modelcontextprotocol/clientCapabilities": {
        "roots": {"listChanged": True},
        "elicitation": {"form": {}, "url": {}},
    },
}
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "ping")
WRITE = {
    "name": "write",
    "arguments": {
        "name": "Release train",
        "description": "Releases leave every second Thursday",
        "type": "project",
        "body": "Cut the branch on Wednesday.\n",
    },
}


def request(id: object, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = dict(params)
    return message


def initialize(id: object, version: str, **params: Any) -> dict[str, Any]:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT, **params}
    return request(id, "initialize", body)


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def enveloped(id: object, method: str, **params: Any) -> dict[str, Any]:
    return request(id, method, {"_meta": CLAUDE_META, **params})


class Served:
    """`memdir serve` in a child process, spoken to one JSON-RPC line at a time."""

    def __init__(self, project: Path, *args: str, env: Mapping[str, str] | None = None) -> None:
        path = os.environ.get("PYTHONPATH", "")
        environ = {**os.environ, **(env or {})}
        source = environ.pop("MEMDIR_TEST_SRC", str(SRC))
        environ["PYTHONPATH"] = f"{source}{os.pathsep}{path}" if path else source
        self.child = subprocess.Popen(
            [sys.executable, "-m", "memdir", *args, "serve", "--project", str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
        )
        self.seen: list[dict[str, Any]] = []
        self.error: str | None = None

    def send(self, *messages: Mapping[str, Any]) -> None:
        assert self.child.stdin is not None
        self.child.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in messages))
        self.child.stdin.flush()

    def answer(self, id: object) -> dict[str, Any]:
        """The next line about request ``id``: its answer, or a listen's acknowledgement."""
        assert self.child.stdout is not None
        while True:
            line = self.child.stdout.readline()
            assert line, self.stderr()
            message: dict[str, Any] = json.loads(line)
            self.seen.append(message)
            if id in (message.get("id"), _subscription(message)):
                return message

    def ask(self, message: Mapping[str, Any]) -> dict[str, Any]:
        self.send(message)
        return self.answer(message["id"])

    def close(self) -> int:
        """Close stdin (a host's way to stop the server); the exit status."""
        out, err = self.child.communicate(timeout=DEADLINE)  # closes stdin first
        self.seen.extend(json.loads(line) for line in out.splitlines())
        self.error = err.decode()
        return self.child.returncode

    def stderr(self) -> str:
        if self.error is None and self.child.poll() is not None and self.child.stderr:
            self.error = self.child.stderr.read().decode()
        return self.error if self.error is not None else "(still running)"


def _subscription(message: Mapping[str, Any]) -> object:
    meta = (message.get("params") or {}).get("_meta") or {}
    return meta.get("io.modelcontextprotocol/subscriptionId")


@pytest.fixture
def serving(project: Path) -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for served in started:
        if served.child.poll() is None:
            served.child.kill()
            served.child.wait(timeout=DEADLINE)
        for stream in (served.child.stdin, served.child.stdout, served.child.stderr):
            if stream is not None:
                stream.close()


def serve(serving: list[Served], project: Path, *args: str, **env: str) -> Served:
    served = Served(project, *args, env=env)
    serving.append(served)
    return served


def text(answer: Mapping[str, Any]) -> str:
    result = answer["result"]
    assert not result.get("isError"), result
    return str(result["content"][0]["text"])


def answered_once(seen: Sequence[Mapping[str, Any]]) -> None:
    """No request got two answers (the SDK's copy of an early answer is dropped)."""
    ids = [json.dumps(m["id"]) for m in seen if "id" in m and ("result" in m or "error" in m)]
    assert len(ids) == len(set(ids)), ids


# -- a host's session, start to end ----------------------------------------------------


def test_memdir_serve_answers_the_handshake_the_tools_and_a_tool_call_over_stdio(
    project: Path, serving: list[Served]
) -> None:
    served = serve(serving, project)
    hello = served.ask(initialize(1, "2025-06-18"))
    assert hello["result"]["protocolVersion"] == "2025-06-18"
    assert hello["result"]["serverInfo"]["name"] == "memdir"
    served.send(INITIALIZED)
    tools = served.ask(request(2, "tools/list"))["result"]["tools"]
    assert [tool["name"] for tool in tools] == list(TOOL_NAMES)
    assert "release_train.md" in text(served.ask(request(3, "tools/call", WRITE)))
    viewed = text(served.ask(request(4, "tools/call", {"name": "view", "arguments": {}})))
    assert "[Release train](release_train.md)" in viewed
    assert served.close() == 0, served.stderr()
    answered_once(served.seen)


def test_the_early_tool_list_is_the_one_the_sdks_server_lists_later(
    project: Path, serving: list[Served]
) -> None:
    served = serve(serving, project)
    served.ask(initialize(1, "2025-11-25"))
    served.send(INITIALIZED)
    early = served.ask(request(2, "tools/list"))
    # Only the SDK's server answers a tool call: from then on it answers everything.
    text(served.ask(request(3, "tools/call", {"name": "view", "arguments": {}})))
    late = served.ask(request(4, "tools/list"))
    assert early["result"] == late["result"]
    assert served.close() == 0, served.stderr()
    answered_once(served.seen)


def test_claude_codes_opening_is_answered_in_the_2026_envelope(
    project: Path, serving: list[Served]
) -> None:
    served = serve(serving, project)
    discovered = served.ask(enveloped("server-discover-probe-1", "server/discover"))
    assert "2026-07-28" in discovered["result"]["supportedVersions"]
    listen = served.ask(enveloped("listen:0", "subscriptions/listen", **LISTEN))
    assert listen["method"] == "notifications/subscriptions/acknowledged"
    tools = served.ask(enveloped(1, "tools/list"))["result"]["tools"]
    assert {tool["name"] for tool in tools} == set(TOOL_NAMES)
    call = enveloped(2, "tools/call", **WRITE)
    assert "release_train.md" in text(served.ask(call))
    assert served.close() == 0, served.stderr()
    answered_once(served.seen)
    acks = [m for m in served.seen if m.get("method") == listen["method"]]
    assert len(acks) == 1  # the SDK's own acknowledgement of the listen was dropped


@pytest.mark.parametrize("version", ["2099-01-01", "2024-01-01"], ids=["newer", "older"])
def test_a_version_probe_is_answered_and_a_close_ends_the_server_for_the_next_one(
    project: Path, serving: list[Served], version: str
) -> None:
    probe = serve(serving, project)
    answer = probe.ask(initialize("probe", version))
    assert answer["result"]["protocolVersion"] in HANDSHAKE_PROTOCOL_VERSIONS
    assert probe.close() == 0, probe.stderr()
    assert "Traceback" not in probe.stderr()

    served = serve(serving, project)
    agreed = served.ask(initialize(1, answer["result"]["protocolVersion"]))
    assert agreed["result"] == answer["result"]
    served.send(INITIALIZED)
    assert "release_train.md" in text(served.ask(request(2, "tools/call", WRITE)))
    assert served.close() == 0, served.stderr()


def test_claude_codes_probe_then_close_then_a_second_server_that_serves(
    project: Path, serving: list[Served]
) -> None:
    probe = serve(serving, project)
    probe.ask(enveloped("server-discover-probe-1", "server/discover"))
    assert probe.close() == 0, probe.stderr()
    served = serve(serving, project)
    served.ask(initialize(1, "2025-11-25"))  # the respawned server, pinned to the handshake
    served.send(INITIALIZED)
    assert "MEMORY.md" in text(served.ask(request(2, "tools/call", {"name": "view"})))
    assert served.close() == 0, served.stderr()


def test_requests_longer_than_a_pipe_holds_arrive_whole(
    project: Path, serving: list[Served]
) -> None:
    served = serve(serving, project)
    long = {**CLIENT, "description": "x" * 300_000}
    assert served.ask(initialize(1, "2025-06-18", clientInfo=long))["result"]
    served.send(INITIALIZED)
    missing = {"name": "view", "arguments": {"path": "y" * 300_000 + ".md"}}
    assert served.ask(request(2, "tools/call", missing))["result"]["isError"]
    assert served.close() == 0, served.stderr()
    answered_once(served.seen)


@pytest.mark.parametrize("round", range(3))
def test_a_recall_sent_at_once_finds_what_was_saved_before_the_server_started(
    project: Path, serving: list[Served], tmp_path: Path, round: int
) -> None:
    from memdir.api import Memdir
    from memdir.search.vectors.embeddings import bundled_model_installed

    if not bundled_model_installed():
        pytest.skip("hybrid search needs the embeddings extra and the bundled model")
    home = str(tmp_path / f"home-{round}")  # a store the server has never embedded
    Memdir.open(project, home=home).write(
        name="Deploy freeze",
        description="Deploys are frozen until the billing migration lands",
        type="project",
        body="Hold every release until 2026-12-15.",
    )
    # Hybrid search on: the server embeds the store in the background as the call comes.
    served = serve(serving, project, MEMDIR_HOME=home, MEMDIR_EMBEDDINGS="auto")
    served.ask(initialize(1, "2025-06-18"))
    served.send(INITIALIZED)
    query = {"query": "When does the deploy freeze for the billing migration end?"}
    found = served.ask(request(2, "tools/call", {"name": "recall", "arguments": query}))
    assert "2026-12-15" in text(found)
    assert served.close() == 0, served.stderr()


def test_the_click_cli_serves_stdio_the_same_way(project: Path, serving: list[Served]) -> None:
    served = serve(serving, project, "--debug")  # not the plain form: the click CLI runs
    served.ask(initialize(1, "2025-06-18"))
    served.send(INITIALIZED)
    assert "MEMORY.md" in text(served.ask(request(2, "tools/call", {"name": "view"})))
    assert served.close() == 0, served.stderr()
    answered_once(served.seen)


def test_a_memory_that_cannot_open_ends_the_server_with_one_line_naming_why(
    project: Path, serving: list[Served], tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("search_limit = [unclosed\n")
    served = serve(serving, project, MEMDIR_CONFIG=str(config))
    served.send(initialize(1, "2025-06-18"), INITIALIZED, request(2, "tools/list"))
    # Its stdin still open: the server ends by itself, when the memory fails to open.
    assert served.child.wait(timeout=DEADLINE) == 1
    assert served.close() == 1
    error = served.stderr()
    assert error.startswith("memdir: error: ") and str(config) in error, error
    assert "Traceback" not in error


# -- the answers given early are the SDK's ---------------------------------------------


def test_the_shipped_answers_are_what_the_sdk_answers_now() -> None:
    key = answers_key()
    assert key is not None
    current = recorded_answers(build_server(), key)
    if os.environ.get("MEMDIR_UPDATE_SNAPSHOTS") == "1":
        save_answers(SHIPPED, current)
    fix = "run `.venv/bin/python -m memdir.mcp.recording` (or MEMDIR_UPDATE_SNAPSHOTS=1)"
    shipped = read_answers(SHIPPED)
    assert shipped is not None, f"no answers.json: {fix}"
    answers = {name: value for name, value in shipped.items() if name != "key"}
    assert answers == {name: value for name, value in current.items() if name != "key"}, (
        f"answers.json differs from what the SDK's server answers: {fix}"
    )
    # Recorded for other sources or versions, it is never used: every start answers late.
    assert shipped["key"] == key, f"answers.json was recorded for {shipped['key']}: {fix}"


def test_the_early_tools_are_the_tools_the_sdks_client_lists(project: Path) -> None:
    async def listed() -> list[Tool]:
        async with Client(build_server(project)) as client:
            return (await client.list_tools()).tools

    from_sdk = anyio.run(listed)
    for opening in (
        [initialize(1, "2025-11-25"), INITIALIZED, request(2, "tools/list")],
        [enveloped(1, "server/discover"), enveloped(2, "tools/list")],
    ):
        line = early_lines(opening)[len(opening) - 1]
        assert line is not None
        early = ListToolsResult.model_validate(json.loads(line)["result"]).tools
        assert [t.name for t in early] == [t.name for t in from_sdk]
        for mine, theirs in zip(early, from_sdk, strict=True):
            assert mine.description == theirs.description, mine.name
            assert mine.input_schema == theirs.input_schema, mine.name
            assert mine.annotations == theirs.annotations, mine.name


# Handshakes the early answers accept (the first two) or leave to the SDK (the others).
HANDSHAKES: dict[str, dict[str, Any]] = {
    "sampling and an unknown capability": {
        "capabilities": {"sampling": {"tools": {}}, "custom": 5}
    },
    "a null flag": {"capabilities": {"roots": {"listChanged": None}}},
    "a flag that is not one": {"capabilities": {"roots": {"listChanged": "yes"}}},
    "a capability that is not an object": {"capabilities": {"elicitation": {"form": "yes"}}},
    "icons": {"clientInfo": {**CLIENT, "icons": [{"src": 5}]}},
    "no client version": {"clientInfo": {"name": "no version"}},
    "params the SDK may read": {"_meta": {"progressToken": 1}},
}

CONVERSATIONS: dict[str, list[dict[str, Any]]] = {
    **{
        f"handshake {version}": [
            initialize(1, version),
            INITIALIZED,
            *(request(n, method) for n, method in enumerate(LISTS, start=2)),
        ]
        for version in (*KNOWN_PROTOCOL_VERSIONS, "2099-01-01", "2024-01-01", "")
    },
    "handshake, ids of every kind and empty params": [
        initialize("héllo \u2603", "2025-06-18", clientInfo={**CLIENT, "title": "T"}),
        request(0, "tools/list", {}),
        request("x" * 300, "prompts/list"),
        request(-7, "ping", {}),
    ],
    **{
        f"a handshake with {name}": [initialize(1, "2025-06-18", **params), request(2, "ping")]
        for name, params in HANDSHAKES.items()
    },
    "a list before the handshake, then the handshake": [
        request(1, "tools/list"),
        initialize(2, "2025-06-18"),
        request(3, "tools/list"),
    ],
    "a second handshake": [initialize(1, "2025-06-18"), initialize(2, "2024-11-05")],
    "the envelope after the handshake": [
        initialize(1, "2025-06-18"),
        enveloped(2, "tools/list"),
    ],
    "Claude Code's opening": [
        enveloped("server-discover-probe-1", "server/discover"),
        enveloped("listen:0", "subscriptions/listen", **LISTEN),
        enveloped(0, "server/discover"),
        *(enveloped(n, method) for n, method in enumerate(LISTS, start=1)),
    ],
    "the envelope with versions and fields the SDK refuses or may read differently": [
        enveloped(1, "server/discover"),
        request(2, "tools/list", {"_meta": {**CLAUDE_META, VERSION_KEY: "2099-01-01"}}),
        request(3, "tools/list", {"_meta": {VERSION_KEY: "2026-07-28"}}),
        request(4, "tools/list", {"_meta": {**CLAUDE_META, "progressToken": 1}}),
        request(5, "tools/list", {"_meta": CLAUDE_META, "cursor": "x"}),
        enveloped(6, "subscriptions/listen", notifications={"toolsListChanged": True}),
        initialize(7, "2025-06-18"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(CONVERSATIONS))
def test_every_early_answer_is_the_line_the_sdks_server_writes(name: str) -> None:
    messages = CONVERSATIONS[name]
    early = early_lines(messages)
    sdk = anyio.run(sdk_lines, messages)
    for index, line in early.items():
        if line is not None:
            assert line == sdk[index], (index, messages[index])


@pytest.mark.parametrize(
    ("name", "answered"),
    [
        ("handshake 2025-06-18", {0, 2, 3, 4, 5, 6}),
        ("handshake 2099-01-01", {0, 2, 3, 4, 5, 6}),
        ("handshake, ids of every kind and empty params", {0, 1, 2, 3}),
        ("a handshake with sampling and an unknown capability", {0, 1}),
        ("a handshake with a null flag", {0, 1}),
        ("a handshake with a flag that is not one", set()),
        ("a handshake with a capability that is not an object", set()),
        ("a handshake with icons", set()),
        ("a handshake with no client version", set()),
        ("a handshake with params the SDK may read", set()),
        ("a list before the handshake, then the handshake", {1, 2}),
        ("a second handshake", {0}),
        ("the envelope after the handshake", {0}),
        ("Claude Code's opening", {0, 1, 2, 3, 4, 5, 6, 7}),
        ("the envelope with versions and fields the SDK refuses or may read differently", {0}),
    ],
)
def test_what_is_answered_early_and_what_waits_for_the_sdk(name: str, answered: set[int]) -> None:
    early = early_lines(CONVERSATIONS[name])
    assert {index for index, line in early.items() if line is not None} == answered


def early_lines(messages: Sequence[Mapping[str, Any]]) -> dict[int, str | None]:
    """Each request's early answer (None: the SDK answers it), by its index in ``messages``."""
    key = answers_key()
    assert key is not None
    recorded = load_answers(key, os.environ)
    assert recorded is not None, "no answers for these versions: see the test of answers.json"
    early = EarlyAnswers(recorded)
    lines: dict[int, str | None] = {}
    for index, message in enumerate(messages):
        answer, _ = early.reply(json.dumps(message))
        if "id" in message:
            lines[index] = answer
    return lines


async def sdk_lines(messages: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """The first line the SDK's server writes about each request, by its index."""
    inbox = LineInbox()
    outbox = _Collected()
    lines: dict[int, str] = {}
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: build_server().serve_lines(inbox, outbox, lifespan=False))
        for index, message in enumerate(messages):
            inbox.put(json.dumps(message) + "\n")
            if "id" in message:
                lines[index] = await anyio.to_thread.run_sync(outbox.about, message["id"])
        inbox.close()
        tasks.cancel_scope.cancel()
    return lines


class _Collected:
    def __init__(self) -> None:
        import queue

        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.lines.put(line)
        return len(text)

    def flush(self) -> None:
        pass

    def about(self, id: object) -> str:
        while True:
            line = self.lines.get(timeout=DEADLINE)
            message = json.loads(line)
            if id in (message.get("id"), _subscription(message)):
                return line


# -- where the answers come from -------------------------------------------------------


def test_an_installation_without_answers_records_its_own_and_answers_from_them_next_time(
    project: Path, serving: list[Served], tmp_path: Path, memdir_home: Path
) -> None:
    # Another installation: these sources without the shipped answers.
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(SRC, elsewhere, ignore=shutil.ignore_patterns("__pycache__", "answers.json"))
    first = serve(serving, project, MEMDIR_TEST_SRC=str(elsewhere))
    first.ask(initialize(1, "2025-06-18"))
    first.send(INITIALIZED)
    first.ask(request(2, "tools/list"))
    assert first.close() == 0, first.stderr()
    cached = memdir_home / CACHE_NAME
    recorded = read_answers(str(cached))
    assert recorded is not None and recorded == read_answers(SHIPPED)

    # The next start answers from the cache: a mark put in it comes back.
    lists = recorded["handshake"]["requests"]["2025-06-18"]["tools/list"]["answer"]
    lists[-1] = lists[-1].replace("Read memory:", "Read memory (cached):", 1)
    save_answers(str(cached), recorded)
    second = serve(serving, project, MEMDIR_TEST_SRC=str(elsewhere))
    second.ask(initialize(1, "2025-06-18"))
    second.send(INITIALIZED)
    tools = second.ask(request(2, "tools/list"))["result"]["tools"]
    assert tools[0]["description"].startswith("Read memory (cached):")
    assert second.close() == 0, second.stderr()


def test_the_first_answers_need_neither_the_sdk_nor_click_nor_the_facade() -> None:
    code = (
        "import json, os, sys\n"
        "import memdir.__main__\n"
        "from memdir.mcp.answers import EarlyAnswers, answers_key, load_answers\n"
        "early = EarlyAnswers(load_answers(answers_key(), os.environ))\n"
        f"answer, _ = early.reply({json.dumps(json.dumps(initialize(1, '2025-06-18')))})\n"
        "heavy = ('mcp', 'mcp_types', 'pydantic', 'anyio', 'click', 'rich')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy or m == 'memdir.api')\n"
        "print(json.dumps({'answered': answer is not None, 'loaded': loaded}))\n"
    )
    environ = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=True
    )
    assert json.loads(done.stdout) == {"answered": True, "loaded": []}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["serve"], (".", None)),
        (["serve", "--project", "{p}"], ("{p}", None)),
        (["serve", "--project={p}"], ("{p}", None)),
        (["--profile", "claude", "serve", "--project", "{p}"], ("{p}", "claude")),
        (["--profile=memdir", "serve"], (".", "memdir")),
        (["--profile", "nope", "serve"], None),
        (["serve", "--http"], None),
        (["serve", "--project", "{p}/missing"], None),
        (["serve", "--help"], None),
        (["--debug", "serve"], None),
        (["list"], None),
    ],
)
def test_the_stdio_server_starts_before_click_only_for_its_plain_arguments(
    project: Path, argv: list[str], expected: tuple[str, str | None] | None
) -> None:
    args = [a.replace("{p}", str(project)) for a in argv]
    want = None if expected is None else (expected[0].replace("{p}", str(project)), expected[1])
    assert stdio_args(args, {}) == want
