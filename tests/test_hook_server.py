"""The hook server: the same answers as a hook's own process, for each hook's environment.

Every test gets a socket folder of its own (so a server of its own), started by
the hooks themselves as installed hooks start it, and stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.hooks import client as hook_client
from memdir.hooks.server import ServerStatus, answer_for, handle, server_status, stop_server
from memdir.hooks.wire import (
    PROTOCOL,
    lock_path,
    pack,
    safe_folder,
    socket_folder,
    socket_path,
    unpack,
)
from memutil import NPM_INSTALL, USE_PNPM, save_rule

LAUNCHER = Path(hook_client.__file__).resolve().parents[1] / "hook_launcher.py"


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The hooks' environment, with this test's own socket folder.

    The folder is a short one of its own: a socket's path has at most about 100
    bytes, which a test's temp folder under pytest-xdist can pass.
    """
    run = Path(tempfile.mkdtemp(prefix="memdir-run-"))
    values = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "XDG_RUNTIME_DIR": str(run),
    }
    values.pop("MEMDIR_HOOK_SERVER", None)
    yield values
    stop_server(values)
    shutil.rmtree(run, ignore_errors=True)


def hook(
    name: str, payload: Mapping[str, object], env: dict[str, str], launcher: Path = LAUNCHER
) -> str:
    """What the installed hook ``name`` prints (started as the installer writes it)."""
    done = subprocess.run(
        [sys.executable, "-SP", str(launcher), "hook", name],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def wait_running(env: dict[str, str], *, running: bool = True, package: str | None = None) -> None:
    """Until the server runs (its lock held, its socket there to connect to), or does not."""
    deadline = time.monotonic() + 60
    while not _is(server_status(env, package=package), running):
        assert time.monotonic() < deadline, f"server still {'down' if running else 'up'}"
        time.sleep(0.05)


def booted_server(project: Path, env: dict[str, str]) -> str:
    """Start the server through a session-start hook; the socket it listens on."""
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    path = socket_path(env, sys.executable)
    assert path is not None
    return path


def _is(status: ServerStatus, running: bool) -> bool:
    # The lock is taken before the socket is bound: a server that runs is one to connect to.
    return status.running == running and (not running or os.path.exists(status.socket))


def start(project: Path, session: str) -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }


def prompt(project: Path, session: str, text: str) -> dict[str, object]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def bash_call(project: Path, command: str) -> dict[str, object]:
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


SAVED: list[dict[str, Any]] = [
    {
        "name": "Deploy window",
        "description": "Production deploys happen on Tuesdays only",
        "type": "project",
        "body": "Deploys to production happen on Tuesdays; the freeze covers the rest.\n",
    },
    {
        "name": "Package manager",
        "description": "Use pnpm, never npm, in this repository",
        "type": "feedback",
        "body": "Use pnpm.\n**Why:** the lockfile is pnpm's.\n",
    },
]


def save(mem: Memdir) -> None:
    for fields in SAVED:
        mem.write(**fields)


def own_answer(project: Path, env: dict[str, str]) -> str:
    """What session-start answers with the hook server turned off: the hook's own work."""
    return hook("session-start", start(project, "own"), {**env, "MEMDIR_HOOK_SERVER": "0"})


def saved_and_booted(mem: Memdir, project: Path, env: dict[str, str]) -> tuple[str, str]:
    """:func:`save`'s memories, the hook's own session-start answer and the socket path
    of a server booted after it."""
    save(mem)
    expected = own_answer(project, env)
    return expected, booted_server(project, env)


def test_the_served_answers_are_the_hooks_own(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    save(mem)
    own = {**env, "MEMDIR_HOOK_SERVER": "0"}
    question = "which days do production deploys happen"
    expected = [
        hook("session-start", start(project, "own-1"), own),
        hook("user-prompt-submit", prompt(project, "own-2", question), own),
    ]
    assert "Deploy window" in expected[1]
    assert not server_status(env).running  # turned off: none started
    hook("session-start", start(project, "first"), env)  # finds none: starts one
    wait_running(env)
    served = [
        hook("session-start", start(project, "served-1"), env),
        hook("user-prompt-submit", prompt(project, "served-2", question), env),
    ]
    assert served == expected
    assert server_status(env).answered == 2
    # Recall's session state was kept by the server as by a hook: not shown twice.
    assert hook("user-prompt-submit", prompt(project, "served-2", question), env) == ""


def test_hooks_started_at_once_all_get_their_own_answer(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    save(mem)
    questions = [
        "which days do production deploys happen",
        "which package manager should this repository use",
    ] * 4
    own = {**env, "MEMDIR_HOOK_SERVER": "0"}
    expected = [
        hook("user-prompt-submit", prompt(project, f"own-{n}", q), own)
        for n, q in enumerate(questions)
    ]
    assert len(set(expected)) == 2 and all(expected)
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    with ThreadPoolExecutor(len(questions)) as pool:
        served = list(
            pool.map(
                lambda item: hook(
                    "user-prompt-submit", prompt(project, f"at-once-{item[0]}", item[1]), env
                ),
                enumerate(questions),
            )
        )
    assert served == expected
    assert server_status(env).answered == len(questions)  # none fell back: one at a time


def test_a_client_that_connects_and_says_nothing_holds_no_one_up_for_long(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    expected, path = saved_and_booted(mem, project, env)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        silent.connect(path)  # and never sends: a hook stopped half way
        assert hook("session-start", start(project, "after"), env) == expected
        assert server_status(env).answered == 1  # answered by the server, not in-process
    finally:
        silent.close()


def test_each_request_runs_in_its_own_hooks_environment(
    project: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    homes = {}
    for label in ("alpha", "beta"):
        home = tmp_path / f"home-{label}"
        Memdir.open(project, env={"MEMDIR_HOME": str(home)}).write(
            name=f"Project {label}", description=f"the {label} fact", type="project"
        )
        homes[label] = {**env, "MEMDIR_HOME": str(home)}
    hook("session-start", start(project, "boot"), homes["alpha"])
    wait_running(env)
    for label, other in (("alpha", "beta"), ("beta", "alpha"), ("alpha", "beta")):
        context = json.loads(hook("session-start", start(project, label), homes[label]))
        text = context["hookSpecificOutput"]["additionalContext"]
        assert f"the {label} fact" in text and f"the {other} fact" not in text
    assert server_status(env).answered == 3
    # A hook with memory disabled in its environment gets nothing, served or not.
    assert (
        hook("session-start", start(project, "off"), {**homes["beta"], "MEMDIR_DISABLE": "1"}) == ""
    )


def test_a_dead_socket_or_no_server_means_the_hook_does_the_work(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    save(mem)
    path = socket_path(env, sys.executable)
    assert path is not None
    assert safe_folder(socket_folder(env), create=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)  # a socket nobody listens on: what a killed server leaves
    dead.close()
    own = {**env, "MEMDIR_HOOK_SERVER": "0"}
    expected = hook("session-start", start(project, "own"), own)
    assert hook("session-start", start(project, "dead"), env) == expected
    wait_running(env)  # and the hook started a server in its place
    assert hook("session-start", start(project, "served"), env) == expected
    stop_server(env)
    wait_running(env, running=False)
    assert not Path(path).exists()  # the stopped server took its socket away
    assert hook("session-start", start(project, "stopped"), env) == expected


def test_tool_calls_are_checked_by_the_hook_itself_server_or_not(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    description = "pnpm only in this repository"
    save_rule(mem, "No npm", NPM_INSTALL, description=description, body=USE_PNPM)
    call = bash_call(project, "npm install left-pad")
    own = hook("pre-tool-use", call, {**env, "MEMDIR_HOOK_SERVER": "0"})
    assert json.loads(own)["hookSpecificOutput"]["permissionDecision"] == "deny"
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    assert hook("pre-tool-use", call, env) == own
    harmless = {**call, "tool_input": {"command": "pnpm install left-pad"}}
    assert hook("pre-tool-use", harmless, env) == ""
    assert server_status(env).answered == 0  # never asked
    pid = server_status(env).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # a crash: the socket stays, nobody listens
    wait_running(env, running=False)
    assert hook("pre-tool-use", call, env) == own  # still denied, by the hook itself


def test_a_folder_others_may_enter_is_never_used(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    folder = Path(socket_folder(env))
    folder.mkdir(mode=0o700)
    folder.chmod(0o777)
    assert not safe_folder(str(folder), create=False)
    path = socket_path(env, sys.executable)
    assert path is not None
    assert not hook_client.start_server(env, path)
    hook("session-start", start(project, "s1"), env)
    hook("session-start", start(project, "s2"), env)
    assert sorted(p.name for p in folder.iterdir()) == []  # no lock, no socket, no marker
    link = folder.parent / "link"
    folder.chmod(0o700)
    link.symlink_to(folder)
    assert not safe_folder(str(link), create=False)  # a link is not the folder itself


def test_a_server_whose_code_changed_on_disk_stops_and_the_hook_answers(
    mem: Memdir, project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    save(mem)
    copy = tmp_path / "install"
    shutil.copytree(Path(hook_client.__file__).resolve().parents[1], copy / "memdir")
    installed = {**env, "PYTHONPATH": os.pathsep.join([str(copy), *sys.path])}
    launcher = copy / "memdir" / "hook_launcher.py"
    package = str(copy / "memdir")
    own = {**installed, "MEMDIR_HOOK_SERVER": "0"}
    expected = hook("session-start", start(project, "own"), own, launcher)
    try:
        hook("session-start", start(project, "boot"), installed, launcher)
        wait_running(installed, package=package)
        assert not server_status(installed).running  # the copy's server, not this one's
        assert hook("session-start", start(project, "served"), installed, launcher) == expected
        assert server_status(installed, package=package).answered == 1
        module = copy / "memdir" / "recall" / "prompt.py"  # loaded by every session start
        later = module.stat().st_mtime + 5
        os.utime(module, (later, later))  # as an upgrade leaves it
        assert hook("session-start", start(project, "upgraded"), installed, launcher) == expected
        wait_running(installed, running=False, package=package)
    finally:
        stop_server(installed, package=package)


def test_the_server_keeps_no_descriptor_the_hook_was_given(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-SP", str(LAUNCHER), "hook", "session-start"],
            input=json.dumps(start(project, "boot")),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            pass_fds=(write,),  # as an agent may hand its hook a pipe it reads to the end
        )
        assert done.returncode == 0, done.stderr
        wait_running(env)
        os.close(write)
        write = -1
        os.set_blocking(read, False)
        deadline = time.monotonic() + 30
        while True:  # the end of the pipe: no process holds its writing end any more
            try:
                if os.read(read, 1) == b"":
                    break
            except BlockingIOError:
                assert time.monotonic() < deadline, "the server still holds the hook's pipe"
                time.sleep(0.05)
        assert server_status(env).running
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_an_idle_server_stops_by_itself(mem: Memdir, project: Path, env: dict[str, str]) -> None:
    quick = {**env, "MEMDIR_HOOK_SERVER_IDLE": "0.5"}
    path = socket_path(env, sys.executable)
    assert path is not None
    hook("session-start", start(project, "boot"), quick)
    # The server notes itself in its lock file when it starts (and leaves the note): a
    # busy machine may let it come and go between two looks at whether it runs.
    deadline = time.monotonic() + 60
    while not (Path(lock_path(path)).exists() and Path(lock_path(path)).read_text()):
        assert time.monotonic() < deadline, "no server started"
        time.sleep(0.05)
    wait_running(quick, running=False)
    assert not Path(path).exists()
    assert Path(lock_path(path)).exists()  # kept: the next server takes the same lock


def test_the_cli_says_whether_it_runs_and_stops_it(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "memdir", "hook", "server", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert cli("status").startswith("not running")
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    status = json.loads(cli("status", "--json"))
    assert status["running"] and status["pid"] > 0 and status["answered"] == 0
    assert stat.S_IMODE(os.stat(status["socket"]).st_mode) & 0o077 == 0
    assert cli("stop") == "stopped\n"
    assert cli("status").startswith("not running")
    assert cli("stop") == "not running\n"


def test_requests_that_are_not_a_served_hook_are_refused(tmp_path: Path) -> None:
    before = os.getcwd()
    with pytest.raises(ValueError):
        handle(b"nonsense")
    with pytest.raises(ValueError):
        handle(pack([b"other-protocol/9", b"session-start", b"/", b"18", b"0", b"{}"]))
    with pytest.raises(ValueError):
        handle(pack([PROTOCOL, b"pre-tool-use", b"/", b"18", b"0", b"{}"]))
    with pytest.raises(ValueError):
        handle(pack([PROTOCOL, b"session-start", b"/", b"18", b"2", b"A\0b", b"{}"]))
    assert os.getcwd() == before  # nothing of a refused request stays in this process


def test_a_request_runs_in_its_environment_and_folder_and_leaves_this_process_as_it_was(
    project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-home"
    Memdir.open(project, env={"MEMDIR_HOME": str(other)}).write(
        name="Elsewhere", description="the other home's fact", type="project"
    )
    here, environ, mask = os.getcwd(), dict(os.environ), os.umask(0o022)
    os.umask(mask)
    request = hook_client._request(
        "session-start",
        json.dumps(start(project, "in-process")),
        {**os.environ, "MEMDIR_HOME": str(other), "TZ": "Pacific/Auckland"},
    )
    assert request is not None
    status, out, err = unpack(handle(request))
    assert (status, err) == (b"ok", b"")
    assert b"the other home's fact" in out
    assert (os.getcwd(), dict(os.environ), os.umask(mask)) == (here, environ, mask)


@given(st.lists(st.binary(max_size=64), max_size=8))
def test_framing_round_trips_any_fields(fields: list[bytes]) -> None:
    assert unpack(pack(fields)) == fields


@given(st.binary(min_size=1, max_size=40))
def test_framing_refuses_a_cut_or_foreign_message(data: bytes) -> None:
    framed = pack([data])
    with pytest.raises(ValueError):
        unpack(framed[:-1])
    with pytest.raises(ValueError):
        unpack(b"x" + framed)


def test_a_rule_added_in_place_in_a_watched_store_is_enforced_at_the_next_call(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    from memdir.enforcement import rule_cache
    from memdir.enforcement.enforced import cache_path

    for n in range(rule_cache.WATCH_FROM + 5):  # enough files for the hook to ask the watch
        mem.write(name=f"Note {n}", description=f"note {n}", type="project", body=f"n {n}\n")
    call = bash_call(project, "npm install left-pad")
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    for _ in range(3):  # fills the cache, then its tokens, then answers from them
        assert hook("pre-tool-use", call, env) == ""
    header, _ = rule_cache.read(str(cache_path(mem.layout)))
    assert isinstance(header.get("tokens"), list) and len(header["tokens"]) == 2
    plain = next(mem.layout.memory_dir.glob("note_7*.md"))
    text = plain.read_text().replace(
        "type: project",
        "type: feedback\nenforce:\n- tool: Bash\n  match: npm install\n  action: deny\n",
    )
    with open(plain, "r+", encoding="utf-8") as handle:  # an editor's save: no folder moves
        handle.write(text)
        handle.truncate()
    assert (
        json.loads(hook("pre-tool-use", call, env))["hookSpecificOutput"]["permissionDecision"]
        == "deny"
    )
    pid = server_status(env).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_running(env, running=False)
    plain.write_text(plain.read_text().replace("match: npm install", "match: yarn add"))
    assert hook("pre-tool-use", call, env) == ""  # the hook walks by itself: the rule moved


def test_watch_requests_round_trip_and_foreign_ones_are_refused() -> None:
    from memdir.hooks.wire import WATCH_REQUEST, scopes_of, watch_request

    scopes = [("/home/me/memory", ["logs", "team"]), ("/home/me/memory/team", [])]
    request = watch_request(scopes)
    assert request.startswith(WATCH_REQUEST)
    assert scopes_of(request) == [
        ("/home/me/memory", frozenset({"logs", "team"})),
        ("/home/me/memory/team", frozenset()),
    ]
    for bad in (
        watch_request([("relative/memory", [])]),
        pack([PROTOCOL, b"watch", b"2", b"/a", b""]),  # says two, holds one
        pack([PROTOCOL, b"watch", b"x"]),
        pack([PROTOCOL, b"session-start"]),
    ):
        with pytest.raises(ValueError):
            scopes_of(bad)


def test_the_server_gives_tokens_that_move_only_with_a_change(
    tmp_path: Path, env: dict[str, str], mem: Memdir, project: Path
) -> None:
    hook("session-start", start(project, "boot"), env)
    wait_running(env)
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("a")
    scopes = [("private", str(root), frozenset({"team"}))]
    first = hook_client.watch_tokens(scopes, env)
    assert first is not None and first == hook_client.watch_tokens(scopes, env)
    (root / "team").mkdir()
    (root / "team" / "t.md").write_text("another scope's")
    assert hook_client.watch_tokens(scopes, env) == first
    (root / "a.md").write_text("a, edited")
    assert hook_client.watch_tokens(scopes, env) not in (None, first)
    assert hook_client.watch_tokens([("private", "relative", frozenset())], env) is None


# -- hostile and slow clients -------------------------------------------------------------


def exchange(path: str, data: bytes, *, timeout: float = 60.0) -> bytes:
    """What the server answers ``data`` (b"" when it drops the connection)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            return b""  # dropped before it read it all (past the size limit, say)
        chunks = []
        try:
            while chunk := sock.recv(1 << 16):
                chunks.append(chunk)
        except ConnectionResetError:
            return b""
        return b"".join(chunks)


def served_answer(project: Path, env: dict[str, str], session: str) -> str | None:
    """The server's answer to a session start asked from this process (None: no answer)."""
    reply = hook_client.answer("session-start", json.dumps(start(project, session)), env)
    return None if reply is None else reply[0]


def good_request(project: Path, env: Mapping[str, str]) -> list[bytes]:
    request = hook_client._request("session-start", json.dumps(start(project, "f")), env)
    assert request is not None
    return unpack(request)


def with_field(fields: list[bytes], at: int, value: bytes) -> bytes:
    return pack([*fields[:at], value, *fields[at + 1 :]])


def test_the_server_survives_any_frame_and_still_answers_a_good_one(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    save(mem)
    path = booted_server(project, env)
    fields = good_request(project, env)
    crafted = [
        with_field(fields, 3, b"%d" % 10**30),  # a umask no process has
        with_field(fields, 3, b"-1"),
        with_field(fields, 3, b"9" * 5000),  # past int()'s digit limit
        with_field(fields, 4, b"%d" % 10**30),
        with_field(fields, 2, b"relative/folder"),
        with_field(fields, 2, b"/no/such/folder"),
        with_field(fields, 2, b"/a\0b"),
        with_field(fields, 1, b"\xff\xfe"),
        with_field(fields, 5, b"A=B\0c"),  # a variable name no environment holds
        with_field(fields, 5, b"A\0b\0c"),
        pack(fields[:-1]),
        pack([PROTOCOL, b"watch", b"1", b"relative", b""]),
        pack([PROTOCOL, b"watch", b"%d" % 10**30]),
        b"99999999999:x,",
        b"",
    ]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        st.one_of(
            st.sampled_from(crafted),
            st.binary(max_size=200),
            st.lists(st.binary(max_size=30), max_size=8).map(pack),
            st.tuples(st.integers(0, 5 + len(fields)), st.binary(max_size=40)).map(
                lambda change: with_field(fields, change[0] % len(fields), change[1])
            ),
        )
    )
    def survives(frame: bytes) -> None:
        reply = exchange(path, frame)
        if reply:
            assert unpack(reply)[0] in (b"ok", b"none", b"stale")
        assert server_status(env).running

    survives()
    expected = own_answer(project, env)
    answered = server_status(env).answered
    assert served_answer(project, env, "after") == expected
    assert server_status(env).answered == (answered or 0) + 1


def test_clients_that_stall_or_trickle_hold_no_other_hook_up(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    expected, path = saved_and_booted(mem, project, env)
    answered = threading.Event()
    slow = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(3)]

    def trickle(sock: socket.socket) -> None:
        # A byte now and then, so that no single read ever waits long: until the other
        # hook has its answer.
        request = pack(good_request(project, env))
        for byte in request:
            if answered.wait(0.2):
                return
            with contextlib.suppress(OSError):
                sock.send(bytes([byte]))

    try:
        for sock in slow:
            sock.connect(path)
        slow[1].sendall(pack(good_request(project, env))[:40])  # half a frame, then nothing
        trickler = threading.Thread(target=trickle, args=(slow[2],), daemon=True)
        trickler.start()
        # slow[0] connected and says nothing.
        assert served_answer(project, env, "meanwhile") == expected
        assert server_status(env).answered == 1  # by the server, not by the hook itself
    finally:
        answered.set()
        for sock in slow:
            sock.close()
    assert served_answer(project, env, "later") == expected


# -- what a session was shown ---------------------------------------------------------------


def prompt_request(project: Path, env: Mapping[str, str], session: str) -> bytes:
    question = prompt(project, session, "which days do production deploys happen")
    request = hook_client._request("user-prompt-submit", json.dumps(question), env)
    assert request is not None
    return request


def shown(reply: bytes) -> str:
    status, out, _err = unpack(reply)
    assert status == b"ok"
    return out.decode()


def test_a_recall_whose_answer_never_left_the_server_is_shown_again(
    mem: Memdir, project: Path
) -> None:
    save(mem)
    request = prompt_request(project, os.environ, "killed")
    lost = answer_for(request)  # answered, and the server dies before sending it
    assert "Deploy window" in shown(lost.reply)
    # The next prompt of that session gets the memory: it was never counted as seen.
    again = handle(request)
    assert "Deploy window" in shown(again)
    assert "Deploy window" not in shown(handle(request))  # now delivered: not twice


def test_a_hook_gone_before_its_answer_loses_no_memory_for_its_session(
    mem: Memdir, project: Path, env: dict[str, str]
) -> None:
    save(mem)
    path = booted_server(project, env)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gone:
        gone.connect(path)
        gone.sendall(prompt_request(project, env, "gone"))
    # Closed before any answer could come (the server reads to the end first): a hook
    # killed, or one that gave up waiting.
    question = "which days do production deploys happen"
    assert "Deploy window" in hook("user-prompt-submit", prompt(project, "gone", question), env)
    assert hook("user-prompt-submit", prompt(project, "gone", question), env) == ""


def test_saves_held_for_a_delivery_add_to_what_the_session_saw_meanwhile(
    mem: Memdir, project: Path
) -> None:
    from memdir.recall.recall_state import (
        SessionState,
        held_saves,
        read_session_state,
        save_state,
        session_state_path,
    )

    path = session_state_path(mem.layout, "both")
    with held_saves() as held:
        save_state(path, SessionState(surfaced=("a.md",), bytes_used=100), since=SessionState())
    assert held.pending == 1 and not path.exists()  # nothing written yet
    save_state(path, SessionState(surfaced=("b.md",), bytes_used=40))  # another process's
    held.commit()
    assert read_session_state(mem.layout, "both") == SessionState(
        surfaced=("b.md", "a.md"), bytes_used=140
    )
