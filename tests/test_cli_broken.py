"""Every command that takes a name reaches the file, whatever state it is in; edit again."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir import Memdir
from memdir.cli import main
from memdir.storage.memory_index import parse_entries

BROKEN = "---\nname: Deploy steps\ndescription: [unclosed\ntype: project\n---\nRun make ship.\n"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def broken(project: Path, scope: str = "private") -> Path:
    mem = Memdir.open(project)
    folder = mem.layout.memory_dir if scope == "private" else mem.layout.team_dir
    path = folder / "deploy_steps.md"
    path.write_text(BROKEN)
    return path


def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *scripts: str) -> Path:
    """An editor that runs the next of ``scripts`` on the file at each opening.

    Each script sees ``p`` (the file's path) and ``t`` (its text); what each opening
    was shown is appended to ``seen.txt`` beside it.
    """
    folder = tmp_path / "editor"
    folder.mkdir()
    for n, script in enumerate(scripts):
        (folder / f"step{n}.py").write_text(script)
    program = folder / "editor.py"
    program.write_text(
        "import pathlib, sys\n"
        "here = pathlib.Path(__file__).parent\n"
        "count = here / 'count'\n"
        "n = int(count.read_text()) if count.exists() else 0\n"
        "count.write_text(str(n + 1))\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "t = p.read_text()\n"
        "with open(here / 'seen.txt', 'a') as seen:\n"
        "    seen.write(t + '\\n=====\\n')\n"
        "exec((here / f'step{n}.py').read_text())\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {program}")
    return folder


@pytest.mark.parametrize("name", ["deploy_steps.md", "deploy_steps", "Deploy steps"])
def test_show_prints_a_broken_file_as_it_is_with_the_parse_error(project: Path, name: str) -> None:
    broken(project)
    code, out, err = run("show", name, "--project", str(project))
    assert code == 0 and out == BROKEN
    assert "private:deploy_steps.md cannot be read as a memory" in err and "(line 4)" in err
    assert "memdir edit deploy_steps.md" in err
    code, out, _ = run("show", name, "--project", str(project), "--json")
    shown = json.loads(out)
    assert shown["readable"] is False and shown["text"] == BROKEN and shown["line"] == 4


def test_a_broken_team_file_is_reached_by_its_listing_name(project: Path) -> None:
    broken(project, scope="team")
    code, out, _ = run("show", "team/deploy_steps.md", "--project", str(project))
    assert code == 0 and out == BROKEN
    code, out, _ = run("rm", "team/deploy_steps.md", "--project", str(project))
    assert code == 0 and not (Memdir.open(project).layout.team_dir / "deploy_steps.md").exists()


def test_rm_removes_a_broken_file_to_the_trash_and_keeps_its_text_in_the_history(
    project: Path,
) -> None:
    path = broken(project)
    code, out, _ = run("rm", "deploy_steps", "--project", str(project), "--json")
    trashed = Path(json.loads(out)["trashed"])
    assert code == 0 and not path.exists() and trashed.read_text() == BROKEN
    [version] = Memdir.open(project).history("deploy_steps.md")
    assert version.action == "delete"


def test_edit_fixes_a_broken_file_the_error_shown_at_the_top(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken(project)
    folder = editor(tmp_path, monkeypatch, "p.write_text(t.replace('[unclosed', 'unclosed'))\n")
    code, out, _ = run("edit", "deploy_steps", "--project", str(project))
    assert code == 0 and "saved private:deploy_steps.md" in out
    seen = (folder / "seen.txt").read_text()
    assert seen.startswith("# memdir: not saved: frontmatter is not valid YAML")
    mem = Memdir.open(project)
    fixed = mem.get("Deploy steps")
    assert fixed.memory.description == "unclosed" and fixed.memory.body == "Run make ship.\n"
    assert "# memdir" not in (mem.layout.memory_dir / fixed.file).read_text()
    assert [e.file for e in parse_entries(mem.private.read_index())] == ["deploy_steps.md"]


def test_other_commands_say_a_broken_file_cannot_be_read_not_that_it_is_missing(
    project: Path,
) -> None:
    broken(project)
    for args in (("pin", "deploy_steps"), ("verify", "deploy_steps"), ("why", "Deploy steps")):
        code, _, err = run(*args, "--project", str(project))
        assert code == 1 and "cannot be read as a memory" in err, args
        assert "no memory named" not in err and "memdir edit deploy_steps.md" in err


def test_doctor_fix_adds_no_index_line_for_a_file_it_cannot_read(project: Path) -> None:
    run("add", "--project", str(project), "--type", "project", "--name", "Fine",
        "--description", "a fine one")  # fmt: skip
    broken(project)
    code, out, _ = run("doctor", "--fix", "--project", str(project))
    assert code == 1 and "[unparseable] private:deploy_steps.md" in out
    assert "fix: fix its frontmatter: memdir edit deploy_steps.md" in out
    index = Memdir.open(project).private.read_index()
    assert [e.file for e in parse_entries(index)] == ["fine.md"]
    assert run("doctor", "--fix", "--project", str(project))[1] == out  # and never later


# -- edit again ---------------------------------------------------------------------------

BREAK = "p.write_text(t.replace('description: about Fragile', 'description: [about'))\n"
MEND = (
    "assert t.startswith('# memdir: not saved: frontmatter is not valid YAML'), t\n"
    "p.write_text(t.replace('[about', 'mended'))\n"
)


def fragile(project: Path) -> str:
    run("add", "--project", str(project), "--type", "project", "--name", "Fragile",
        "--description", "about Fragile", "--body", "Keep me.")  # fmt: skip
    return Memdir.open(project).get("Fragile").version


def test_a_refused_edit_offers_to_edit_again_on_the_same_text_with_the_error_on_top(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fragile(project)
    folder = editor(tmp_path, monkeypatch, BREAK, MEND)
    code, out, err = run("edit", "Fragile", "--project", str(project), input="y\n")
    assert code == 0 and "saved private:fragile.md" in out
    assert "edit again? [Y/n]" in err
    first, second = (folder / "seen.txt").read_text().split("\n=====\n")[:2]
    assert not first.startswith("# memdir") and "description: about Fragile" in first
    assert "description: [about" in second  # the same text, not the original
    assert second.splitlines()[0].startswith("# memdir: not saved:") and "(line " in second
    assert Memdir.open(project).get("Fragile").memory.description == "mended"
    assert not list(Memdir.open(project).layout.edits_dir.iterdir())


def test_answering_no_keeps_the_memory_and_leaves_doctor_nothing_to_report(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fragile(project)
    editor(tmp_path, monkeypatch, BREAK)
    code, _, err = run("edit", "Fragile", "--project", str(project), input="n\n")
    assert code == 1 and "not saved" in err and "private:fragile.md is as it was" in err
    mem = Memdir.open(project)
    assert mem.get("Fragile").version == before
    kept = Path(err.rsplit("your edit is kept in ", 1)[1].split(")")[0].strip())
    assert "[about" in kept.read_text() and ".trash" in kept.parts
    assert not list(mem.layout.edits_dir.iterdir())
    code, out, _ = run("doctor", "--project", str(project))
    assert code == 0 and out.strip() == "all good"


def test_without_a_terminal_a_refused_edit_is_not_asked_twice(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fragile(project)
    folder = editor(tmp_path, monkeypatch, BREAK, MEND)
    code, _, err = run("edit", "Fragile", "--project", str(project))  # end of input: no
    assert code == 1 and "not saved" in err
    assert (folder / "count").read_text() == "1"
    assert Memdir.open(project).get("Fragile").version == before


def test_saving_an_empty_file_leaves_the_memory_as_it_was(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fragile(project)
    editor(tmp_path, monkeypatch, BREAK, "p.write_text('')\n")
    code, out, _ = run("edit", "Fragile", "--project", str(project), input="y\n")
    assert code == 0 and "saved empty: not saved" in out
    mem = Memdir.open(project)
    assert mem.get("Fragile").version == before and not list(mem.layout.edits_dir.iterdir())


def _read_until(fd: int, wanted: bytes, timeout: float = 60.0) -> bytes:
    """Read ``fd`` until ``wanted`` appears (a prompt has no newline to wait for)."""
    seen = b""
    while wanted not in seen:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"waited {timeout} s for {wanted!r}; got {seen!r}"
        chunk = os.read(fd, 4096)
        assert chunk, f"the stream ended before {wanted!r}: {seen!r}"
        seen += chunk
    return seen


def test_ctrl_c_at_the_edit_again_prompt_exits_130_with_one_line(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fragile(project)
    editor(tmp_path, monkeypatch, BREAK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", _AT_A_TERMINAL, "edit", "Fragile", "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stderr is not None and child.stdin is not None
    said = _read_until(child.stderr.fileno(), b"edit again? [Y/n] ")
    child.send_signal(signal.SIGINT)
    _, rest = child.communicate(timeout=60)
    assert child.returncode == 130
    assert rest.decode().strip() == "memdir: interrupted"
    assert b"Traceback" not in said + rest and b"Aborted" not in rest
    assert Memdir.open(project).get("Fragile").version == before


# memdir as a terminal starts it: Ctrl-C raises KeyboardInterrupt. A process started in the
# background of a non-interactive shell inherits SIGINT ignored, and so would the child.
_AT_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'memdir'; runpy.run_module('memdir', run_name='__main__')"
)
