"""Pins and an honest index: what always loads, and a line for what does not."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.cli import main
from memdir.errors import InvalidMemory, ParseError
from memdir.hooks.payload import HookInput
from memdir.hooks.session_start import session_context
from memdir.model import FrontmatterStyle, Memory, MemoryType
from memdir.recall.context_budget import HOOK_CONTEXT_LIMIT, text_length
from memdir.recall.doctor import Problem, diagnose
from memdir.recall.index_fit import index_shape
from memdir.storage.codec import parse_memory, render_memory
from memdir.storage.memory_index import parse_entries

HOOK = "about the checkout service, its payment webhooks, retries and latency dashboards"
LEFT_OUT = "more MEMORY.md entries are not shown"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _fill(mem: Memdir, count: int) -> list[Path]:
    """``count`` memories, each changed one second after the one before."""
    base = time.time() - 86_400
    paths = []
    for i in range(count):
        record = mem.write(
            name=f"Memory {i:03d}", type="project", description=f"Fact {i} {HOOK}", body="b"
        ).record
        path = mem.layout.memory_dir / record.file
        os.utime(path, (base + i, base + i))
        paths.append(path)
    return paths


def _start(project: Path, session: str = "s-1") -> str:
    context = session_context(
        HookInput(cwd=str(project), session_id=session, source="startup"), env=os.environ
    )
    assert context is not None
    return context


def _titles(context: str) -> set[str]:
    return {entry.title for entry in parse_entries(context)}


def _pin_keeping_age(mem: Memdir, name: str, path: Path) -> None:
    """Pin ``name`` and give its file back the time it had: the pin, not its age, counts."""
    before = path.stat().st_mtime
    mem.pin(name)
    os.utime(path, (before, before))


# -- session start ---------------------------------------------------------------------------


def test_a_pinned_line_loads_at_session_start_and_the_oldest_unpinned_one_gives_way(
    mem: Memdir, project: Path
) -> None:
    paths = _fill(mem, 300)
    before = _titles(_start(project))
    assert "Memory 003" not in before  # old: far from the newest lines that fit
    _pin_keeping_age(mem, "Memory 003", paths[3])
    context = _start(project, session="s-2")
    after = _titles(context)
    assert text_length(context) <= HOOK_CONTEXT_LIMIT
    assert "Memory 003" in after
    # The rest give way: the least recently changed of the lines shown before goes first.
    given_way = before - after
    assert given_way
    assert max(given_way) < min(before & after)
    assert "Memory 299" in after


def test_a_pinned_line_past_the_load_limits_loads_in_every_prompt(project: Path) -> None:
    mem = Memdir.open(project, max_index_lines=10)
    paths = _fill(mem, 15)
    _pin_keeping_age(mem, "Memory 013", paths[13])
    text = mem.prompt()
    assert text is not None
    assert {"Memory 000", "Memory 013"} <= _titles(text)
    assert "Memory 014" not in _titles(text)
    assert "entries are not shown (past the index's load limits)" in text


def test_when_pins_alone_exceed_the_budget_the_line_and_doctor_say_so(
    mem: Memdir, project: Path
) -> None:
    for i in range(120):
        memory = Memory(
            name=f"Pinned {i:03d}", description=f"Rule {i} {HOOK}", type=MemoryType.FEEDBACK
        )
        mem.private.write(dataclasses.replace(memory, pinned=True))
    context = _start(project)
    assert text_length(context) <= HOOK_CONTEXT_LIMIT
    shown = _titles(context)
    assert shown and all(title.startswith("Pinned") for title in shown)
    (line,) = [line for line in context.splitlines() if LEFT_OUT in line]
    assert f"{120 - len(shown)} {LEFT_OUT}" in line
    assert "The pinned entries alone exceed this room" in line
    left = [f for f in diagnose(mem).findings if f.problem is Problem.PINNED_LEFT_OUT]
    assert len(left) == 120 - len(shown)
    assert "unpin some" in left[0].message
    again = cli("pin", left[0].file or "", "--project", str(project))
    assert "the pinned entries alone exceed what a session start holds" in again.output


def test_the_left_out_line_appears_exactly_when_lines_are_left_out(
    mem: Memdir, project: Path
) -> None:
    _fill(mem, 5)
    assert LEFT_OUT not in _start(project)
    assert (
        "a session start shows every index entry"
        in cli("prompt", "--project", str(project), "--left-out").output
    )
    _fill(mem, 250)
    context = _start(project, session="s-2")
    lines = [line for line in context.splitlines() if LEFT_OUT in line]
    assert len(lines) == 1
    assert "`memdir prompt --left-out` lists them" in lines[0]


def test_the_command_the_line_names_prints_the_entries_left_out(mem: Memdir, project: Path) -> None:
    _fill(mem, 250)
    context = _start(project)
    shown = {entry.file for entry in parse_entries(context)}
    index = parse_entries((mem.layout.memory_dir / "MEMORY.md").read_text())
    missing = [entry.raw for entry in index if entry.file not in shown]
    count = int(next(line for line in context.splitlines() if LEFT_OUT in line).split()[1])
    assert count == len(missing)
    result = cli("prompt", "--project", str(project), "--left-out")
    assert result.exit_code == 0, result.output
    printed = [line for line in result.output.splitlines() if line.startswith("- [")]
    assert printed == missing
    assert f"{count} index entries are left out" in result.output
    data = json.loads(cli("prompt", "--project", str(project), "--left-out", "--json").output)
    assert [entry["line"] for entry in data["left_out"]] == missing
    assert data["limit"] == HOOK_CONTEXT_LIMIT


# -- doctor ------------------------------------------------------------------------------------


def test_doctor_lists_a_memory_no_index_line_reaches(mem: Memdir) -> None:
    mem.write(name="Listed", description="in the index", type="project")
    loose = Memory(name="Loose", description="written by hand", type=MemoryType.PROJECT)
    (mem.layout.memory_dir / "loose.md").write_text(render_memory(loose))
    orphans = [f.file for f in diagnose(mem).findings if f.problem is Problem.ORPHAN]
    assert orphans == ["loose.md"]


def test_doctor_does_not_call_a_pinned_entry_past_the_load_limits_hidden(project: Path) -> None:
    mem = Memdir.open(project, max_index_lines=10)
    _fill(mem, 12)
    mem.pin("Memory 011")
    truncated = [f.file for f in diagnose(mem).findings if f.problem is Problem.TRUNCATED]
    assert truncated == ["memory_010.md"]


def test_doctor_counts_the_entries_a_session_start_leaves_out(mem: Memdir) -> None:
    _fill(mem, 250)
    (notice,) = [n for n in diagnose(mem, attention=True).notices if n.kind == "left-out"]
    assert notice.count > 0 and "memdir prompt --left-out" in notice.fix


# -- the field, the API and the CLI -----------------------------------------------------------


def test_pin_and_unpin_round_trip_through_the_file(mem: Memdir) -> None:
    record = mem.write(name="Deploy policy", description="canary first", type="feedback").record
    path = mem.layout.memory_dir / record.file
    original = path.read_bytes()
    pinned = mem.pin("Deploy policy")
    assert pinned.memory.pinned and "\npinned: true\n" in path.read_text()
    assert parse_memory(path.read_text()).pinned
    assert mem.pin("Deploy policy").version == pinned.version  # already pinned: no write
    assert not mem.unpin("Deploy policy").memory.pinned
    assert path.read_bytes() == original  # a pin changes no date: unpinned, the file is as it was


def test_pin_and_unpin_round_trip_through_the_cli(mem: Memdir, project: Path) -> None:
    record = mem.write(name="Release freeze", description="no merges Thursday", type="project")
    path = mem.layout.memory_dir / record.record.file
    done = cli("pin", "Release freeze", "--project", str(project))
    assert done.exit_code == 0, done.output
    assert "pinned release_freeze.md" in done.output
    assert mem.get("Release freeze").memory.pinned and "pinned: true" in path.read_text()
    data = json.loads(cli("unpin", "Release freeze", "--project", str(project), "--json").output)
    assert data["pinned"] is False and "pinned" not in path.read_text()


def test_pinning_a_memory_no_index_line_reaches_gives_it_one(mem: Memdir, project: Path) -> None:
    loose = Memory(name="Loose", description="written by hand", type=MemoryType.PROJECT)
    (mem.layout.memory_dir / "loose.md").write_text(render_memory(loose))
    done = cli("pin", "loose.md", "--project", str(project))
    assert done.exit_code == 0, done.output
    assert [e.file for e in parse_entries(mem.private.read_index())] == ["loose.md"]
    assert "[Loose](loose.md)" in _start(project)


def test_a_pin_in_claude_codes_shape_sits_under_metadata_and_round_trips() -> None:
    memory = Memory(
        name="deploy-policy",
        description="canary first",
        type=MemoryType.FEEDBACK,
        pinned=True,
        style=FrontmatterStyle.CLAUDE,
    )
    text = render_memory(memory)
    assert "metadata:\n  node_type: memory\n  type: feedback\n  pinned: true\n" in text
    assert parse_memory(text) == memory


@pytest.mark.parametrize("value", ["maybe", "2", "[true]"])
def test_a_pinned_value_that_is_not_true_or_false_is_refused_naming_the_file(value: str) -> None:
    text = f"---\nname: A\ndescription: d\ntype: user\npinned: {value}\n---\nbody\n"
    with pytest.raises(ParseError, match="pinned") as info:
        parse_memory(text, path="memory/a.md")
    assert str(info.value).startswith("memory/a.md")


@pytest.mark.parametrize(("value", "pinned"), [("true", True), ("false", False), ('"yes"', True)])
def test_true_and_false_pins_read_as_yaml_reads_them(value: str, pinned: bool) -> None:
    text = f"---\nname: A\ndescription: d\ntype: user\npinned: {value}\n---\n"
    assert parse_memory(text).pinned is pinned


def test_a_memory_refuses_a_pin_that_is_not_a_boolean() -> None:
    with pytest.raises(InvalidMemory, match="pinned must be true or false"):
        Memory(name="A", description="d", type=None, pinned="yes")  # type: ignore[arg-type]


names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1)


@settings(max_examples=60, deadline=None)
@given(
    name=names.filter(str.strip),
    pinned=st.booleans(),
    style=st.sampled_from(list(FrontmatterStyle)),
    extra=st.dictionaries(st.sampled_from(["owner", "note", "pinned_by"]), names, max_size=2),
)
def test_the_session_starts_quick_read_of_a_pin_agrees_with_the_codec(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    pinned: bool,
    style: FrontmatterStyle,
    extra: dict[str, str],
) -> None:
    folder = tmp_path_factory.mktemp("pins")
    memory = Memory(
        name=name, description="d", type=MemoryType.USER, pinned=pinned, style=style, extra=extra
    )
    (folder / "m.md").write_text(render_memory(memory), encoding="utf-8")
    parsed = parse_memory((folder / "m.md").read_text(encoding="utf-8"))
    shape = index_shape(folder)
    assert shape.pinned is not None
    assert parsed.pinned is pinned
    assert shape.pinned("m.md") is pinned


def test_the_docs_python_example_runs(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    page = Path(__file__).resolve().parent.parent / "docs" / "pins-and-use.md"
    (code,) = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    monkeypatch.chdir(project)
    exec(compile(code, str(page), "exec"), {})
    assert capsys.readouterr().out == "('release_freeze.md',)\n"


def test_under_the_claude_profile_doctor_says_claude_code_ignores_a_pin_past_its_cut(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    mem = Memdir.open(project, profile="claude", max_index_lines=10)
    for i in range(12):
        mem.write(name=f"fact {i:02d}", description=f"Fact {i}", type="project")
    mem.pin("fact 11")
    (finding,) = [f for f in diagnose(mem).findings if f.problem is Problem.PINNED_LEFT_OUT]
    assert finding.file == "fact-11.md"
    assert "knows nothing of pins" in finding.message
