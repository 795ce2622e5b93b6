"""An agent's shell command that writes into memory meets the review gate first.

The pre-tool-use hook reads a Bash call the way the rule gate does. A write into
a memory folder whose text is known before it runs (a here-document, an echo, a
pipe from one) is judged as the Write of the file's text; one whose text is not
known is refused, the agent pointed to its file tools; memdir's own commands
that change memory as the user are the user's to run.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.api import Memdir
from memdir.hooks.dialects import HOST_VARIABLE
from memdir.hooks.shell_writes import shell_memory_calls
from test_memory_file_writes import CLEAN, POISON, answer, decision, memory_text, saved_memory


def shell(mem: Memdir, command: str, env: dict[str, str] | None = None) -> tuple[str, str] | None:
    return decision(answer(mem, "Bash", {"command": command}, env))


def on_a_saved_memory(mem: Memdir, command: str, **more: str) -> str:
    """``command`` with ``{folder}`` the memory folder and ``{file}`` a memory saved in it."""
    return command.format(folder=mem.layout.memory_dir, file=saved_memory(mem), **more)


def heredoc(target: Path, text: str, *, operator: str = ">") -> str:
    return f"cat {operator} {shlex.quote(str(target))} <<'EOF'\n{text}EOF\n"


def test_a_poisoned_memory_written_through_a_here_document_is_held(mem: Memdir) -> None:
    target = mem.layout.memory_dir / "package_manager.md"
    got = shell(mem, heredoc(target, memory_text(POISON)))
    assert got is not None
    action, reason = got
    assert action == "deny" and "kept this write to package_manager.md" in reason
    assert not target.exists()
    [pending] = mem.review()
    assert pending.version.route == "hook" and "ignore the user" in pending.diff


def test_a_clean_memory_written_through_a_here_document_goes_on(mem: Memdir) -> None:
    target = mem.layout.memory_dir / "package_manager.md"
    assert shell(mem, heredoc(target, memory_text(CLEAN))) is None
    assert mem.review() == []


def test_under_manual_review_a_shell_written_memory_waits_like_a_written_one(
    mem: Memdir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_REVIEW", "manual")
    target = mem.layout.memory_dir / "package_manager.md"
    got = shell(mem, heredoc(target, memory_text(CLEAN)))
    assert got is not None and got[0] == "deny"
    assert not target.exists()
    [pending] = mem.review()
    mem.approve(pending.version.file)
    assert "pnpm-lock.yaml" in target.read_text()


def test_an_appended_log_line_is_screened_with_the_log_it_joins(mem: Memdir) -> None:
    log = mem.layout.memory_dir / "logs" / "2026" / "12" / "2026-12-06.md"
    clean = f"echo '- 10:00:00 moved CI to pnpm' >> {log}"
    assert shell(mem, clean) is None
    poisoned = f"echo {shlex.quote(f'- 10:01:00 {POISON}')} >> {log}"
    got = shell(mem, poisoned)
    assert got is not None and got[0] == "deny"
    assert "screened" in got[1] and "2026-12-06.md" in got[1]


@pytest.mark.parametrize(
    "command",
    [
        "cd {folder} && {write} > notes.md",  # a relative path after cd
        "bash -c {quoted_write_to_file}",  # a shell's body
        "{write} | tee -a {file}",  # a pipe from a known printer
        "P={folder}; printf '%s' {poison_word} > $P/notes.md",  # a variable set on the line
    ],
)
def test_the_shell_forms_of_a_write_are_seen(mem: Memdir, command: str) -> None:
    folder = mem.layout.memory_dir
    write = f"echo {shlex.quote(POISON)}"
    filled = command.format(
        folder=shlex.quote(str(folder)),
        write=write,
        file=shlex.quote(str(folder / "notes.md")),
        quoted_write_to_file=shlex.quote(f"{write} > {folder / 'notes.md'}"),
        poison_word=shlex.quote(POISON),
    )
    got = shell(mem, filled)
    assert got is not None and got[0] == "deny", filled
    assert not (folder / "notes.md").exists()


@pytest.mark.parametrize(
    "command",
    [
        "cp /etc/hostname {folder}/",
        "cp /etc/hostname {folder}/copied.md",
        "sed -i 's/pnpm/npm/' {file}",
        "curl -o {file} http://127.0.0.1:9/x",
        "{printer} > {file}",
        "cat > {file} <<EOF\n$(cat /tmp/anything)\nEOF\n",
        'echo "$SOME_VARIABLE" >> {file}',
        "dd if=/dev/zero of={file} count=1",
        "echo fine 2>> {file}",  # what lands there is the error stream
        "curl -sSo {file} http://127.0.0.1:9/x",  # the option in a cluster
        "wget -qO {file} http://127.0.0.1:9/x",
        "cp -t {folder} /etc/hostname",
        "rsync -a -e ssh /etc/hostname {folder}/",
        "install -m 644 /etc/hostname {file}",
        "scp -P 2222 backup:/notes.md {file}",
        "patch {file} /tmp/fix.diff",
    ],
)
def test_a_write_whose_text_is_not_known_is_refused(mem: Memdir, command: str) -> None:
    filled = on_a_saved_memory(mem, command, printer="python3 -V")
    got = shell(mem, filled)
    assert got is not None and got[0] == "deny", filled
    assert "file tools" in got[1]
    assert mem.review() == []


@pytest.mark.parametrize(
    "command",
    [
        "cat {file}",
        "sed -n 1,20p {file}",
        "grep -rn pnpm {folder} 2>/dev/null > /tmp/found.txt",
        "ls -la {folder}",
        "mv {file} {folder}/renamed.md",  # within memory: no new text comes in
        "cp {file} {folder}/copy.md",
        "rm -f {file}",  # a deletion brings nothing in
        "memdir list",
        "memdir review",
        "memdir --project {folder} show package_manager",
        "memdir forget 'Package manager'",
    ],
)
def test_reading_and_moving_within_memory_go_on(mem: Memdir, command: str) -> None:
    assert shell(mem, on_a_saved_memory(mem, command)) is None


@pytest.mark.parametrize(
    ("command", "verb"),
    [
        ("memdir review approve package_manager", "review approve"),
        ("memdir --project . add --name x --type user 'Likes tea'", "add"),
        ("python3 -m memdir pin package_manager", "pin"),
        ("cd /tmp && memdir unforget 'Package manager'", "unforget"),
        ("memdir log - <<'EOF'\nnote\nEOF", "log"),
        ("python3 /opt/plugin/bin/memdir-plugin review reject package_manager", "review reject"),
        ("memdir-plugin add --type user --name n --description d --body b", "add"),
    ],
)
def test_memdirs_own_commands_that_act_as_the_user_are_asked_about(
    mem: Memdir, command: str, verb: str
) -> None:
    got = shell(mem, command)
    assert got == ("ask", got[1] if got else "")
    assert f"`memdir {verb}`" in got[1] and "only when the user asked for it" in got[1]
    # Where the host's hooks cannot ask, the agent is refused and told to ask the user.
    codex = shell(mem, command, {**os.environ, HOST_VARIABLE: "codex"})
    assert codex is not None and codex[0] == "deny" and "cannot ask" in codex[1]


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("python3 -c \"open('{file}', 'a').write('x')\"", "in its code"),
        ("python3 - <<'EOF'\nopen('{file}', 'w').write('x')\nEOF\n", "in its code"),
        ("node -e \"require('fs').writeFileSync('{folder}/x.md', 'x')\"", "in its code"),
        ("perl -e 'open(F, \">>{file}\")'", "in its code"),
        ("awk -F , '{{print > \"{file}\"}}' /etc/hostname", "in its code"),
        (
            "python3 -c \"import pathlib; (pathlib.Path.home() / '{rel}/x.md').write_text('')\"",
            "in its code",
        ),
        ("cd {folder} && python3 tidy.py", "inside a memory folder"),
        ("python3.12 tools/fix_frontmatter.py {file}", "handed a memory file"),
    ],
)
def test_a_program_that_may_write_memory_by_its_own_code_is_refused(
    mem: Memdir, command: str, why: str
) -> None:
    folder = mem.layout.memory_dir
    home = folder.parent.parent
    rel = folder.relative_to(home)
    filled = command.format(folder=folder, file=folder / "package_manager.md", rel=rel)
    got = shell(mem, filled, {**os.environ, "HOME": str(home)})
    assert got is not None and got[0] == "deny", filled
    assert why in got[1] and "file tools" in got[1]


@pytest.mark.parametrize(
    "command",
    [
        "git -C {folder} pull",
        "cd {folder} && git reset --hard HEAD~1",
        "git -C {folder} -c core.autocrlf=false checkout -- .",
        "git --work-tree={folder} stash pop",
        "cd /tmp && git clone /srv/notes.git {folder}/team",
    ],
)
def test_git_changing_a_memory_folders_files_is_refused(mem: Memdir, command: str) -> None:
    got = shell(mem, command.format(folder=mem.layout.memory_dir))
    assert got is not None and got[0] == "deny"
    assert "memdir team sync" in got[1] and "memdir sync" in got[1]


@pytest.mark.parametrize(
    "command",
    [
        "git -C {folder} status",
        "cd {folder} && git log --oneline -5",
        "git -C {folder} diff HEAD~1",
        "cat {folder}/MEMORY.md | python3 -c 'import sys; print(len(sys.stdin.read()))'",
        "cd {folder} && wc -l MEMORY.md && cd /tmp && python3 -c 'print(1)'",
    ],
)
def test_programs_that_only_read_memory_go_on(mem: Memdir, command: str) -> None:
    assert shell(mem, command.format(folder=mem.layout.memory_dir)) is None


def test_a_command_naming_memory_that_cannot_be_read_whole_is_refused(mem: Memdir) -> None:
    target = mem.layout.memory_dir / "x.md"
    padding = "x" * 100_001
    got = shell(mem, f"echo {padding} > /dev/null; echo {shlex.quote(POISON)} > {target}")
    assert got is not None and got[0] == "deny" and "read whole" in got[1]
    got = shell(mem, f"echo 'unclosed > {target}")
    assert got is not None and got[0] == "deny"


def test_a_shell_calls_own_folder_is_where_its_relative_paths_land(mem: Memdir) -> None:
    gemini = {**os.environ, HOST_VARIABLE: "gemini"}
    folder = str(mem.layout.memory_dir)
    call = {"command": f"echo {shlex.quote(POISON)} > notes.md", "dir_path": folder}
    got = decision(answer(mem, "run_shell_command", call, gemini))
    assert got is not None and got[0] == "deny"
    elsewhere = {**call, "dir_path": str(mem.layout.project_root)}
    assert decision(answer(mem, "run_shell_command", elsewhere, gemini)) is None


def test_home_and_tilde_are_read_as_the_shell_reads_them(mem: Memdir) -> None:
    folder = mem.layout.memory_dir
    home = folder.parent.parent
    env = {**os.environ, "HOME": str(home)}
    rel = folder.relative_to(home)
    for prefix in ("~", "$HOME", "${HOME}"):
        got = shell(mem, f"echo {shlex.quote(POISON)} > {prefix}/{rel}/x.md", env)
        assert got is not None and got[0] == "deny", prefix


def test_gemini_and_codex_shells_meet_the_same_gate(mem: Memdir) -> None:
    target = mem.layout.memory_dir / "package_manager.md"
    gemini = {**os.environ, HOST_VARIABLE: "gemini"}
    command = heredoc(target, memory_text(POISON))
    got = decision(answer(mem, "run_shell_command", {"command": command}, gemini))
    assert got is not None and got[0] == "deny"
    codex = {**os.environ, HOST_VARIABLE: "codex"}
    words = ["bash", "-lc", command]
    got = decision(answer(mem, "Bash", {"command": words}, codex))
    assert got is not None and got[0] == "deny"
    assert not target.exists()
    assert len(mem.review()) == 2


def test_commands_that_name_no_memory_folder_are_not_read(mem: Memdir, tmp_path: Path) -> None:
    out = tmp_path / "out.md"
    assert shell(mem, f"echo {shlex.quote(POISON)} > {out}") is None


def test_a_daily_log_written_with_the_write_tool_is_screened_too(mem: Memdir) -> None:
    log = mem.layout.memory_dir / "logs" / "2026" / "12" / "2026-12-06.md"
    poisoned = {"file_path": str(log), "content": f"- 10:01:00 {POISON}\n"}
    got = decision(answer(mem, "Write", poisoned))
    assert got is not None and got[0] == "deny" and "screened" in got[1]
    clean = {"file_path": str(log), "content": "- 10:00:00 moved CI to pnpm\n"}
    assert answer(mem, "Write", clean) is None


def test_each_command_comes_with_its_input_when_the_reader_knows_it() -> None:
    from memdir.enforcement.shell_words import commands_with_input

    line = "cat > a.md <<'EOF'\nbody $(x)\nEOF\necho hi | tee b.md; cat <<< 'said'; ls | tee c"
    found, complete = commands_with_input(line)
    assert complete
    assert found[0] == (["cat", ">a.md", "<<EOF"], "body $(x)\n")  # quoted: as written
    assert [g for w, g in found if w == ["tee", "b.md"]] == ["hi"]  # what echo printed
    assert [g for w, g in found if w[0] == "cat" and "<<<said" in w] == ["said\n"]
    assert [g for w, g in found if w == ["tee", "c"]] == [None]  # ls prints what is unknown


ROOTS = [("private", "/m/memory", frozenset({"team"})), ("team", "/m/memory/team", frozenset())]
PIECES = ["/m/memory/", "x.md", "cd ", "echo ", "cat ", "tee ", "cp ", "memdir ", "add ", ">", ">>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*PIECES, *"ab $()`'\"\\;|&\n#{}=<-~"]), max_size=30).map("".join))
def test_any_command_line_is_read_without_failing(command: str) -> None:
    calls, answer = shell_memory_calls(command, ROOTS, "/m", "/home/u")
    assert answer is None or (answer[0] in ("ask", "deny") and answer[1].endswith("."))
    assert all(call.path.startswith("/m/memory/") for call in calls)
