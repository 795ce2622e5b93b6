"""Enforced rules in a store too large to walk on every tool call (enforcement.rule_cache)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memdir.api import Memdir
from memdir.enforcement import rule_cache
from memdir.enforcement.enforced import cache_path, load_rules_at, rule_roots
from memdir.hooks.entry import pre_tool_use
from memdir.model import Memory, MemoryType
from memdir.storage.codec import render_memory

NPM: dict[str, Any] = {"tool": "Bash", "match": r"\bnpm install\b", "action": "deny"}
YARN: dict[str, Any] = {"tool": "Bash", "match": r"\byarn\b", "action": "deny"}


def _text(name: str, *rules: dict[str, Any]) -> str:
    extra = {"enforce": list(rules)} if rules else {}
    memory = Memory(
        name=name,
        description="d",
        type=MemoryType.FEEDBACK,
        body="**Why:** it broke CI.\n",
        extra=extra,
    )
    return render_memory(memory)


def _in_place(path: Path, text: str) -> None:
    """An editor's save: the same file (inode) rewritten, no folder changed."""
    with path.open("r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()


def _settled(mem: Memdir) -> None:
    """Every folder's mtime a second old: stamps a walk can trust at once."""
    past = time.time_ns() - 5_000_000_000 + 123
    for folder, _, _ in os.walk(mem.layout.memory_dir):
        os.utime(folder, ns=(past, past))


@pytest.fixture
def large(mem: Memdir, monkeypatch: pytest.MonkeyPatch) -> Memdir:
    """A store treated as large (every store is, here), with one rule and one plain memory."""
    monkeypatch.setattr(rule_cache, "LARGE_STORE", 0)
    _rule_and_plain(mem)
    _settled(mem)
    return mem


def _rule_and_plain(mem: Memdir) -> None:
    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "npm.md").write_text(_text("npm", NPM))
    (folder / "plain.md").write_text(_text("plain"))


def _load(mem: Memdir, *touched: Path) -> list[str]:
    roots = rule_roots(mem.layout)
    found = load_rules_at(roots, str(cache_path(mem.layout)), touched=[str(t) for t in touched])
    return sorted(r.rule.match for r in found.rules)


def _walked_at(mem: Memdir) -> float:
    header = json.loads(cache_path(mem.layout).read_bytes().split(b"\n", 1)[0])
    return float(header["walked_at"])


def test_between_walks_a_call_checks_folders_and_rule_files_not_every_file(
    large: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _load(large) == [NPM["match"]]
    walked = _walked_at(large)
    monkeypatch.setattr(rule_cache, "walk", _no_walk)
    assert _load(large) == [NPM["match"]]  # no walk: the stub would have failed
    assert _walked_at(large) == walked


def _no_walk(roots: object) -> object:
    raise AssertionError("walked between walks")


def test_a_file_the_agents_edit_tool_aims_at_is_watched_until_the_next_walk(
    large: Memdir,
) -> None:
    plain = large.layout.memory_dir / "plain.md"
    assert _load(large) == [NPM["match"]]
    assert _load(large, plain) == [NPM["match"]]  # the Edit is about to run
    _in_place(plain, _text("plain", YARN))
    assert _load(large) == sorted([NPM["match"], YARN["match"]])


def test_a_rule_file_edited_in_place_is_seen_without_being_aimed_at(large: Memdir) -> None:
    assert _load(large) == [NPM["match"]]
    _in_place(large.layout.memory_dir / "npm.md", _text("npm"))  # its rule taken out
    assert _load(large) == []


def test_a_new_file_moves_its_folder_and_the_next_call_walks(large: Memdir) -> None:
    assert _load(large) == [NPM["match"]]
    (large.layout.memory_dir / "yarn.md").write_text(_text("yarn", YARN))
    assert _load(large) == sorted([NPM["match"], YARN["match"]])


def test_an_edit_in_place_no_tool_announced_waits_for_the_next_walk(
    large: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _load(large) == [NPM["match"]]
    _in_place(large.layout.memory_dir / "plain.md", _text("plain", YARN))
    assert _load(large) == [NPM["match"]]  # the documented delay of a large store
    later = time.time() + rule_cache.WALK_EVERY + 1
    monkeypatch.setattr(time, "time", lambda: later)
    assert _load(large) == sorted([NPM["match"], YARN["match"]])


def test_below_the_threshold_every_call_walks(mem: Memdir) -> None:
    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plain.md").write_text(_text("plain"))
    _settled(mem)
    assert _load(mem) == []
    _in_place(folder / "plain.md", _text("plain", YARN))
    assert _load(mem) == [YARN["match"]]


def test_the_hook_watches_the_memory_file_an_edit_tool_names(large: Memdir) -> None:
    plain = large.layout.memory_dir / "plain.md"
    cwd = str(large.layout.project_root)
    edit = {"cwd": cwd, "tool_name": "Edit", "tool_input": {"file_path": str(plain)}}
    yarn = {"cwd": cwd, "tool_name": "Bash", "tool_input": {"command": "yarn add x"}}
    assert pre_tool_use(yarn, os.environ) == ""
    assert pre_tool_use(edit, os.environ) == ""
    _in_place(plain, _text("plain", YARN))
    assert '"deny"' in pre_tool_use(yarn, os.environ)


@pytest.mark.parametrize(
    "aimed", ["../outside.md", ".hidden/x.md", "MEMORY.md", "team/theirs.md", "notes.txt"]
)
def test_only_memory_files_of_a_scope_are_watched(large: Memdir, aimed: str) -> None:
    path = os.path.realpath(large.layout.memory_dir / aimed)
    roots = [r for r in rule_roots(large.layout) if r[0] == "private"]
    assert rule_cache._keys(roots, [path]) == []
    ok = os.path.realpath(large.layout.memory_dir / "sub" / "fine.md")
    assert rule_cache._keys(roots, [ok]) == ["private:sub/fine.md"]


def test_a_missing_team_folder_is_looked_for_and_its_creation_walks(large: Memdir) -> None:
    roots = rule_roots(large.layout)
    team = next(root for scope, root, _ in roots if scope == "team")
    os.rmdir(team)  # no team memory yet
    _settled(large)
    assert _load(large) == [NPM["match"]]
    header, _ = rule_cache.read(str(cache_path(large.layout)))
    assert header["folders"][team] < 0
    unread: dict[str, Any] = {}
    assert rule_cache.between_walks(header, roots, [], lambda path: unread) is False  # no walk
    os.mkdir(team)
    (Path(team) / "yarn.md").write_text(_text("yarn", YARN))
    assert _load(large) == sorted([NPM["match"], YARN["match"]])


def test_a_folder_in_place_of_the_cache_is_moved_aside_and_the_cache_written(
    mem: Memdir,
) -> None:
    from memdir.enforcement.enforced import load_rules
    from memdir.storage.derived import SET_ASIDE_DIR

    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "npm.md").write_text(_text("npm", NPM))
    cache = cache_path(mem.layout)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.mkdir()
    (cache / "note.txt").write_text("kept")
    assert [r.rule.match for r in load_rules(mem.layout).rules] == [NPM["match"]]
    assert cache.is_file()  # written: the next call reads it instead of compiling again
    header, _ = rule_cache.read(str(cache))
    assert "private:npm.md" in header["entries"]
    [aside] = (cache.parent / SET_ASIDE_DIR).iterdir()
    assert (aside / "note.txt").read_text() == "kept"
    before = cache.stat().st_mtime_ns
    assert len(load_rules(mem.layout).rules) == 1
    assert cache.stat().st_mtime_ns == before  # nothing changed: not rewritten


@pytest.mark.parametrize("damage", [b"\x00\xffnot json\n", b'{"version": 6, "entries": 7}\n'])
def test_a_damaged_cache_is_rewritten(mem: Memdir, damage: bytes) -> None:
    from memdir.enforcement.enforced import load_rules

    folder = mem.layout.memory_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "npm.md").write_text(_text("npm", NPM))
    cache = cache_path(mem.layout)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(damage)
    assert len(load_rules(mem.layout).rules) == 1
    header, _ = rule_cache.read(str(cache))
    assert "private:npm.md" in header["entries"]


@pytest.fixture
def small(mem: Memdir, monkeypatch: pytest.MonkeyPatch) -> Memdir:
    """A store that asks the folder watch (whatever its size, here), one rule, one plain."""
    monkeypatch.setattr(rule_cache, "WATCH_FROM", 0)
    _rule_and_plain(mem)
    return mem


def _current(mem: Memdir, tokens: list[str] | None) -> tuple[dict[str, Any] | None, Any]:
    roots = rule_roots(mem.layout)
    asked: list[bool] = []

    def ask() -> list[str] | None:
        asked.append(True)
        return tokens

    header, got = rule_cache.current_header(roots, str(cache_path(mem.layout)), ask=ask)
    assert len(asked) <= 1
    return header, (got, bool(asked))


def _cached_tokens(mem: Memdir) -> object:
    header, _ = rule_cache.read(str(cache_path(mem.layout)))
    return header.get("tokens")


def test_the_same_tokens_again_mean_no_walk(small: Memdir, monkeypatch: pytest.MonkeyPatch) -> None:
    roots, cache = rule_roots(small.layout), str(cache_path(small.layout))
    load_rules_at(roots, cache, tokens=["w.1.here.0", "w.2.missing.0"])
    assert _cached_tokens(small) == ["w.1.here.0", "w.2.missing.0"]
    monkeypatch.setattr(rule_cache, "walk", _no_walk)
    header, (tokens, asked) = _current(small, ["w.1.here.0", "w.2.missing.0"])
    assert header is not None and asked and tokens == ["w.1.here.0", "w.2.missing.0"]
    assert [r["match"] for r in rule_cache.header_rules(header)] == [NPM["match"]]


def test_other_tokens_walk_and_what_changed_is_read(small: Memdir) -> None:
    roots, cache = rule_roots(small.layout), str(cache_path(small.layout))
    load_rules_at(roots, cache, tokens=["w.1.here.0"])
    header, (tokens, _) = _current(small, ["w.1.here.1"])  # an event, nothing the walk sees
    assert header is not None and tokens == ["w.1.here.1"]
    assert _cached_tokens(small) == ["w.1.here.1"]  # written: the next call need not walk
    _in_place(small.layout.memory_dir / "plain.md", _text("plain", YARN))
    header, (tokens, _) = _current(small, ["w.1.here.2"])
    assert header is None  # behind: the caller loads the rules, with the tokens it got
    found = load_rules_at(roots, cache, tokens=tokens)
    assert sorted(r.rule.match for r in found.rules) == sorted([NPM["match"], YARN["match"]])
    assert _cached_tokens(small) == ["w.1.here.2"]


def test_no_tokens_means_the_walk_as_before(small: Memdir) -> None:
    roots, cache = rule_roots(small.layout), str(cache_path(small.layout))
    load_rules_at(roots, cache, tokens=["w.1.here.0"])
    _in_place(small.layout.memory_dir / "plain.md", _text("plain", YARN))
    header, (tokens, asked) = _current(small, None)  # no server, or it cannot watch these
    assert asked and tokens is None and header is None
    assert sorted(_load(small)) == sorted([NPM["match"], YARN["match"]])
    assert _cached_tokens(small) is None


def test_a_store_below_the_threshold_walks_without_asking(
    small: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rule_cache, "WATCH_FROM", 3)
    assert _load(small) == [NPM["match"]]
    header, (tokens, asked) = _current(small, ["never"])
    assert header is not None and not asked and tokens is None


# -- a sealed header: damage is never read as rules ----------------------------------------------


def test_a_header_changed_in_any_one_byte_is_read_again_from_the_files(mem: Memdir) -> None:
    _rule_and_plain(mem)
    roots, cache = rule_roots(mem.layout), cache_path(mem.layout)
    assert _load(mem) == [NPM["match"]]
    whole = cache.read_bytes()
    head = whole.index(b"\n")
    for at in range(head):
        damaged = bytearray(whole)
        damaged[at] ^= 0x04  # "npm install" -> "npi install", a name, a token, a digit ...
        cache.write_bytes(bytes(damaged))
        assert rule_cache.read(str(cache)) == ({}, b""), at
        assert rule_cache.current_header(roots, str(cache))[0] is None
        if at % 16 == 0:  # and the rules come from the files again (a walk: fewer of these)
            assert _load(mem) == [NPM["match"]], at


@pytest.mark.parametrize(
    "change",
    [
        lambda h: {**h, "entries": {"private:npm.md": {**h["entries"]["private:npm.md"],
                                                        "rules": "x"}}},
        lambda h: {**h, "entries": {"private:npm.md": {"name": "npm", "why": ""}}},
        lambda h: {**h, "entries": {"private:npm.md": {"name": "npm", "rules": [
            {"tool": "Bash", "match": 7, "action": "deny"}]}}},
        lambda h: {**h, "entries": {"private:npm.md": {"name": "npm", "rules": [
            {"tool": "Bash", "match": "x", "action": "allow"}]}}},
        lambda h: {**h, "entries": {"elsewhere:npm.md": h["entries"]["private:npm.md"]}},
        lambda h: {**h, "entries": []},
        lambda h: {k: v for k, v in h.items() if k != "version"},
    ],
    ids=["rules not a list", "rules missing", "a pattern not text", "an action not known",
         "a key of no scope", "entries not a mapping", "no version"],
)  # fmt: skip
def test_a_sealed_header_of_another_shape_is_read_again(
    mem: Memdir, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    _rule_and_plain(mem)
    cache = cache_path(mem.layout)
    assert _load(mem) == [NPM["match"]]
    header, seen = rule_cache.read(str(cache))
    cache.write_bytes(rule_cache.sealed(json.dumps(change(header))).encode() + b"\n" + seen)
    assert rule_cache.read(str(cache)) == ({}, b"")
    assert _load(mem) == [NPM["match"]]


def test_what_a_sealed_file_says_of_its_damage(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    assert rule_cache.file_damage(str(path)) is None  # absent
    path.write_text(rule_cache.sealed(json.dumps({"version": 7, "entries": {}})) + "\nrest")
    assert rule_cache.file_damage(str(path)) is None
    path.write_text(json.dumps({"version": 6, "entries": {}}) + "\n")  # an older version's
    assert rule_cache.file_damage(str(path)) is None
    for damage in ('{"check": "00000000", "version": 7}', '{"version"', "\x00\xff", "[]"):
        path.write_text(damage)
        assert "checksum" in (rule_cache.file_damage(str(path)) or ""), damage
    path.unlink()
    path.mkdir()
    assert "not readable" in (rule_cache.file_damage(str(path)) or "")


def test_a_fifo_in_place_of_the_cache_is_not_waited_on(mem: Memdir) -> None:
    _rule_and_plain(mem)
    cache = cache_path(mem.layout)
    cache.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cache)
    assert rule_cache.read(str(cache)) == ({}, b"")  # no writer: a blocking open would hang
    assert _load(mem) == [NPM["match"]]
