"""The memory prompt: exact expected texts per mode, the seed's sections, the enable chain.

The expected texts live in tests/golden/prompt_*.txt. To change the prompt on
purpose, run ``MEMDIR_UPDATE_GOLDEN=1 pytest tests/test_prompt.py`` and review
the diff of those files.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any

import pytest

from memdir.errors import ConfigError
from memdir.recall.prompt import (
    BEFORE_RECOMMENDING,
    DRIFT_CAVEAT,
    MEMORY_AND_OTHER_PERSISTENCE,
    WHAT_NOT_TO_SAVE,
    build_prompt,
    load_prompt,
    memory_enabled,
    resolve_mode,
)
from memdir.storage.memory_index import INDEX_NAME

GOLDEN = Path(__file__).parent / "golden"
MEMORY_DIR = Path("/home/ada/.memdir/projects/-home-ada-src-shop/memory")
TEAM_DIR = MEMORY_DIR / "team"
TODAY = dt.date(2026, 3, 2)
PRIVATE_INDEX = """\
- [User role](user_role.md) — data scientist, new to this repo's React frontend
- [Terse replies](feedback_terse.md) — no closing summary; the user reads the diff
"""
TEAM_INDEX = """\
- [Testing policy](feedback_testing.md) — integration tests hit a real database, never mocks
- [Merge freeze](project_freeze.md) — non-critical merges frozen from 2026-03-05
- [Pipeline bugs](reference_linear.md) — tracked in Linear project INGEST
"""


def prompt(**overrides: Any) -> str:
    args: dict[str, Any] = {
        "mode": "individual",
        "memory_dir": MEMORY_DIR,
        "team_dir": None,
        "private_index": PRIVATE_INDEX,
        "team_index": None,
        "today": TODAY,
    }
    args.update(overrides)
    return build_prompt(**args)


VARIANTS: dict[str, dict[str, Any]] = {
    "individual": {},
    "combined": {
        "mode": "combined",
        "team_dir": TEAM_DIR,
        "team_index": TEAM_INDEX,
        "search_command": "memdir search",
    },
    "daily_log": {"mode": "daily-log", "extra_guidelines": ("Write log entries in English.",)},
    "individual_skip_index": {"skip_index": True},
    "individual_memdir_tools": {"tools": "memdir"},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_prompt_matches_its_checked_in_text(variant: str) -> None:
    text = prompt(**VARIANTS[variant])
    golden = GOLDEN / f"prompt_{variant}.txt"
    if os.environ.get("MEMDIR_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"missing {golden}: run with MEMDIR_UPDATE_GOLDEN=1 and review it"
    assert text == golden.read_text(encoding="utf-8")


ALL_VARIANTS = [
    {**VARIANTS[name], **extra}
    for name in ("individual", "combined", "daily_log")
    for extra in ({}, {"skip_index": True}, {"tools": "memdir"})
]


def _section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


# -- the seed's sections, in every mode ------------------------------------------------


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_prompt_describes_the_four_types_with_when_to_save_and_how_to_use(
    variant: dict[str, Any],
) -> None:
    types = _section(prompt(**variant), "Types of memory")
    for kind in ("user", "feedback", "project", "reference"):
        block = types[types.index(f"### {kind}\n") :]
        block = block[: block.find("\n### ", 1) if "\n### " in block[1:] else len(block)]
        assert "- Save:" in block
        assert "Use:" in block
        assert "- Example:" in block
    assert "absolute" in types


def test_feedback_and_project_bodies_carry_why_and_how_to_apply_lines() -> None:
    text = prompt()
    assert "**Why:**" in text
    assert "**How to apply:**" in text
    assert "Feedback and project bodies: the rule or fact first" in text


def test_project_guidance_dates_relative_dates_from_today() -> None:
    assert "today is 2026-03-02" in prompt()
    assert "today is 2026-07-14" in prompt(today=dt.date(2026, 7, 14))


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_prompt_says_what_not_to_save_even_when_the_user_asks(variant: dict[str, Any]) -> None:
    text = prompt(**variant)
    assert WHAT_NOT_TO_SAVE in text
    for excluded in ("architecture", "Git history", "fix recipes", "CLAUDE.md", "Ephemeral"):
        assert excluded in WHAT_NOT_TO_SAVE
    assert "even when the user explicitly asks" in WHAT_NOT_TO_SAVE
    assert "surprising or non-obvious" in WHAT_NOT_TO_SAVE


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_prompt_says_when_to_access_memory_with_the_ignore_rule_and_drift_caveat(
    variant: dict[str, Any],
) -> None:
    when = _section(prompt(**variant), "When to access memory")
    assert "refers to work from an earlier conversation" in when
    assert "You MUST access memory when the user asks you to check, recall or remember" in when
    assert "ignore or not use memory, proceed as if" in when
    assert DRIFT_CAVEAT in when


def test_drift_caveat_says_point_in_time_verify_and_trust_the_present() -> None:
    assert "point-in-time" in DRIFT_CAVEAT
    assert "verify" in DRIFT_CAVEAT
    assert "trust the present" in DRIFT_CAVEAT
    assert "fix or remove the memory" in DRIFT_CAVEAT


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_prompt_asks_to_verify_named_files_and_symbols_before_recommending(
    variant: dict[str, Any],
) -> None:
    text = prompt(**variant)
    assert BEFORE_RECOMMENDING in text
    assert "check that the file exists" in BEFORE_RECOMMENDING
    assert "grep for it" in BEFORE_RECOMMENDING
    assert "about to act" in BEFORE_RECOMMENDING
    assert "`git log`" in BEFORE_RECOMMENDING


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_searching_past_context_greps_the_real_memory_directory(variant: dict[str, Any]) -> None:
    search = _section(prompt(**variant), "Searching past context")
    assert f'grep -rn "<term>" {MEMORY_DIR} --include="*.md"' in search
    assert "narrow terms" in search
    assert "transcripts come last" in search


def test_searching_offers_the_search_command_when_one_is_given() -> None:
    search = _section(prompt(search_command="memdir search --project /src/shop"), "Searching")
    assert 'memdir search --project /src/shop "<term>"' in search
    assert "grep -rn" in search


def test_search_command_quotes_a_memory_directory_with_spaces() -> None:
    search = _section(prompt(memory_dir=Path("/home/a b/memory")), "Searching past context")
    assert 'grep -rn "<term>" \'/home/a b/memory\' --include="*.md"' in search


def test_a_team_directory_outside_the_private_one_is_searched_too() -> None:
    search = _section(
        prompt(mode="combined", team_dir=Path("/srv/team-memory"), team_index=""), "Searching"
    )
    assert f'grep -rn "<term>" {MEMORY_DIR} /srv/team-memory --include="*.md"' in search


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_prompt_separates_memory_from_plans_and_task_lists(variant: dict[str, Any]) -> None:
    assert MEMORY_AND_OTHER_PERSISTENCE in prompt(**variant)
    assert "Plans and task lists" in MEMORY_AND_OTHER_PERSISTENCE


# -- how to save -------------------------------------------------------------------------


def test_saving_with_files_is_two_steps_with_frontmatter_and_a_pointer() -> None:
    save = _section(prompt(), "How to save")
    assert "two steps" in save
    assert "---\nname: <short title>\ndescription:" in save
    assert "type: <user | feedback | project | reference>" in save
    assert "`- [Title](file.md) — one-line hook`" in save
    assert "update it instead of adding a duplicate" in save
    assert "in the memory directory" in save


def test_saving_with_memdir_tools_leaves_the_index_to_the_tools() -> None:
    save = _section(prompt(tools="memdir"), "How to save")
    assert "memdir's memory tools" in save
    assert "never edit it yourself" in save
    assert "---" not in save
    assert len(save) < len(_section(prompt(), "How to save")) / 2


def test_combined_saving_points_each_file_from_its_own_directorys_index() -> None:
    save = _section(prompt(**VARIANTS["combined"]), "How to save")
    assert "in the private or the team directory" in save
    assert "that directory's `MEMORY.md`" in save


# -- modes ---------------------------------------------------------------------------------


def test_combined_prompt_names_both_directories_and_a_scope_for_every_type() -> None:
    text = prompt(**VARIANTS["combined"])
    assert f"- private: `{MEMORY_DIR}`" in text
    assert f"- team: `{TEAM_DIR}`, shared with everyone on the project" in text
    assert "Never put secrets" in text
    scopes = re.findall(r"^- Scope: (.*)$", text, re.M)
    assert scopes[0] == "always private."
    assert scopes[1].startswith("private by default; team when it is a convention")
    assert scopes[2].startswith("team")
    assert scopes[3] == "usually team."


def test_combined_prompt_loads_both_indexes_and_marks_the_team_one_shared() -> None:
    text = prompt(**VARIANTS["combined"])
    assert "## Private MEMORY.md\n\n" + PRIVATE_INDEX.strip() in text
    assert "## Team MEMORY.md (shared with your teammates)\n\n" + TEAM_INDEX.strip() in text


def test_individual_prompt_has_no_scope_guidance() -> None:
    text = prompt()
    assert "- Scope:" not in text
    assert "team" not in text.lower()


def test_daily_log_prompt_shows_the_path_pattern_not_todays_file() -> None:
    text = prompt(mode="daily-log")
    assert f"`{MEMORY_DIR}/logs/YYYY/MM/YYYY-MM-DD.md`" in text
    assert "2026/03/2026-03-02.md" not in text
    assert "today is" not in text
    assert "`- HH:MM:SS text`" in text
    assert "first write" in text
    assert "Never rewrite" in text
    assert "consolidation" in text
    assert "when the date changes" in text


def test_daily_log_prompt_does_not_ask_for_topic_files() -> None:
    text = prompt(mode="daily-log")
    assert "## How to save\n" not in text
    assert "two steps" not in text


def test_combined_mode_without_a_team_directory_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        prompt(mode="combined", team_dir=None)
    assert caught.value.hint is not None and "team_dir" in caught.value.hint


@pytest.mark.parametrize(("name", "value"), [("mode", "solo"), ("tools", "mcp")])
def test_an_unknown_mode_or_tools_style_is_refused(name: str, value: str) -> None:
    with pytest.raises(ConfigError):
        prompt(**{name: value})


# -- the index -------------------------------------------------------------------------------


def test_index_contents_close_the_prompt() -> None:
    assert prompt().endswith(f"## {INDEX_NAME}\n\n{PRIVATE_INDEX.strip()}\n")


@pytest.mark.parametrize("raw", [None, "", "  \n\n"])
def test_an_empty_index_gets_a_one_line_note(raw: str | None) -> None:
    assert prompt(private_index=raw).endswith(
        "## MEMORY.md\n\nMEMORY.md is empty: no memories saved yet.\n"
    )


def test_an_index_over_the_line_limit_is_truncated_with_a_warning() -> None:
    lines = [f"- [Memory {n}](m{n}.md) — hook {n}" for n in range(250)]
    text = prompt(private_index="\n".join(lines))
    assert lines[199] in text
    assert lines[200] not in text
    assert "WARNING: MEMORY.md is 250 lines (limit: 200)" in text


def test_an_index_over_the_size_limit_is_cut_at_a_line_with_a_warning() -> None:
    lines = [f"- [Memory {n}](m{n}.md) — " + "x" * 280 for n in range(100)]
    text = prompt(private_index="\n".join(lines))
    index = text[text.index("## MEMORY.md") :]
    assert "index entries are too long" in index
    assert lines[0] in index
    assert lines[99] not in index
    assert len(index) < 25_000 + 1_000


def test_an_index_over_both_limits_names_both_in_its_warning() -> None:
    lines = [f"- [Memory {n}](m{n}.md) — " + "y" * 200 for n in range(300)]
    assert "300 lines and" in prompt(private_index="\n".join(lines))


def test_custom_index_limits_are_applied() -> None:
    lines = [f"- [Memory {n}](m{n}.md)" for n in range(10)]
    text = prompt(private_index="\n".join(lines), max_index_lines=3)
    assert lines[2] in text
    assert lines[3] not in text
    assert "(limit: 3)" in text


def test_a_long_team_index_is_truncated_too() -> None:
    lines = [f"- [Team {n}](t{n}.md)" for n in range(201)]
    text = prompt(**{**VARIANTS["combined"], "team_index": "\n".join(lines)})
    team = text[text.index("## Team MEMORY.md") :]
    assert "WARNING: MEMORY.md is 201 lines" in team
    assert lines[200] not in team


@pytest.mark.parametrize("variant", [{**v, "skip_index": True} for v in ALL_VARIANTS])
def test_skip_index_drops_the_index_and_every_mention_of_it(variant: dict[str, Any]) -> None:
    text = prompt(**variant)
    assert "MEMORY.md" not in text
    assert "index" not in text.lower()
    assert "User role" not in text
    assert "- [" not in text


def test_skip_index_tells_the_agent_that_relevant_memories_are_brought_to_it() -> None:
    assert "Memories relevant to a request may be shown to you" in prompt(skip_index=True)
    assert "Memories relevant to a request" not in prompt()


# -- extra guidelines --------------------------------------------------------------------------


def test_extra_guidelines_are_added_after_the_guidance_and_before_the_index() -> None:
    text = prompt(extra_guidelines=["Never record customer names.", "  ", "Use British spelling."])
    extra = _section(text, "Additional guidelines")
    assert extra == (
        "## Additional guidelines\n\nNever record customer names.\n\nUse British spelling.\n"
    )
    assert text.index("## Additional guidelines") < text.index("## MEMORY.md")


def test_no_extra_guidelines_section_without_guidelines() -> None:
    assert "Additional guidelines" not in prompt(extra_guidelines=["", " \n"])


# -- reading the indexes from disk -------------------------------------------------------------


def test_load_prompt_reads_both_indexes_from_their_directories(tmp_path: Path) -> None:
    memory, team = tmp_path / "memory", tmp_path / "memory" / "team"
    team.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(PRIVATE_INDEX, encoding="utf-8")
    (team / "MEMORY.md").write_text(TEAM_INDEX, encoding="utf-8")
    text = load_prompt(mode="combined", memory_dir=memory, team_dir=team, today=TODAY)
    assert text == build_prompt(
        mode="combined",
        memory_dir=memory,
        team_dir=team,
        private_index=PRIVATE_INDEX,
        team_index=TEAM_INDEX,
        today=TODAY,
    )


def test_load_prompt_treats_a_missing_index_as_empty(tmp_path: Path) -> None:
    text = load_prompt(mode="individual", memory_dir=tmp_path / "nowhere", today=TODAY)
    assert text.endswith("MEMORY.md is empty: no memories saved yet.\n")


# -- the enable chain and the mode ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "setting", "enabled"),
    [
        ({}, None, True),
        ({}, True, True),
        ({}, False, False),
        ({"MEMDIR_DISABLE": "1"}, None, False),
        ({"MEMDIR_DISABLE": "true"}, True, False),
        ({"MEMDIR_DISABLE": "YES"}, None, False),
        ({"MEMDIR_DISABLE": " on "}, True, False),
        ({"MEMDIR_DISABLE": "0"}, False, True),
        ({"MEMDIR_DISABLE": "false"}, False, True),
        ({"MEMDIR_DISABLE": "no"}, None, True),
        ({"MEMDIR_DISABLE": "off"}, False, True),
        ({"MEMDIR_DISABLE": ""}, False, False),
        ({"MEMDIR_DISABLE": "  "}, None, True),
    ],
)
def test_enable_chain(env: dict[str, str], setting: bool | None, enabled: bool) -> None:
    assert memory_enabled(env, setting) is enabled


def test_an_unreadable_disable_value_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        memory_enabled({"MEMDIR_DISABLE": "maybe"}, None)
    assert "MEMDIR_DISABLE" in str(caught.value)


@pytest.mark.parametrize(
    ("requested", "team", "daily", "mode"),
    [
        ("auto", False, False, "individual"),
        ("auto", True, False, "combined"),
        ("auto", False, True, "daily-log"),
        ("auto", True, True, "daily-log"),
        ("individual", True, True, "individual"),
        ("combined", False, False, "combined"),
        ("daily-log", False, False, "daily-log"),
    ],
)
def test_resolve_mode(requested: Any, team: bool, daily: bool, mode: str) -> None:
    assert resolve_mode(requested, team_enabled=team, daily_log_active=daily) == mode


def test_resolve_mode_refuses_an_unknown_mode() -> None:
    with pytest.raises(ConfigError):
        resolve_mode("solo", team_enabled=False, daily_log_active=False)  # type: ignore[arg-type]


def test_a_read_only_memory_folder_is_not_offered_for_saving() -> None:
    text = prompt(read_only=True)
    save = _section(text, "How to save")
    assert "read-only here: do not write to it" in save
    assert "two steps" not in save and "frontmatter" not in save
    assert "Tell the user what you would save" in save
