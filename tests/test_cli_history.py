"""The history on the command line: a timeline, old versions' text and diffs, ids as printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir import Memdir
from memdir.cli import main
from memdir.history.provenance import provenance


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def write(mem: Memdir, name: str, body: str) -> str:
    return mem.write(name=name, description=f"about {name}", type="project", body=body).record.file


def ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^v(\d+) ", text, flags=re.M)]


def test_history_without_a_name_lists_every_memorys_changes_newest_first_a_page_at_a_time(
    mem: Memdir, project: Path
) -> None:
    for n in range(23):
        write(mem, f"Fact {n:02d}", f"fact {n}")
    mem.delete("Fact 05")
    code, first, _ = run("history", "--project", str(project))
    assert code == 0
    assert ids(first) == list(range(24, 4, -1))  # 20 a page, the deletion first
    assert "delete" in first.splitlines()[0] and "Fact 05" in first.splitlines()[0]
    assert "older changes: memdir history --page 2" in first
    code, second, _ = run("history", "--page", "2", "--project", str(project))
    assert code == 0 and ids(second) == [4, 3, 2, 1] and "--page 3" not in second
    code, out, _ = run("history", "--project", str(project), "--json")
    page = json.loads(out)
    assert page["more"] is True and [v["id"] for v in page["versions"]][:2] == [24, 23]


def test_the_timeline_says_who_made_each_change(mem: Memdir, project: Path) -> None:
    write(mem, "By hand", "mine")
    with provenance(route="mcp", client="claude-code", session="s-9"):
        write(mem, "By agent", "theirs")
    _code, out, _ = run("history", "--project", str(project))
    agent, hand = out.splitlines()[:2]
    assert "mcp(claude-code)" in agent and "session=s-9" in agent and "By agent" in agent
    assert "api" in hand and "By hand" in hand


def test_show_prints_an_old_versions_text_and_diff_its_difference_from_now(
    mem: Memdir, project: Path
) -> None:
    file = write(mem, "Deploy", "Deploy with make ship.")
    write(mem, "Deploy", "Deploy with the pipeline.")
    old = mem.history("Deploy")[-1].id
    code, out, _ = run("history", "Deploy", "--show", f"v{old}", "--project", str(project))
    assert code == 0 and out.startswith("---\nname: Deploy\n")
    assert out.endswith("Deploy with make ship.\n")
    code, out, err = run("history", "Deploy", "--diff", f"v{old}", "--project", str(project))
    assert code == 0
    assert f"--- private/{file} (v{old})" in out and f"+++ private/{file} (now)" in out
    assert "-Deploy with make ship." in out and "+Deploy with the pipeline." in out
    assert f"memdir restore {file} --version v{old}" in err
    code, out, _ = run("history", "--show", str(old), "--project", str(project))  # no name
    assert code == 0 and out.endswith("Deploy with make ship.\n")


def test_show_of_a_deleted_memorys_last_version_prints_what_it_removed(
    mem: Memdir, project: Path
) -> None:
    write(mem, "Gone", "Soon gone.")
    mem.delete("Gone")
    last = mem.history("gone.md")[0]
    code, out, _ = run("history", "gone.md", "--show", f"v{last.id}", "--project", str(project))
    assert code == 0 and out.endswith("Soon gone.\n")
    code, out, _ = run("history", "gone.md", "--diff", f"v{last.id}", "--project", str(project))
    assert "(deleted)" in out and "-Soon gone." in out


def test_a_version_of_another_memory_or_none_is_a_clear_error(mem: Memdir, project: Path) -> None:
    write(mem, "One", "one")
    write(mem, "Two", "two")
    two = mem.history("Two")[0].id
    code, _, err = run("history", "One", "--show", f"v{two}", "--project", str(project))
    assert code == 1 and f"v{two} is not a version of 'One'" in err
    code, _, err = run("history", "--show", "v999999", "--project", str(project))
    assert code == 1 and "no version v999999 is kept" in err
    code, _, err = run("history", "--show", "v" + "9" * 40, "--project", str(project))
    assert code == 2 and "is not a version id" in err and "Traceback" not in err


@pytest.mark.parametrize("form", ["v{id}", "{id}", "V{id}"])
def test_restore_takes_the_version_id_as_history_prints_it(
    mem: Memdir, project: Path, form: str
) -> None:
    write(mem, "Plan", "First plan.")
    write(mem, "Plan", "Second plan.")
    code, out, _ = run("history", "Plan", "--project", str(project))
    printed = re.findall(r"^(v\d+) ", out, flags=re.M)[-1]  # the oldest, as printed
    version = form.format(id=printed[1:])
    code, out, err = run("restore", "Plan", "--version", version, "--project", str(project))
    assert code == 0, err
    assert Memdir.open(project).get("Plan").memory.body == "First plan.\n"


def test_redact_takes_the_version_id_as_history_prints_it(mem: Memdir, project: Path) -> None:
    write(mem, "Keys", "token is hunter2")
    write(mem, "Keys", "token is in the vault")
    oldest = mem.history("Keys")[-1].id
    code, _out, err = run("redact", "Keys", "--version", f"v{oldest}", "--project", str(project))
    assert code == 0, err
    assert Memdir.open(project).history("Keys")[-1].redacted


def test_undo_takes_the_change_it_prints_or_a_version(mem: Memdir, project: Path) -> None:
    first = write(mem, "Alpha", "alpha")
    write(mem, "Beta", "beta")
    alpha = mem.history("Alpha")[0]
    code, out, err = run("undo", f"v{alpha.id}", "--project", str(project))
    assert code == 0, err
    assert f"undid change {alpha.change}" in out and f"private:{first}" in out
    assert Memdir.open(project).private.find("Alpha") is None
    assert Memdir.open(project).private.find("Beta") is not None  # the later change stays
    code, _, err = run("undo", "nonsense", "--project", str(project))
    assert code == 2 and "neither a change (12) nor a version (v19)" in err


def test_review_approve_takes_the_id_review_prints(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    mem = Memdir.open(project)
    with provenance(route="mcp", session="s-1"):
        write(mem, "Held one", "one")
        write(mem, "Held two", "two")
    code, out, _ = run("review", "--project", str(project))
    first, second = re.findall(r"^(v\d+) ", out, flags=re.M)
    assert run("review", "approve", first, "--project", str(project))[0] == 0
    code, _, err = run("review", "approve", second[1:], "--project", str(project))  # "19"
    assert code == 0, err
    assert [p.version.id for p in Memdir.open(project).review()] == []
