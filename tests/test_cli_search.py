"""Search from the command line: ranked, grep, reindex, transcripts."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from memdir import Memdir
from memdir.cli import main


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ranked_search_finds_a_memory_by_its_description(mem: Memdir) -> None:
    mem.write(name="Release", description="mobile release branch cut in March", type="project")
    mem.write(name="Other", description="unrelated gardening notes", type="user")
    project = str(mem.layout.project_root)
    code, out, _ = invoke("search", "release branch", "--project", project, "--json")
    hits = json.loads(out)
    assert code == 0 and hits[0]["ref"] == "release.md" and hits[0]["kind"] == "memory"


def test_grep_prints_path_line_and_text(mem: Memdir) -> None:
    mem.write(name="Grep me", description="d", type="project", body="alpha\nneedle here\n")
    project = str(mem.layout.project_root)
    code, out, _ = invoke("search", "--grep", "needle", "--project", project)
    path, line, text = out.strip().split(":", 2)
    assert code == 0 and Path(path).name == "grep_me.md" and text == "needle here"
    assert int(line) == Path(path).read_text().splitlines().index("needle here") + 1


def test_search_without_query_or_pattern_is_a_usage_error(mem: Memdir) -> None:
    assert invoke("search", "--project", str(mem.layout.project_root))[0] == 2


def test_reindex_and_add_transcripts_make_turns_searchable(mem: Memdir, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        '{"role": "user", "content": "the flamingo deploy failed", '
        '"timestamp": "2026-03-01T10:00:00Z"}\n'
        '{"role": "assistant", "content": "rolled back", "timestamp": "2026-03-01T10:01:00Z"}\n'
    )
    project = str(mem.layout.project_root)
    code, out, _ = invoke("index", "add-transcripts", str(chat), "--project", project, "--json")
    assert code == 0 and json.loads(out)["added"] >= 1
    code, out, _ = invoke("search", "flamingo", "--kind", "transcript", "--project", project)
    assert code == 0 and "chat.jsonl#0" in out
    code, out, _ = invoke("reindex", "--project", project)
    assert code == 0 and out.startswith("indexed:")


def test_grep_is_literal_unless_regex_and_kind_narrows_it(mem: Memdir) -> None:
    mem.write(name="Deploy", description="d", type="project", body="deploy v1.2 done\n")
    mem.log("deploy v1x2 went out")
    project = str(mem.layout.project_root)
    code, out, _ = invoke("search", "--grep", "v1.2", "--project", project)
    assert code == 0 and "v1.2 done" in out and "v1x2" not in out  # the dot is a dot
    code, out, _ = invoke("search", "--grep", r"v1.\d", "--regex", "--project", project)
    assert "v1.2 done" in out and "v1x2 went out" in out
    code, out, _ = invoke("search", "--grep", "deploy", "--kind", "log", "--project", project)
    assert code == 0 and "went out" in out and "done" not in out
    code, out, _ = invoke("search", "--grep", "deploy", "--kind", "memory", "--project", project)
    assert "done" in out and "went out" not in out


def test_grep_with_no_match_says_so_on_stderr_and_exits_1(mem: Memdir) -> None:
    mem.write(name="A", description="d", type="project", body="alpha\n")
    project = str(mem.layout.project_root)
    code, out, err = invoke("search", "--grep", "zebra", "--project", project)
    assert code == 1 and out == "" and "no lines match the text 'zebra'" in err
    code, out, _ = invoke("search", "--grep", "zebra", "--json", "--project", project)
    assert code == 1 and json.loads(out) == []
