"""The SessionStart hook: one memory section, within the hook limit, sent once."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fresh_python import run_fresh
from memdir.api import Memdir
from memdir.hooks.payload import HookInput
from memdir.hooks.session_start import session_context, session_start_output
from memdir.recall.context_budget import HOOK_CONTEXT_LIMIT, fit_lines, split_budget, text_length
from memdir.recall.index_fit import shorten_hooks
from memdir.recall.prompt import load_prompt
from memdir.storage.memory_index import entry_files, parse_entries


def _fill(mem: Memdir, count: int, *, scope: str = "private", long: bool = True) -> None:
    hook = "about the checkout service, its payment webhooks, retries and latency dashboards"
    for i in range(count):
        mem.write(
            name=f"Memory {scope} {i:03d}",
            type="project",
            description=f"Fact {i} {hook if long else ''}".strip(),
            body=f"body {i}",
            scope=scope,
        )


def _start(project: Path, *, source: str = "startup", session: str = "s-1") -> str | None:
    return session_context(
        HookInput(cwd=str(project), session_id=session, source=source), env=os.environ
    )


def _typical_start(mem: Memdir, project: Path) -> str:
    """The session-start context of a store of :data:`_TYPICAL` memories (there is one)."""
    _typical(mem)
    context = _start(project)
    assert context is not None
    return context


def test_text_length_counts_utf16_code_units_as_claude_code_does() -> None:
    assert text_length("abc") == 3
    assert text_length("é" * 10) == 10
    assert text_length("😀") == 2  # outside the basic plane: a surrogate pair


@given(st.text(st.sampled_from("aé—😀\ud800\udfff\U0010ffff") | st.characters()))
def test_text_length_is_the_utf16_encoding_s_length(text: str) -> None:
    # Lone surrogates included: Python strings may hold them, JavaScript counts one unit.
    assert text_length(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40)))
def test_fitted_lines_never_exceed_the_budget_and_keep_their_order(texts: list[str]) -> None:
    lines = [f"{i}:{text}" for i, text in enumerate(texts)]
    budget = sum(text_length(line) for line in lines) // 2
    fit = fit_lines(lines, budget, rank=lambda i: ((i * 7919) % 13, i))
    assert text_length(fit.text()) <= budget
    positions = [lines.index(line) for line in fit.kept]
    assert positions == sorted(positions)
    assert fit.omitted == len(lines) - len(fit.kept)


def test_a_shared_budget_gives_no_part_more_than_it_needs() -> None:
    assert split_budget([100, 5000], 1000) == [100, 900]
    assert split_budget([5000, 5000], 1000) == [500, 500]
    assert split_budget([10, 20], 1000) == [10, 20]


def test_at_250_memories_session_start_stays_within_the_hook_limit(
    mem: Memdir, project: Path
) -> None:
    _fill(mem, 250)
    context = _start(project)
    assert context is not None
    assert text_length(context) <= HOOK_CONTEXT_LIMIT
    shown = parse_entries(context)
    assert 0 < len(shown) < 250
    # Whole lines only: each the index's own line or that line with a shorter hook, and
    # said what is left out.
    index = {
        entry.file: entry.raw
        for entry in parse_entries((mem.layout.memory_dir / "MEMORY.md").read_text())
    }
    for entry in shown:
        whole = index[entry.file]
        assert entry.raw == whole or (
            entry.raw.endswith("…") and whole.startswith(entry.raw[:-1].rstrip())
        )
    assert f"{250 - len(shown)} more MEMORY.md entries are not shown" in context
    assert str(mem.layout.memory_dir / "MEMORY.md") in context


def test_the_index_cut_keeps_the_most_recently_changed_memories(mem: Memdir, project: Path) -> None:
    _fill(mem, 250)
    old = time.time() - 86_400
    for path in mem.layout.memory_dir.glob("memory_private_*.md"):
        os.utime(path, (old, old))
    mem.write(name="Memory private 007", type="project", description="Fact 7 changed", body="x")
    prompt = load_prompt(mode="individual", memory_dir=mem.layout.memory_dir, max_chars=10_000)
    assert "[Memory private 007]" in prompt
    # The newest of all, beyond the 200-line load limit, is shown too.
    assert "[Memory private 249]" in prompt or "[Memory private 248]" in prompt


def test_a_small_index_is_sent_whole(mem: Memdir, project: Path) -> None:
    _fill(mem, 5)
    assert _start(project) == mem.prompt(tools="files")


# -- the size a session start aims at ---------------------------------------------------------

# Twenty-five memories as people write them: a user, feedback, project facts, references,
# each description one specific line of 80 to 150 characters.
_TYPICAL = [
    ("user", "Senior backend developer, ten years of Go and Postgres, new to the React side"),
    ("user", "Prefers short answers with the command first, then one line on why it works"),
    ("user", "Works from Lisbon (Western European time); reviews pull requests in the mornings"),
    ("feedback", "Never mock the database in integration tests: a mocked migration hid a bug"),
    ("feedback", "Run make lint and the unit tests before every commit; CI is slow to report"),
    ("feedback", "Ask before pushing to main or any release branch, even for a one-line fix"),
    ("feedback", "Use the structured logger with request ids; no print statements in services"),
    ("feedback", "Keep pull requests under 400 changed lines; split refactors from behaviour"),
    ("feedback", "Timestamps are stored and compared in UTC; convert only at the display edge"),
    ("feedback", "Prefer table-driven tests in Go, one case per row, named after the behaviour"),
    ("project", "Merge freeze from 2026-03-05 for the mobile release; only fixes to release/*"),
    ("project", "The billing rewrite replaces the legacy invoicing cron with an event consumer"),
    ("project", "Legal asked to keep session tokens out of logs; the audit closes in April"),
    ("project", "The orders service moves to the new cluster in Q3; Dana owns the cutover plan"),
    ("project", "Payments webhooks retry with exponential backoff for 24 hours, then alert"),
    ("project", "The search team owns the ranking service; ask in #search before changing it"),
    ("project", "Customer exports must finish within ten minutes: large tenants hit the limit"),
    ("project", "The release train leaves every second Tuesday; the cut is the Friday before"),
    ("reference", "Pipeline bugs are tracked in the Linear project INGEST, triaged on Mondays"),
    ("reference", "Latency dashboards are in Grafana, folder Services, one board per service"),
    ("reference", "The on-call rotation is the PagerDuty schedule Platform Primary, weekly"),
    ("reference", "Runbooks live in the ops-runbooks repository under docs/<service>.md"),
    ("reference", "Design decisions are recorded as ADRs in docs/adr, numbered, one per file"),
    ("reference", "Feature flags are managed in the flags service; stale flags are in #flags"),
    ("reference", "Staging credentials come from Vault at secret/staging; never commit them"),
]


def _typical(mem: Memdir) -> None:
    for i, (kind, description) in enumerate(_TYPICAL):
        words = [word.strip(",;:()").lower() for word in description.split()]
        mem.write(
            name=f"{'-'.join(words[:3])}-{i}",
            type=kind,
            description=description,
            body=f"{description}.\n\n**Why:** it came up.\n\n**How to apply:** as it says.",
        )


def test_day_one_session_start_with_25_memories_stays_well_under_the_limit(
    mem: Memdir, project: Path
) -> None:
    context = _typical_start(mem, project)
    assert text_length(context) <= 6_000
    # Every memory is named, none left out: only hooks are shorter.
    shown = parse_entries(context)
    assert len(shown) == len(_TYPICAL)
    assert "not shown" not in context
    assert any(entry.hook.endswith("…") for entry in shown)


def test_a_shortened_line_keeps_its_link_whole_and_cuts_its_hook_at_a_word(
    mem: Memdir, project: Path
) -> None:
    context = _typical_start(mem, project)
    index = {
        entry.file: entry
        for entry in parse_entries((mem.layout.memory_dir / "MEMORY.md").read_text())
    }
    for entry in parse_entries(context):
        whole = index[entry.file]
        assert entry.title == whole.title
        if entry.hook != whole.hook:
            kept = entry.hook.removesuffix("…")
            assert whole.hook.startswith(kept) and whole.hook[len(kept)] in " ,;:"


def test_with_no_aim_the_index_lines_are_sent_whole(
    mem: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _typical(mem)
    config = project.parent / "memdir.toml"
    config.write_text("start_context_chars = 0\n")
    monkeypatch.setenv("MEMDIR_CONFIG", str(config))
    context = _start(project)
    assert context is not None
    index = (mem.layout.memory_dir / "MEMORY.md").read_text()
    assert [e.raw for e in parse_entries(context)] == [e.raw for e in parse_entries(index)]
    assert text_length(context) > 6_000


def test_an_aim_past_the_limit_shortens_lines_before_the_limit_leaves_any_out(
    mem: Memdir, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(mem, 70)  # whole lines pass the limit, the shortest fit it
    config = project.parent / "memdir.toml"
    config.write_text("start_context_chars = 50000\n")
    monkeypatch.setenv("MEMDIR_CONFIG", str(config))
    context = _start(project)
    assert context is not None and text_length(context) <= HOOK_CONTEXT_LIMIT
    assert len(parse_entries(context)) == 70


def test_past_the_aim_every_memory_is_still_named_while_the_limit_holds_them(
    mem: Memdir, project: Path
) -> None:
    _fill(mem, 60)  # too many for the aim even with the shortest lines, not for the limit
    context = _start(project)
    assert context is not None
    assert 6_000 < text_length(context) <= HOOK_CONTEXT_LIMIT
    assert len(parse_entries(context)) == 60
    assert "not shown" not in context


def test_combined_mode_shares_the_limit_between_both_indexes(mem: Memdir, project: Path) -> None:
    _fill(mem, 150)
    _fill(mem, 150, scope="team")
    context = _start(project)
    assert context is not None and text_length(context) <= HOOK_CONTEXT_LIMIT
    assert "[Memory private" in context and "[Memory team" in context


def test_very_long_extra_guidelines_are_cut_to_the_limit(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_EXTRA_GUIDELINES", "\n".join(["Be brief. " * 9] * 200))
    context = _start(project)
    assert context is not None and text_length(context) <= HOOK_CONTEXT_LIMIT


def test_guidance_past_the_aim_with_no_memory_yet_is_sent_whole(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between the aim and the limit, and no index entry to shorten.
    monkeypatch.setenv("MEMDIR_EXTRA_GUIDELINES", "\n".join(["Say why in one line."] * 200))
    context = _start(project)
    assert context is not None
    assert 6_000 < text_length(context) <= HOOK_CONTEXT_LIMIT
    assert "is empty: no memories saved yet" in context


# -- the claude profile: Claude Code loads MEMORY.md itself ------------------------------------


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.setenv("MEMDIR_PROFILE", "claude")
    return config


def test_under_the_claude_profile_no_index_line_is_sent_that_claude_code_loads(
    claude: Path, project: Path
) -> None:
    mem = Memdir.open(project, profile="claude")
    _fill(mem, 7)
    context = _start(project)
    assert context is not None
    assert parse_entries(context) == []  # Claude Code puts MEMORY.md in front of the model
    assert "# Memory\n" not in context  # nor a second set of memory instructions
    assert "memdir: MEMORY.md 7/200 lines" in context


def test_under_the_claude_profile_the_team_index_is_added_within_the_limit(
    claude: Path, project: Path
) -> None:
    mem = Memdir.open(project, profile="claude")
    _fill(mem, 3)
    _fill(mem, 250, scope="team")
    context = _start(project)
    assert context is not None and text_length(context) <= HOOK_CONTEXT_LIMIT
    assert str(mem.layout.team_dir) in context
    assert all(e.title.startswith("Memory team") for e in parse_entries(context))
    assert "more MEMORY.md entries are not shown" in context


@pytest.mark.parametrize(
    "where", ["env", "settings.local.json", "settings.json", "user settings.json"]
)
def test_with_claude_codes_auto_memory_off_the_claude_profile_gets_the_whole_prompt(
    claude: Path, project: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    off = json.dumps({"autoMemoryEnabled": False})
    if where == "env":
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    elif where == "user settings.json":
        claude.mkdir(parents=True, exist_ok=True)
        (claude / "settings.json").write_text(off)
    else:
        (project / ".claude").mkdir(exist_ok=True)
        (project / ".claude" / where).write_text(off)
    mem = Memdir.open(project, profile="claude")
    _fill(mem, 3)
    assert _start(project) == mem.prompt(tools="files")


def test_a_local_setting_wins_over_the_shared_one(claude: Path, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryEnabled": True})
    )
    context = _start(project)
    assert context is not None and context.startswith("memdir: MEMORY.md")


# -- resumed sessions ------------------------------------------------------------------------


def test_a_resumed_session_with_unchanged_memory_gets_nothing(mem: Memdir, project: Path) -> None:
    _fill(mem, 3)
    assert _start(project, session="s-9")
    assert _start(project, source="resume", session="s-9") is None
    payload = HookInput(cwd=str(project), session_id="s-9", source="resume")
    assert session_start_output(payload, env=os.environ) == ""


def test_a_resumed_session_gets_only_the_lines_that_changed(mem: Memdir, project: Path) -> None:
    _fill(mem, 3)
    first = _start(project, session="s-9")
    mem.write(name="Release freeze", type="project", description="No merges after Thursday")
    again = _start(project, source="resume", session="s-9")
    assert first is not None and again is not None
    assert "[Release freeze]" in again
    assert "[Memory private 000]" not in again
    assert len(again) < len(first) // 4


def test_a_new_or_compacted_session_gets_everything_again(mem: Memdir, project: Path) -> None:
    _fill(mem, 3)
    first = _start(project, session="s-9")
    assert _start(project, source="compact", session="s-9") == first
    assert _start(project, source="startup", session="s-10") == first


def test_a_resume_of_a_session_memdir_never_saw_gets_everything(mem: Memdir, project: Path) -> None:
    _fill(mem, 3)
    assert _start(project, source="resume", session="unknown") == mem.prompt(tools="files")


# -- per-prompt recall within the limit -------------------------------------------------------


def test_recall_of_long_memories_fits_the_hook_limit_and_only_what_fits_counts_as_seen(
    mem: Memdir, project: Path
) -> None:
    from memdir.hooks.entry import user_prompt_submit

    words = "deploy pipeline rollback canary region latency budget alarms"
    for i in range(5):
        body = "\n".join(f"{words} step {i}.{n} " + "x" * 70 for n in range(120))
        mem.write(name=f"Deploy runbook {i}", type="reference", description=words, body=body)
    payload = {"prompt": f"how do I {words}?", "session_id": "s-r", "cwd": str(project)}
    first = json.loads(user_prompt_submit(payload, os.environ))
    context = first["hookSpecificOutput"]["additionalContext"]
    assert text_length(context) <= HOOK_CONTEXT_LIMIT
    titles = {f"Deploy runbook {i}" for i in range(5)}
    shown = {title for title in titles if f"{title}: " in context}
    assert shown
    # Only what reached the model was counted as seen: the rest comes with the next prompts.
    seen = set(shown)
    for _ in range(4):
        answer = user_prompt_submit(payload, os.environ)
        if not answer:
            break
        text = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
        assert text_length(text) <= HOOK_CONTEXT_LIMIT
        now = {title for title in titles if f"{title}: " in text}
        assert now and not now & seen
        seen |= now
    assert seen == titles


def test_the_user_is_told_once_per_start_when_two_memory_systems_are_on(
    mem: Memdir, project: Path
) -> None:
    payload = HookInput(cwd=str(project), session_id="s-2", hook_event_name="SessionStart")
    both = json.loads(session_start_output(payload, env=os.environ))
    assert "auto memory is on as well" in both["systemMessage"]
    assert both["hookSpecificOutput"]["additionalContext"]  # the model still gets memory
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text('{"autoMemoryEnabled": false}')
    one = json.loads(session_start_output(payload, env=os.environ))
    assert "systemMessage" not in one


def _start_in_a_fresh_process(project: Path, session: str) -> dict[str, object]:
    """session-start run as the hook launcher runs it (no site module), and what it loaded."""
    fields = {"cwd": str(project), "session_id": session, "hook_event_name": "SessionStart"}
    payload = json.dumps(fields)
    return run_fresh(
        "from memdir.hooks.entry import run_fast\n"
        "out = []\n"
        f"run_fast('session-start', stdin_text={payload!r}, env=os.environ, write=out.append)\n"
        "result = {'out': ''.join(out),"
        " **{m: m in sys.modules for m in ('site', 'yaml', 'dataclasses')}}"
    )


def test_session_start_loads_no_installed_package(mem: Memdir, project: Path) -> None:
    _fill(mem, 30)
    _fill(mem, 3, scope="team")
    started = _start_in_a_fresh_process(project, "s-fresh")
    # Nothing on this path needs a package beside memdir: the site module stays unloaded,
    # although pathlib and copy probe for modules this platform lacks (_winapi, org).
    assert started["site"] is False and started["yaml"] is False
    payload = HookInput(cwd=str(project), session_id="s-here", hook_event_name="SessionStart")
    assert started["out"] == session_start_output(payload, env=os.environ) + "\n"


def test_a_hook_whose_cut_would_save_nothing_is_left_whole() -> None:
    line = "- [](_.md) — ;;;;;;;;;;;a;"  # cut at its floor, the ellipsis costs what it saves
    assert shorten_hooks(line, 0) == line
    longer = line + "b" * 40
    assert len(shorten_hooks(longer, 0)) < len(longer)


@given(
    st.lists(
        st.text(st.sampled_from("ab ]([)—-…\\<>.md😀é"), max_size=60)
        | st.builds(
            lambda t, f, h: f"- [{t}]({f}.md) — {h}",
            st.text(st.sampled_from("ab ]([)"), max_size=20),
            st.text(st.sampled_from("ab_()"), min_size=1, max_size=20),
            st.text(st.sampled_from("ab ,;—…😀"), max_size=120),
        ),
        max_size=12,
    ),
    st.integers(min_value=0, max_value=160),
)
def test_shortened_hooks_keep_every_line_and_every_link(lines: list[str], cap: int) -> None:
    raw = "\n".join(lines)
    short = shorten_hooks(raw, cap)
    before, after = raw.split("\n"), short.split("\n")
    assert len(after) == len(before)
    files = entry_files(raw)
    assert entry_files(short) == files  # every entry still names its file, at its place
    for position, (old, new) in enumerate(zip(before, after, strict=True)):
        if new != old:
            assert position in files and new.endswith("…") and len(new) < len(old)
            assert old.startswith(new[:-1].rstrip(" ,;:—-"))
