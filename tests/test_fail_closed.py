"""The pre-tool-use hook fails closed: no damage to what memdir derives lets a denied call through.

The hook reads three derived files on its way to a decision: the memo of where
a folder's memory lives, the rule cache, and the list of teammates' rules held
back. Each is damaged here in every way a disk, a crash or a stray editor can
(cut short at any byte, bytes changed or replaced, valid JSON of another
shape, a key gone or a value of another type, a folder in its place, the file
gone), and the hook must still deny what a rule denies, or hand the call to
the user: never let it through. The log it writes when a rule fires may be
anything too (a FIFO no one reads): the deny still comes, at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.enforcement.enforced import cache_path
from memdir.enforcement.rule_cache import sealed, unsealed
from memdir.enforcement.team_rules import pending_path, write_held
from memdir.hooks import memo as hook_memo
from memdir.hooks.dialects import HOST_VARIABLE
from memdir.hooks.entry import pre_tool_use
from memutil import NPM_INSTALL, save_rule

WHY = "**Why:** it rewrote the lockfile.\n"
NPM = NPM_INSTALL
YARN = {"command": "yarn", "args": "add", "action": "deny"}


def _feedback(mem: Memdir, name: str, rule: dict[str, Any], scope: str = "private") -> None:
    save_rule(mem, name, rule, body=f"{name}.\n{WHY}", scope=scope)


class Project:
    """A project whose own private rule denies ``npm install`` and whose own team rule
    (in a team folder that syncs, with its held list) denies ``yarn add``."""

    def __init__(self, mem: Memdir) -> None:
        self.mem = mem
        self.root = mem.layout.project_root
        _feedback(mem, "Use pnpm", NPM)
        _feedback(mem, "No yarn", YARN, scope="team")
        subprocess.run(["git", "init", "-q", str(mem.layout.team_dir)], check=True)
        write_held(pending_path(mem.layout), {})  # a team that syncs: nothing held
        assert self.answer("npm install left-pad") == "deny"  # fills the memo and the cache
        assert self.answer("yarn add left-pad") == "deny"
        self.files = {
            "memo": Path(hook_memo.memo_path(str(self.root), os.environ)),
            "cache": cache_path(mem.layout),
            "held": Path(pending_path(mem.layout)),
        }
        self.saved = {name: path.read_bytes() for name, path in self.files.items()}

    def answer(self, command: str, env: dict[str, str] | None = None) -> str | None:
        """The permission decision the hook gives (None: no answer, the call goes on)."""
        payload = {"cwd": str(self.root), "tool_name": "Bash", "tool_input": {"command": command}}
        text = pre_tool_use(payload, os.environ if env is None else env)
        if not text:
            return None
        data: dict[str, Any] = json.loads(text)
        return str(data["hookSpecificOutput"].get("permissionDecision"))

    def damage(self, name: str, content: bytes | str | None) -> None:
        """Replace a derived file with ``content`` (None: gone; ``"folder"``: a folder)."""
        path = self.files[name]
        self._clear(path)
        if content == "folder":
            path.mkdir()
            (path / "note.txt").write_text("someone's")
        elif isinstance(content, bytes):
            path.write_bytes(content)

    def restore(self) -> None:
        for name, path in self.files.items():
            self._clear(path)
            path.write_bytes(self.saved[name])

    @staticmethod
    def _clear(path: Path) -> None:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


@pytest.fixture
def project(mem: Memdir) -> Iterator[Project]:
    yield Project(mem)


# -- ways to damage a file ---------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value, its root first."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*at, index))


def _other_type(value: Any, pick: int) -> Any:
    """A JSON value of another type than ``value``."""
    options = [None, True, 7, 2.5, "x", [], {}, ["x"], {"x": 1}]
    others = [o for o in options if type(o) is not type(value)]
    return others[pick % len(others)]


def _mutated(value: Any, where: int, pick: int, delete: bool) -> Any:
    """``value`` (a copy) with one key removed (``delete``), or one value of another type.

    A key of the rule cache's ``entries`` is not removed: a header without a file's entry is
    a file without rules, which only the checksum tells from damage.
    """
    copy = json.loads(json.dumps(value))
    places = list(_paths(copy))[1:]
    if not places:
        return _other_type(copy, pick)
    at = places[where % len(places)]
    parent = copy
    for step in at[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict) and at[:-1] != ("entries",):
        del parent[at[-1]]
    else:
        parent[at[-1]] = _other_type(parent[at[-1]], pick)
    return copy


@st.composite
def _damage(draw: st.DrawFn, original: bytes, kind: str) -> bytes | str | None:
    how = draw(
        st.sampled_from(["cut", "bytes", "flip", "json", "reshaped", "folder", "gone", "empty"])
    )
    if how == "cut":
        return original[: draw(st.integers(0, len(original)))]
    if how == "bytes":
        return draw(st.binary(max_size=200))
    if how == "flip":
        changed = bytearray(original)
        for at, value in draw(st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)),
                                       min_size=1, max_size=4)):  # fmt: skip
            changed[at % len(changed)] = value
        return bytes(changed)
    if how == "json":
        return json.dumps(draw(_JSON)).encode()
    if how == "reshaped":
        head, _, rest = original.partition(b"\n")
        shaped: Any = json.loads(original) if kind == "held" else unsealed(head)
        assert shaped is not None
        mutated = _mutated(shaped, draw(st.integers(0, 1 << 16)), draw(st.integers(0, 99)),
                           draw(st.booleans()))  # fmt: skip
        text = json.dumps(mutated)
        if kind == "held":
            return text.encode()
        if text.startswith("{") and text != "{}":
            text = sealed(text)  # whole, as memdir seals it, but not what memdir writes
        return text.encode() + b"\n" + rest
    if how == "folder":
        return "folder"
    if how == "gone":
        return None
    return b""


_FILES = st.sampled_from(["memo", "cache", "held"])


def test_a_deny_rule_never_fails_open_whatever_the_damage(project: Project) -> None:
    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def damaged(data: st.DataObject) -> None:
        names = data.draw(st.lists(_FILES, min_size=1, max_size=3, unique=True))
        try:
            for name in names:
                project.damage(name, data.draw(_damage(project.saved[name], name)))
            # The private rule is never in doubt; the team rule is this user's own, and
            # with the held list gone or damaged it might be a teammate's: asked about.
            assert project.answer("npm install left-pad") == "deny", names
            assert project.answer("yarn add left-pad") in ("deny", "ask"), names
            assert project.answer("pnpm install") is None  # and nothing else is held
        finally:
            project.restore()

    damaged()


@pytest.mark.parametrize("key", ["roots", "excluded"])
def test_a_resealed_memo_whose_folders_are_an_empty_mapping_does_not_fail_open(
    project: Project, key: str
) -> None:
    # Sealed whole, as memdir seals it: the checksum holds, only the shape is wrong. An
    # empty mapping where a list belongs iterates as "no folders" or "nothing excluded".
    head, _, rest = project.saved["memo"].partition(b"\n")
    data = unsealed(head)
    assert data is not None
    if key == "roots":
        data["answer"]["roots"] = {}
    else:
        data["answer"]["roots"] = [[*root[:2], {}] for root in data["answer"]["roots"]]
    project.damage("memo", sealed(json.dumps(data)).encode() + b"\n" + rest)
    assert project.answer("npm install left-pad") == "deny"
    assert project.answer("yarn add left-pad") in ("deny", "ask")


def test_a_damaged_held_list_asks_about_a_team_rule_that_fires_and_names_the_file(
    project: Project,
) -> None:
    held = project.files["held"]
    held.write_bytes(b'{"team:no_yarn.md": ')
    payload = {"cwd": str(project.root), "tool_name": "Bash",
               "tool_input": {"command": "yarn add x"}}  # fmt: skip
    answer = json.loads(pre_tool_use(payload, os.environ))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"
    assert str(held) in answer["permissionDecisionReason"]
    assert "memdir doctor --fix" in answer["permissionDecisionReason"]
    codex = {**os.environ, HOST_VARIABLE: "codex"}  # Codex runs a call its hook asks about
    assert project.answer("yarn add x", codex) == "deny"
    assert project.answer("npm install", codex) == "deny"
    held.unlink()  # gone (the state folder deleted): the same
    assert project.answer("yarn add x") == "ask"


def test_an_intact_held_list_holds_a_teammates_rule_without_asking(project: Project) -> None:
    from memdir.enforcement.team_rules import canonical, hold
    from memdir.storage.codec import parse_memory

    team = project.mem.layout.team_dir
    text = (team / "no_yarn.md").read_text()
    rules = parse_memory(text).extra["enforce"]
    hold(str(project.files["held"]), {"no_yarn.md": (canonical(
        [{"tool": "Bash", **rule} for rule in rules]), "bob")})  # fmt: skip
    assert project.answer("yarn add x") is None  # a teammate's, not accepted: held, quietly
    assert project.answer("npm install") == "deny"


def test_settings_memdir_cannot_read_hold_every_call_naming_the_file(
    project: Project, memdir_home: Path
) -> None:
    config = memdir_home / "config.toml"
    config.write_text("enabled = [\n")
    payload = {"cwd": str(project.root), "tool_name": "Read", "tool_input": {"file_path": "x"}}
    answer = json.loads(pre_tool_use(payload, os.environ))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"
    reason = answer["permissionDecisionReason"]
    assert str(config) in reason and "\n" not in reason
    gemini = {**os.environ, HOST_VARIABLE: "gemini"}
    after = {**payload, "hook_event_name": "AfterTool"}
    assert pre_tool_use(after, gemini) == ""  # after the call there is nothing to hold
    assert json.loads(pre_tool_use(payload, gemini))["decision"] == "deny"
    config.unlink()
    assert project.answer("npm install") == "deny"
    assert pre_tool_use(payload, os.environ) == ""


def test_a_whole_cache_whose_gate_leaves_a_rule_out_still_judges_it(project: Project) -> None:
    cache = project.files["cache"]
    head, _, rest = cache.read_bytes().partition(b"\n")
    header = unsealed(head)
    assert header is not None and header["gate"]
    for gate in ([], header["gate"][1:], list(reversed(header["gate"]))):
        shaped = sealed(json.dumps({**header, "gate": gate}))
        cache.write_bytes(shaped.encode() + b"\n" + rest)
        assert project.answer("npm install left-pad") == "deny"
        assert project.answer("yarn add left-pad") == "deny"


def test_a_fifo_in_place_of_the_firings_log_holds_neither_the_hook_nor_the_deny(
    project: Project,
) -> None:
    from memdir.enforcement.rule_firings import firings_path

    log = Path(firings_path(str(project.mem.layout.state_dir)))
    log.unlink(missing_ok=True)
    os.mkfifo(log)  # no reader: opening it to write would wait for one
    answers: list[str | None] = []
    hook = threading.Thread(target=lambda: answers.append(project.answer("npm install")))
    hook.daemon = True
    hook.start()
    hook.join(timeout=60)
    assert answers == ["deny"]
