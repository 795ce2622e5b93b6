"""``memdir enforce``: the rules feedback memories enforce on an agent's tool calls.

``list`` shows every rule (action, tool, pattern, memory), marks a rule saved
before it would have been refused because it can never fire, and lists the
rules that were skipped and why; ``test -- TOOL INPUT`` shows which rules would
fire for one call and the answer the pre-tool-use hook would give; ``promote
MEMORY`` turns a memory's proposed ``ask`` rules into ``deny`` (or ``warn``)
once the user agrees with them; ``add MEMORY --tool T --match RE --action A``
(or ``--command NAME [--args RE]``) appends a rule to a feedback memory through
the same write, and so the same checks (RE2, linear time, a known action, a
rule that can fire), as a rule written into the file by hand.
The rules themselves live in the memories' frontmatter (see
:mod:`memdir.enforcement.rules`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memdir.cli._common import emit, json_option, open_memdir, project_option
from memdir.enforcement.enforced import EnforcedRule, RuleSet, load_rules
from memdir.enforcement.rule_validation import never_fires
from memdir.enforcement.rules import EDIT_TOOLS, FIELD, parse_rules
from memdir.errors import InvalidMemory
from memdir.hooks.pre_tool_use import decide, pre_tool_use_output

if TYPE_CHECKING:
    from memdir.api import Memdir
    from memdir.model import MemoryRecord

__all__ = ["COMMANDS", "enforce"]


@click.group()
def enforce() -> None:
    """Rules from feedback memories that the pre-tool-use hook enforces."""


def _row(found: EnforcedRule) -> dict[str, Any]:
    dead = never_fires(found.rule)
    return {
        **found.rule.as_dict(),
        "memory": found.ref,
        "name": found.name,
        "scope": found.scope.value,
        "why": found.why,
        "never_fires": None if dead is None else f"{dead[0]}; {dead[1]}",
    }


@enforce.command("list")
@project_option
@json_option
def list_command(project: Path, as_json: bool) -> None:
    """Show every enforced rule and the memory it comes from."""
    rules = _project_rules(project)
    data = {
        "rules": [_row(r) for r in rules.rules],
        "held": [_row(r) for r in rules.held],
        "problems": list(rules.problems),
    }

    def human() -> None:
        if not rules.rules:
            click.echo("no enforced rules (add enforce: to a feedback memory)", err=True)
        for found in rules.rules:
            looks_for = found.rule.match or found.rule.summary.removeprefix(f"{found.rule.tool} ")
            click.echo(
                f"{found.rule.action:<4}  {found.rule.tool:<12}  {looks_for}  "
                f"<- {found.ref} ({found.name})"
            )
            dead = never_fires(found.rule)
            if dead is not None:
                click.echo(f"      never fires: {dead[0]}; {dead[1]}")
        for found in rules.held:
            click.echo(
                f"held  {found.rule.action:<4}  {found.rule.summary}  <- {found.ref}: a "
                f"teammate's, not enforced until `memdir team rules accept {found.file}`"
            )
        for problem in rules.problems:
            click.echo(f"skipped: {problem}", err=True)

    emit(as_json, data, human)


def _project_rules(project: Path) -> RuleSet:
    """The rules the pre-tool-use hook enforces in ``project`` (team ones only with team memory)."""
    mem = open_memdir(project)
    return load_rules(mem.layout, include_team=mem.settings.team is not False)


def tool_input_for(tool: str, text: str) -> dict[str, Any]:
    """The tool input ``text`` stands for: a JSON object as is, else the command or file."""
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            return data
    if tool == "Bash":
        return {"command": text}
    if tool in EDIT_TOOLS:
        return {"file_path": text, "content": text}
    return {"input": text}


@enforce.command("test")
@click.argument("tool")
@click.argument("text", metavar="INPUT", nargs=-1, required=True)
@project_option
@json_option
def test_command(tool: str, text: tuple[str, ...], project: Path, as_json: bool) -> None:
    """Show which rules fire for TOOL with INPUT (a command, a file path, or tool-input JSON).

    Example: memdir enforce test -- Bash "npm install left-pad"
    """
    rules = _project_rules(project)
    decision = decide(rules.rules, tool, tool_input_for(tool, " ".join(text)))
    answer = pre_tool_use_output(decision)
    data = {
        "tool": tool,
        "action": decision.action,
        "fired": [_row(r) for r in decision.fired],
        "reason": decision.reason,
        "hook_output": json.loads(answer) if answer else None,
    }

    def human() -> None:
        if decision.action is None:
            click.echo(f"no rule fires for this {tool} call")
            return
        click.echo(f"{decision.action}: {decision.reason}")

    emit(as_json, data, human)


@enforce.command("promote")
@click.argument("memory")
@click.option(
    "--to",
    "action",
    type=click.Choice(["deny", "warn"]),
    default="deny",
    show_default=True,
    help="What the memory's ask rules become.",
)
@project_option
def promote_command(memory: str, action: str, project: Path) -> None:
    """Turn MEMORY's proposed (ask) rules into deny or warn rules."""
    mem = open_memdir(project)
    record = mem.get(memory)
    rules = parse_rules(record.memory.extra.get(FIELD))
    if not any(r.action == "ask" for r in rules):
        raise InvalidMemory(
            f"{record.file} has no ask rules to promote",
            hint="`memdir enforce list` shows every rule and its action",
        )
    promoted = [
        {**r.as_dict(), "action": action} if r.action == "ask" else r.as_dict() for r in rules
    ]
    _write_rules(mem, record, promoted)
    click.echo(f"{record.file}: ask rules are now {action}")


@enforce.command("add")
@click.argument("memory")
@click.option(
    "--tool", default="Bash", show_default=True, help='A tool name, "Edit|Write", "mcp__*" or "*".'
)
@click.option("--match", "match", help="An RE2 pattern: the command, or an edit's path.")
@click.option("--command", "command", help="A command rule: the command's name (RE2, whole).")
@click.option("--args", "args", help="With --command: one of its arguments (RE2, whole).")
@click.option(
    "--action",
    type=click.Choice(["deny", "ask", "warn"]),
    default="ask",
    show_default=True,
    help="What the pre-tool-use hook answers when the rule fires.",
)
@project_option
def add_command(
    memory: str,
    tool: str,
    match: str | None,
    command: str | None,
    args: str | None,
    action: str,
    project: Path,
) -> None:
    """Add a rule to feedback MEMORY (checked like one written in its frontmatter).

    Give --match (a pattern) or --command (and perhaps --args). Example:
    memdir enforce add use_pnpm --tool Bash --match '\\bnpm install\\b' --action deny
    """
    rule = _rule_given(tool, match, command, args, action)
    mem = open_memdir(project)
    record = mem.get(memory)
    existing = record.memory.extra.get(FIELD)
    current = [r.as_dict() for r in parse_rules(existing)] if existing is not None else []
    if rule in current:
        click.echo(f"{record.file} already has this rule")
        return
    _write_rules(mem, record, [*current, rule])
    click.echo(f"{record.file}: {action} {_described(rule)}")


def _rule_given(
    tool: str, match: str | None, command: str | None, args: str | None, action: str
) -> dict[str, str]:
    """The rule ``enforce add``'s options describe, as written in frontmatter."""
    if (match is None) == (command is None):
        raise click.UsageError("give either --match PATTERN or --command NAME (and --args)")
    if command is None:
        if args is not None:
            raise click.UsageError("--args goes with --command")
        return {"tool": tool, "match": str(match), "action": action}
    if tool != "Bash":
        raise click.UsageError("a command rule is for Bash calls: drop --tool")
    return {
        "tool": "Bash",
        "command": command,
        **({"args": args} if args else {}),
        "action": action,
    }


def _described(rule: dict[str, str]) -> str:
    if "command" in rule:
        with_args = f" with an argument matching {rule['args']}" if rule.get("args") else ""
        return f"Bash command {rule['command']}{with_args}"
    return f"{rule['tool']} calls matching {rule['match']}"


def _write_rules(mem: Memdir, record: MemoryRecord, rules: list[dict[str, str]]) -> None:
    """Save ``rules`` as the memory's enforce field, unless the memory changed since it was read.

    The store's write validates them (feedback only, RE2, linear time, a known action),
    as it does a rule written into the file by hand.
    """
    updated = replace(record.memory, extra={**record.memory.extra, FIELD: rules})
    mem.store(record.scope).write(updated, file=record.file, expected_version=record.version)


COMMANDS = [enforce]
