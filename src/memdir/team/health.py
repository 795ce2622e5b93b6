"""Team sync health, for ``memdir doctor``: wedged state, failures, where the clone stands.

:func:`check_team` looks at the team repository without any network call:

* ``wedged``: a stale git lock, a half-done merge or rebase, an unmerged
  index (:mod:`memdir.team.recovery`); ``fix`` clears it, keeping local work;
* ``sync-failed``: the last sync failed (:mod:`memdir.team.sync_record`),
  with its message, git's whole error output and the next step;
* ``conflict-copy``: a conflict copy not settled yet (``memdir team resolve``);
* ``unsyncable``: a file sync leaves out (no ``*.md`` memory name); ``fix``
  renames a memory-tool note (one with a sidecar) to ``.md``;
* ``rescued``: files with conflict markers that recovery saved aside;
* ``held-rule`` (information): a teammate's ``enforce:`` rules, held until
  ``memdir team rules accept``; ``held-rules``: the list of them (derived) is
  missing or damaged, ``fix`` rebuilds it; ``accepted-rules``: the record of
  what this user accepted (kept, not derived) is damaged: named, not repaired;
* ``sync-status`` (information): commits ahead of and behind the remote
  branch as last fetched, and when the last sync succeeded.
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memdir.enforcement.enforced import load_rules
from memdir.enforcement.team_rules import (
    accepted_path,
    pending_path,
    read_accepted,
    read_held,
    read_pending,
)
from memdir.errors import MemdirError
from memdir.kinds import Scope
from memdir.storage import sidecar
from memdir.storage.fs import TEMP_PATTERN
from memdir.team import recovery
from memdir.team.checks import display_name, is_memory_name
from memdir.team.conflicts import pending_conflicts
from memdir.team.git import Git
from memdir.team.sync import recover_team
from memdir.team.sync_record import read_record
from memdir.team.teammate_rules import ensure_held
from memdir.team.work_tree import REMOTE

if TYPE_CHECKING:
    from memdir.history.project import ProjectMemory

__all__ = ["TeamFinding", "check_team", "sync_time"]


@dataclass(frozen=True, kw_only=True)
class TeamFinding:
    """One thing doctor says about team sync; ``info`` ones never fail the report."""

    problem: str
    message: str
    fix: str = ""
    fixed: bool = False
    info: bool = False

    @property
    def ok(self) -> bool:
        return self.fixed or self.info


def sync_time(stamp: float | None) -> str:
    """When a sync happened, as doctor says it (``never`` for None)."""
    if stamp is None:
        return "never"
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_team(memdir: ProjectMemory, *, fix: bool = False) -> list[TeamFinding]:
    """What is wrong with (or worth knowing about) this clone's team sync."""
    root = memdir.layout.team_dir
    if not (root / ".git").is_dir():
        return []
    git = Git(root)
    out: list[TeamFinding] = []
    wedge = recovery.inspect(git)
    if wedge.wedged and fix:
        try:
            done = recover_team(memdir)
        except MemdirError as exc:
            out.append(
                TeamFinding(
                    problem="wedged",
                    message=f"{wedge.describe()}: {exc.message}",
                    fix=exc.hint or "",
                )
            )
        else:
            out.append(
                TeamFinding(
                    problem="wedged",
                    message=f"the team repository was stuck ({wedge.describe()}): "
                    f"{done.describe() or 'cleared'}",
                    fixed=True,
                )
            )
    elif wedge.wedged:
        out.append(
            TeamFinding(
                problem="wedged",
                message=f"the team repository is stuck: {wedge.describe()}",
                fix="`memdir doctor --fix` (or the next `memdir team sync`) clears it and "
                "keeps every local change",
            )
        )
    record = read_record(memdir.layout)
    if record.failing:
        said = f"; git said: {record.detail}" if record.detail else ""
        out.append(
            TeamFinding(
                problem="sync-failed",
                message=f"the last team sync failed at {sync_time(record.last_failure)} "
                f"(last success: {sync_time(record.last_success)}): {record.message}{said}",
                fix=record.hint or "run `memdir team sync` again",
            )
        )
    for conflict in pending_conflicts(root):
        out.append(
            TeamFinding(
                problem="conflict-copy",
                message=f"{conflict.copy} is an unsettled conflict copy of {conflict.file} "
                f"(kept here, never pushed): {conflict.reason}",
                fix=f"`memdir team resolve {conflict.copy} --keep mine|theirs|both`",
            )
        )
    out += _unsyncable(memdir, fix=fix)
    rescued = memdir.layout.project_dir / ".rescued"
    if rescued.is_dir():
        files = sorted(p for p in rescued.rglob("*") if p.is_file())
        if files:
            out.append(
                TeamFinding(
                    problem="rescued",
                    message=f"{len(files)} file(s) an interrupted merge left with conflict "
                    f"markers are saved in {rescued} (first: {files[0]})",
                    fix="keep what you need in team memory by hand, then delete the folder",
                )
            )
    out += _rule_records(memdir, git, fix=fix)
    pending = read_pending(pending_path(memdir.layout))
    held = sorted({rule.file for rule in load_rules(memdir.layout).held})
    for file in held:
        author = pending.get(f"team:{file}", {}).get("author") or "a teammate"
        out.append(
            TeamFinding(
                problem="held-rule",
                message=f"the enforce: rules of team/{file} came from {author} and are not "
                "enforced until you accept them",
                fix=f"read them (`memdir team rules`), then `memdir team rules accept {file}`",
                info=True,
            )
        )
    out.append(_standing(git, record.last_success))
    return out


def _rule_records(memdir: ProjectMemory, git: Git, *, fix: bool) -> list[TeamFinding]:
    """The two records behind held rules: the held list (derived, rebuilt) and what
    this user accepted (kept: damage is named, never repaired by guessing)."""
    out = []
    accepted = accepted_path(memdir.layout)
    if read_accepted(accepted) is None:
        out.append(
            TeamFinding(
                problem="accepted-rules",
                message=f"{accepted}, the record of the teammates' rules you accepted, is "
                "damaged: no rule counts as accepted, so every teammate's rule is held",
                fix=f"it cannot be rebuilt: move {accepted} aside, then accept again what "
                "you trust (`memdir team rules`, `memdir team rules accept NAME`)",
            )
        )
    pending = pending_path(memdir.layout)
    found = load_rules(memdir.layout)
    if read_held(pending) is not None or not any(
        rule.scope is Scope.TEAM for rule in (*found.rules, *found.held)
    ):
        return out  # whole, or nothing depends on it yet: the next sync writes it
    lost = (
        f"{pending}, the list of teammates' rules held until you accept them, is missing "
        "or damaged (derived state): until it is rebuilt, every team rule you have not "
        "accepted is held, your own new ones too"
    )
    if not fix:
        fix_it = "`memdir doctor --fix` (or the next `memdir team sync`) rebuilds it"
        out.append(TeamFinding(problem="held-rules", message=lost, fix=fix_it))
        return out
    with memdir.team.lock():
        ensure_held(git, memdir.layout)
    out.append(
        TeamFinding(
            problem="held-rules",
            message=f"{lost}: rebuilt from the team repository and the rules you accepted",
            fixed=True,
        )
    )
    return out


def _unsyncable(memdir: ProjectMemory, *, fix: bool) -> list[TeamFinding]:
    """Files of the team folder that sync leaves out (no memory file names)."""
    root = memdir.layout.team_dir
    out = []
    for folder, dirs, names in os.walk(root):
        # .git, .conflicts/, the memory tool's .meta/ sidecars: not memories, by design.
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if is_memory_name(rel) or TEMP_PATTERN.match(name):
                continue
            out.append(_left_out(memdir, rel, path, fix=fix))
    return out


def _left_out(memdir: ProjectMemory, rel: str, path: Path, *, fix: bool) -> TeamFinding:
    shown = display_name(rel)
    message = f"team/{shown} is not a memory file: team sync leaves it out (never shared)"
    if not sidecar.exists(path) or not rel.isprintable():
        return TeamFinding(
            problem="unsyncable",
            message=message,
            fix="rename it to a plain *.md name with frontmatter, or move it out of the "
            "team folder",
        )
    # A memory-tool note (a sidecar holds its fields): renaming it to .md shares it.
    stem = posixpath.splitext(rel)[0]
    target = f"{stem}.md" if not os.path.lexists(path.with_suffix(".md")) else f"{rel}.md"
    if not fix:
        return TeamFinding(
            problem="unsyncable",
            message=f"{message}; it is a memory-tool note",
            fix=f"`memdir doctor --fix` renames it to team/{display_name(target)}, "
            "which sync shares",
        )
    try:
        memdir.team.rename(rel, target)
    except MemdirError as exc:
        return TeamFinding(
            problem="unsyncable", message=f"{message}: {exc.message}", fix=exc.hint or ""
        )
    return TeamFinding(
        problem="unsyncable",
        message=f"{message}: renamed to team/{display_name(target)}, shared by the next sync",
        fixed=True,
    )


def _standing(git: Git, last_success: float | None) -> TeamFinding:
    """Ahead/behind against the remote branch as last fetched (no network)."""
    branch = git.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    tip = git.rev(f"refs/remotes/{REMOTE}/{branch}") if branch else None
    head = git.rev("HEAD")
    if tip is None or head is None:
        where = "nothing shared yet"
    else:
        counts = git.run("rev-list", "--left-right", "--count", f"{head}...{tip}", check=False)
        ahead, behind = (int(n) for n in (counts.stdout.split() or ["0", "0"]))
        where = f"{ahead} ahead, {behind} behind {REMOTE}/{branch} as last fetched"
    return TeamFinding(
        problem="sync-status",
        message=f"team sync: {where}; last success {sync_time(last_success)}",
        info=True,
    )
