"""The memdir command line: parse, one API call, render; exit codes."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_local import missing_reason, skip_or_fail
from memdir import Memdir
from memdir.cli import main
from memdir.cli.demo import Story


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def add(project: Path, name: str, *extra: str) -> tuple[int, str, str]:
    return run(
        "add", "--project", str(project), "--type", "project", "--name", name,
        "--description", f"about {name}", *extra,
    )  # fmt: skip


def test_add_then_list_and_show_as_json(project: Path) -> None:
    code, out, _ = add(project, "Release plan", "--body", "Ship on Friday.")
    assert code == 0 and "created private:release_plan.md" in out
    code, out, _ = run("list", "--project", str(project), "--json")
    listed = json.loads(out)
    assert [(m["file"], m["type"], m["scope"]) for m in listed] == [
        ("release_plan.md", "project", "private")
    ]
    code, out, _ = run("show", "release_plan", "--project", str(project), "--json")
    assert json.loads(out)["body"] == "Ship on Friday.\n"
    code, out, _ = run("show", "Release plan", "--project", str(project))
    assert out.startswith("---\nname: Release plan\n")


def test_add_reads_the_body_from_stdin_and_honours_file_and_scope(project: Path) -> None:
    code, _, _ = add(project, "Board", "--body", "-", "--scope", "team", "--file", "b.md")
    assert code == 0
    code, _, _ = run("add", "--project", str(project), "--type", "reference", "--name", "B",
                       "--description", "d", "--body", "-", "--file", "b2.md",
                       input="from stdin\n")  # fmt: skip
    assert Memdir.open(project).get("b2.md").memory.body == "from stdin\n"
    assert Memdir.open(project).get("b.md", scope="team").scope.value == "team"


def test_domain_errors_exit_1_naming_the_problem(project: Path) -> None:
    code, _, err = run("show", "missing", "--project", str(project))
    assert code == 1 and "no memory named 'missing' in private or team memory" in err
    assert "memdir list" in err
    code, _, err = add(project, "x", "--file", "../escape.md")
    assert code == 1 and "unsafe path" in err


def test_usage_errors_exit_2(project: Path) -> None:
    code, _, err = run("add", "--project", str(project), "--type", "opinion", "--name", "n",
                       "--description", "d")  # fmt: skip
    assert code == 2 and "opinion" in err
    assert run("nonsense")[0] == 2


def test_project_before_the_command_is_taken_by_the_command(project: Path) -> None:
    code, out, err = run("--project", str(project), "add", "--type", "project", "--name",
                         "Early", "--description", "given before the command")  # fmt: skip
    assert code == 0, err
    code, out, _ = run("--project", str(project), "list")
    assert code == 0 and "early.md" in out
    assert Memdir.open(project).get("Early").memory.description == "given before the command"
    code, _, err = run("--project", str(project / "missing"), "list")
    assert code == 2 and "memdir: error:" in err and "--profile" not in err


@pytest.mark.parametrize(
    "args",
    [
        ("hook", "install", "cursorx"),
        ("install", "nowhere"),
        ("restore", "x", "--version", "latest"),
        ("--bogus",),
    ],
)
def test_usage_errors_say_memdir_error_and_name_no_click_internals(args: tuple[str, ...]) -> None:
    code, _, err = run(*args)
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("memdir: error: ") and "{" not in last and "Error:" not in err


def test_a_commands_own_error_reads_like_every_other_one(project: Path) -> None:
    code, _, err = run("index", "embed", "--project", str(project))  # embeddings are off
    assert code == 1 and err.startswith("memdir: error: search is lexical here")
    assert "Error:" not in err


def test_install_hints_under_pipx_say_pipx_inject(tmp_path: Path) -> None:
    """In a pipx venv (it holds pipx_metadata.json) pip is not the person's: pipx inject."""
    import venv

    from memdir.cli._common import install_hint

    assert install_hint("ui") == "pip install 'memdir[ui]'"  # this venv is no pipx venv
    folder = tmp_path / "pipx-venv"
    venv.EnvBuilder(with_pip=False).create(folder)
    (folder / "pipx_metadata.json").write_text("{}")
    paths = os.pathsep.join(p for p in sys.path if p)
    code = "from memdir.cli._common import install_hint; print(install_hint('ui'))"
    done = subprocess.run(
        [str(folder / "bin" / "python"), "-c", code],
        env={**os.environ, "PYTHONPATH": paths},
        capture_output=True,
        text=True,
        check=True,
    )
    hint = done.stdout.strip()
    assert hint.startswith("pipx inject memdir ") and "starlette" in hint and "jinja2" in hint


def test_a_search_hit_shows_its_rank_and_a_useful_score(project: Path) -> None:
    for n in range(3):  # a word every memory holds: BM25 gives it a score near zero
        add(project, f"Cluster {n}", "--body", f"kubernetes ingress {n}")
    code, out, _ = run("search", "kubernetes", "--project", str(project))
    lines = [line for line in out.splitlines() if "[memory" in line]
    assert code == 0 and len(lines) == 3 and "0.00" not in out
    assert [line.split()[:2] for line in lines] == [["1.", "100%"], ["2.", "100%"], ["3.", "100%"]]


def test_export_agents_md_says_created_then_unchanged(project: Path) -> None:
    add(project, "Shared", "--scope", "team")
    code, out, _ = run("export", "agents-md", "--project", str(project))
    assert code == 0 and f"created: {project / 'AGENTS.md'}" in out
    code, out, _ = run("export", "agents-md", "--project", str(project))
    assert f"unchanged: {project / 'AGENTS.md'}" in out
    add(project, "Shared two", "--scope", "team")
    code, out, _ = run("export", "agents-md", "--project", str(project))
    assert f"updated: {project / 'AGENTS.md'}" in out


def test_rm_moves_to_trash(project: Path) -> None:
    add(project, "Gone")
    code, out, _ = run("rm", "Gone", "--project", str(project), "--json")
    trashed = Path(json.loads(out)["trashed"])
    assert code == 0 and trashed.is_file() and ".trash" in trashed.parts


def test_doctor_reports_then_fixes_and_exits_by_health(project: Path) -> None:
    add(project, "Kept")
    mem = Memdir.open(project)
    (mem.layout.memory_dir / "orphan.md").write_text(
        "---\nname: Orphan\ndescription: no line\ntype: user\n---\nx\n"
    )
    code, out, _ = run("doctor", "--project", str(project))
    assert code == 1 and "[orphan] private:orphan.md" in out
    code, out, _ = run("doctor", "--fix", "--project", str(project), "--json")
    assert code == 0 and json.loads(out)["findings"][0]["fixed"] is True
    assert run("doctor", "--project", str(project))[1].strip() == "all good"


def test_path_prints_the_memory_directory(project: Path) -> None:
    code, out, _ = run("path", "--project", str(project))
    assert code == 0
    assert Path(out.strip()) == Memdir.open(project).layout.memory_dir
    data = json.loads(run("path", "--project", str(project), "--json")[1])
    assert Path(data["project_root"]) == project.resolve()


EditWith = Callable[[str, str], tuple[int, str, str]]


@pytest.fixture
def edit_with(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EditWith:
    """``edit_with(script, name)``: ``memdir edit NAME`` in ``project`` with an editor that
    runs ``script`` on the file it is given."""

    def edit(script: str, name: str) -> tuple[int, str, str]:
        editor = tmp_path / "editor.py"
        editor.write_text("import sys, pathlib\n" + script)
        monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
        return run("edit", name, "--project", str(project))

    return edit


def replacing(old: str, new: str) -> str:
    """An editor script that replaces ``old`` with ``new`` in the file."""
    return f"p = pathlib.Path(sys.argv[1])\np.write_text(p.read_text().replace({old!r}, {new!r}))\n"


def test_edit_saves_a_valid_change_through_the_editor(project: Path, edit_with: EditWith) -> None:
    add(project, "Editable")
    script = replacing("about Editable", "edited hook")
    code, out, _ = edit_with(script, "Editable")
    assert code == 0 and "saved" in out
    mem = Memdir.open(project)
    assert mem.get("Editable").memory.description == "edited hook"
    assert "edited hook" in mem.private.read_index()


def test_edit_that_breaks_the_frontmatter_is_not_saved(project: Path, edit_with: EditWith) -> None:
    add(project, "Fragile")
    before = Memdir.open(project).get("Fragile")
    script = "pathlib.Path(sys.argv[1]).write_text('---\\nname: [x\\n  - : :\\n---\\n')\n"
    code, _, err = edit_with(script, "Fragile")
    assert code == 1 and "not saved" in err and "your edit is kept in" in err
    assert Memdir.open(project).get("Fragile").version == before.version


def test_an_edit_to_an_unknown_type_is_refused_naming_the_four_types(
    project: Path, edit_with: EditWith
) -> None:
    add(project, "Typed")
    script = replacing("type: project", "type: banana")
    code, _, err = edit_with(script, "Typed")
    assert code == 1 and "has type 'banana': the type is one of user, feedback, project" in err
    assert "your edit is kept in" in err


@pytest.fixture(scope="module")
def demo_out() -> str:
    """The output of one demo run with no model (a real process: the MCP step needs one)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    # MEMDIR_PROVIDER=none: the embedded local model would otherwise be the default.
    env["MEMDIR_PROVIDER"] = "none"
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "demo"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_runs_end_to_end_and_says_which_model_steps_it_skipped(demo_out: str) -> None:
    markers = (
        "user_role.md",
        "merge_freeze.md",
        "forgotten.md",
        "all good",
        "## Team MEMORY.md",
        "8 days ago",
        "`docs/release.md` no longer exists",
        "Linear project INGEST",
        "skipped: no language model is configured",
        "tools/call search",
        "team/merge_freeze.md [project]",
    )
    for marker in markers:
        assert marker in demo_out
    assert "model wrote" not in demo_out and "extraction:" not in demo_out


def test_demo_shows_the_conversation_then_the_agents_scripted_saves(demo_out: str) -> None:
    titles = re.findall(r"^== (\d)\. (.*)$", demo_out, re.M)
    assert [n for n, _ in titles] == [str(n) for n in range(1, 10)]
    conversation, saves = titles[0][1], titles[1][1]
    assert "scripted by the demo" in conversation
    assert "the agent saves" in saves.lower() and "the demo plays the agent" in saves
    # The conversation is shown before anything is saved from it.
    assert demo_out.index("Pipeline bugs live in the Linear project") < demo_out.index(
        "user_role.md"
    )


def test_demo_dates_follow_one_clock(demo_out: str) -> None:
    spoken = re.findall(r"^  (\d{4}-\d{2}-\d{2}) \d\d:\d\d (?:user|assistant) ", demo_out, re.M)
    last_day = dt.date.fromisoformat(spoken[-1])
    recall = re.search(r"^== 6\. Recall 8 days after the conversation \((.*?)\)", demo_out, re.M)
    assert recall is not None
    assert dt.date.fromisoformat(recall.group(1)) == last_day + dt.timedelta(days=8)
    said = re.search(
        r"^  (\d{4}-\d{2}-\d{2}) \d\d:\d\d user +Heads-up: .*from tomorrow", demo_out, re.M
    )
    assert said is not None
    freeze = (dt.date.fromisoformat(said.group(1)) + dt.timedelta(days=1)).isoformat()
    assert f"Understood: freeze from {freeze}." in demo_out
    assert f"Merge freeze starts {freeze}" in demo_out
    searched = re.findall(r"^ +[\d.]+ (\d{4}-\d{2}-\d{2}) turn ", demo_out, re.M)
    assert searched and all(day in spoken for day in searched)


def test_the_demo_recalls_eight_days_after_a_conversation_that_ended_before_midnight() -> None:
    story = Story(now=dt.datetime(2026, 12, 7, 0, 10))
    last, _, _ = story.conversation()[-1]
    assert last.date() == dt.date(2026, 12, 6)
    assert story.recall_day == dt.date(2026, 12, 14)


@pytest.mark.slow
def test_demo_with_no_key_runs_the_model_steps_on_the_embedded_local_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason = missing_reason()
    if reason is not None:
        skip_or_fail(reason)
    for var in (
        "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MEMDIR_PROVIDER",
        "MEMDIR_LOCAL_MODEL",
    ):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    done = subprocess.run(
        [sys.executable, "-m", "memdir", "demo"], capture_output=True, text=True, timeout=600
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    steps = out[out.index("== 8. A model extracts") : out.index("== 9. An MCP client")]
    assert "provider: embedded local model SmolLM2-135M" in steps
    assert "via llama.cpp" in steps
    assert "(empty before this step)" in steps and "extraction: " in steps
    # Whatever the small model saved is listed, and only that; a 135M model may also
    # wander off, and then the step says so in plain words and lists nothing.
    saved = re.search(r"extraction: Saved (\d+) memor", steps)
    if saved is None:
        assert "extraction: Extraction failed: run stopped: max_tokens" in steps
        assert "answered in prose up to its token limit, not with a tool call" in steps
        assert "the model saved no memory" in steps and "model wrote " not in steps
    else:
        assert steps.count("model wrote ") == int(saved.group(1))
    assert "skipped: no language model" not in out


# What the everyday commands load, in a fresh process through the `memdir` script: never
# the model layer, the MCP SDK, numpy or rich; `prompt` not even the facade and its stores.
EVERYDAY: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "search": (["search", "deploy"], ()),
    "prompt": (["prompt"], ("memdir.api", "memdir.storage.store", "memdir.search", "yaml")),
    "recall": (["recall", "deploy"], ()),
    "manifest": (["manifest"], ()),
    "add": (["add", "--name", "Tabs", "--description", "Tabs, not spaces", "--type", "user"], ()),
}


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_load_only_what_they_use(command: str, project: Path) -> None:
    assert add(project, "Deploy window")[0] == 0
    args, also_unused = EVERYDAY[command]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memdir", *args, "--project", str(project)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    unused = ("memdir.llm", "mcp", "numpy", "rich", "anthropic", "openai", *also_unused)
    assert not {m for m in loaded if m in unused or m.startswith(tuple(f"{u}." for u in unused))}


def test_a_project_folder_that_does_not_exist_is_refused_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "nonexistent"
    home = Path(os.environ["MEMDIR_HOME"])
    before = sorted(home.rglob("*")) if home.exists() else []
    code, out, err = add(missing, "x")
    assert code == 2 and "does not exist" in err and "created" not in out
    code, _, err = run("list", "--project", str(missing))
    assert code == 2 and "does not exist" in err
    assert not missing.exists()
    assert (sorted(home.rglob("*")) if home.exists() else []) == before


def test_a_store_made_outside_git_says_once_which_folder_keys_it(tmp_path: Path) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    code, _, err = add(plain, "first")
    assert code == 0
    assert f"{plain.resolve()} is not in a git repository" in err
    code, _, err = add(plain, "second")
    assert code == 0 and "git repository" not in err  # said once, when the store was made


def test_a_store_made_inside_git_says_nothing_about_its_folder(project: Path) -> None:
    code, _, err = add(project, "first")
    assert code == 0 and err == ""


def test_a_write_past_the_index_load_limit_says_what_the_prompt_no_longer_shows(
    project: Path,
) -> None:
    home = Path(os.environ["MEMDIR_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("max_index_lines = 3\n")
    for name in ("One", "Two", "Three"):
        code, _, err = add(project, name)
        assert code == 0 and err == ""
    code, out, err = add(project, "Four")
    assert code == 0 and "created private:four.md" in out
    (warning,) = err.splitlines()
    assert "past the prompt's load limit (3 lines" in warning
    assert "no longer see 1 entry (this one among them)" in warning
    assert "memdir consolidate" in warning and "memdir doctor" in warning
    # Rewriting an entry that is still shown says the same, about the hidden one.
    code, _, err = add(project, "One", "--body", "more")
    assert "no longer see 1 entry (from four.md on)" in err


def _memdir(*args: str) -> list[str]:
    return [sys.executable, "-m", "memdir", *args]


@pytest.mark.parametrize("command", [["list", "--json"], ["show", "big"]])
def test_a_reader_that_closes_the_pipe_early_gets_a_quiet_exit(
    project: Path, command: list[str]
) -> None:
    Memdir.open(project).write(name="Big", description="big", type="project", body="b\n" * 5000)
    # The reader is gone before memdir writes (`memdir list --json | head -0`).
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        child = subprocess.run(
            _memdir(*command, "--project", str(project)),
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert child.returncode == 141  # what a shell reports for `cat` stopped the same way
    assert child.stderr == b""  # no "Broken pipe" error, no traceback


def test_log_dash_reads_standard_input_like_add_body_dash(project: Path) -> None:
    code, _, _ = run("log", "-", "--project", str(project), input="deploy went out at 14:00\n")
    assert code == 0
    logs = list(Memdir.open(project).layout.logs_dir.rglob("*.md"))
    (text,) = [p.read_text() for p in logs]
    assert "deploy went out at 14:00" in text and "- -\n" not in text


def test_scan_dash_reads_standard_input(project: Path) -> None:
    from memdir.team.secret_rules import render_example

    key = "ghp_" + render_example("[[alnum:36]]", "scan-stdin")
    code, out, _ = run("scan", "-", input=f"aws key {key}\n")
    assert code == 1 and "-:1:" in out and key not in out
    code, out, _ = run("scan", "-", input="nothing here\n")
    assert code == 0


def test_bare_log_in_a_terminal_says_what_it_is_waiting_for(project: Path) -> None:
    import pty

    leader, follower = pty.openpty()
    child = subprocess.Popen(
        _memdir("log", "--project", str(project)),
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    try:
        os.write(leader, b"a note typed by hand\n\x04")
        out, err = child.communicate(timeout=60)
    finally:
        os.close(leader)
    assert child.returncode == 0, err
    assert b"reading the log entry from the terminal" in err and b"Ctrl-D" in err
    assert b"logged to" in out


def test_show_with_a_typo_names_both_scopes_and_suggests_near_names(project: Path) -> None:
    add(project, "Release plan")
    add(project, "Oncall rotation", "--scope", "team")
    code, _, err = run("show", "relase_plan", "--project", str(project))
    assert code == 1
    assert "no memory named 'relase_plan' in private or team memory" in err
    assert "did you mean release_plan.md?" in err
    code, _, err = run("show", "Oncal rotation", "--project", str(project))
    assert "did you mean oncall_rotation.md (team)?" in err
    code, _, err = run("show", "zzzz", "--project", str(project))
    assert code == 1 and "did you mean" not in err


def test_list_at_80_columns_keeps_the_file_whole_and_shows_dates(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_name = "Quarterly infrastructure review outcomes"
    add(project, long_name, "--description", "what was decided and by whom " * 6)
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run("list", "--project", str(project))
    assert code == 0
    (record,) = Memdir.open(project).list()
    file = record.file
    assert len(file) > 40 and file in out  # whole, on one line: the handle show, edit and rm take
    assert dt.date.fromtimestamp(record.mtime).isoformat() in out or (
        record.memory.updated is not None and record.memory.updated.isoformat() in out
    )
    assert out.splitlines()[0].split()[:4] == ["scope", "updated", "type", "file"]
    assert all(len(line) <= 80 for line in out.splitlines())
    assert out.splitlines()[1].endswith("…")  # the description gave way, not the file


def test_init_prints_where_memory_lives_and_the_next_steps(project: Path) -> None:
    code, out, _ = run("init", "--project", str(project))
    assert code == 0 and out.startswith("memory ready at ")
    assert "next steps:" in out and "memdir add --type" in out
    assert "memdir install" in out and "memdir team init" in out
    code, out, _ = run("init", "--project", str(project), "--json")
    assert "next steps" not in out and json.loads(out)["memory_dir"]


README = Path(__file__).resolve().parent.parent / "README.md"


def test_inits_next_step_for_claude_code_is_the_setup_the_readme_recommends(
    project: Path,
) -> None:
    """The README recommends memdir in Claude Code's own folder (its auto memory kept on);
    the bare ``hook install claude`` turns that auto memory off, so init must not lead there."""
    readme = README.read_text(encoding="utf-8")
    recommended = [
        "memdir --profile claude hook install claude",
        "memdir --profile claude install claude-code",
    ]
    assert all(command in readme for command in recommended)
    code, out, _ = run("init", "--project", str(project))
    assert code == 0 and all(command in out for command in recommended)
    assert not re.search(r"^\s*memdir hook install claude", out, flags=re.M)
    assert "auto memory stays on" in out


def test_list_names_a_memory_whose_frontmatter_is_broken(project: Path) -> None:
    add(project, "Fine one")
    folder = Memdir.open(project).layout.memory_dir
    (folder / "broken.md").write_text("---\nname: [Broken\ndescription: d\n---\nbody\n")
    for args in (("list",), ("list", "--json")):
        code, out, err = run(*args, "--project", str(project))
        assert code == 0
        assert "fine_one.md" in out and "broken.md" not in out
        assert err.count("\n") == 1
        assert err.startswith("warning: private:broken.md is not listed: it cannot be read")
        assert "YAML" in err


def test_an_edit_killed_with_its_editor_open_keeps_the_copy_where_it_said(
    project: Path, tmp_path: Path
) -> None:
    add(project, "Killed edit")
    mem = Memdir.open(project)
    before = mem.get("Killed edit")
    editor = tmp_path / "editor.py"
    editor.write_text(  # saves a change, then memdir is killed before the editor returns
        "import os, signal, sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('about Killed edit', 'half done'))\n"
        "os.kill(os.getppid(), signal.SIGKILL)\n"
    )
    env = {**os.environ, "EDITOR": f"{sys.executable} {editor}"}
    command = [sys.executable, "-m", "memdir", "edit", "Killed edit", "--project", str(project)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == -9
    said = re.search(r"editing a copy at (\S+)", done.stderr)
    assert said is not None, done.stderr
    copy = Path(said.group(1))
    assert copy.parent == mem.layout.edits_dir  # in the memory home, not a shared /tmp
    assert "half done" in copy.read_text()  # the edit is recoverable
    assert copy.stat().st_mode & 0o077 == 0
    assert mem.get("Killed edit").version == before.version
    code, out, _ = run("doctor", "--project", str(project))
    assert code == 0, out  # information: the copy is someone's text, never removed
    assert f"[edit-copy] {copy} is the copy of an edit that was interrupted" in out
    # A finished edit leaves no copy behind.
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('about Killed edit', 'finished'))\n"
    )
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert list(mem.layout.edits_dir.iterdir()) == [copy]
