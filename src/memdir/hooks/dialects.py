"""Each coding agent's hook dialect: what it sends memdir, and what it can take back.

Claude Code defined the hook protocol memdir answers (JSON on stdin, one JSON
object on stdout); Codex CLI speaks it too, and Gemini CLI a cousin of it, with
differences this module keeps in one place, so the hooks themselves stay
host-blind and each host is one entry in :data:`DIALECTS`:

- **which host**: the installed command says it (``memdir hook pre-tool-use
  --host codex``); the hook process carries it in :data:`HOST_VARIABLE`, which
  also reaches the hook server with the rest of the hook's environment. No host
  named is Claude Code, as every installed command of earlier versions was;
- **tool calls**: a rule names Claude Code's tools (``Bash``, ``Edit|Write``).
  Codex reports its shell as ``Bash`` with ``{"command": ...}`` as well, but its
  file edits as one ``apply_patch`` call whose ``command`` is the patch: each
  file the patch adds, changes, moves or deletes is also judged as the
  ``Write`` or ``Edit`` of that file. Gemini names its own tools
  (``run_shell_command``, ``write_file``, ``replace``, with Claude Code's input
  fields) and its MCP tools ``mcp_<server>_<tool>``: each is also judged as the
  Claude Code tool it stands for (:attr:`Dialect.tool_kinds`, ``mcp__<server>__<tool>``).
  :func:`tool_calls` lists the calls judged, so a rule holds in every host, and
  a rule naming the host's own tool still sees its call whole;
- **the answer**: Claude Code and Codex read a deny as ``hookSpecificOutput``'s
  ``permissionDecision``; Gemini ignores that and reads a top-level ``decision``
  and ``reason`` (:attr:`Dialect.top_level_decision`);
- **ask**: Codex's PreToolUse hooks cannot ask the user (Codex 0.171 reports
  ``permissionDecision: "ask"`` as unsupported and runs the call); Gemini 0.61's
  ``decision: "ask"`` waits for a confirmation a headless run (``gemini -p``)
  never gets, and its hook cannot tell the two runs apart. So in both a rule
  that asks is answered as a deny (:attr:`Dialect.can_ask`), with a reason that
  says so: memdir never lets through what a rule holds, nor hangs a session;
- **warnings**: Gemini hands a BeforeTool hook's ``additionalContext`` to no
  one, so there a warning goes to the user (``systemMessage``) before the call
  and to the model with the call's result: the same hook runs at AfterTool
  (:data:`AFTER_TOOL`) and answers warnings only;
- **the prompt**: in a headless run Gemini puts the session start's context in
  front of the first prompt, wrapped in ``<hook_context>``, and hands the hook
  that prompt: recall reads the user's words only (:func:`own_prompt`);
- **whose memory the host loads**: Claude Code loads its own ``MEMORY.md``
  (auto memory); Codex and Gemini load none, so memdir's session start gives
  them the whole prompt (:attr:`Dialect.loads_claude_memory`).

The session start and the per-prompt recall are the same JSON in every host
(``hookSpecificOutput.additionalContext``; Gemini reads the event from its own
call, so the name given is only for the reader).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "AFTER_TOOL",
    "DEFAULT_HOST",
    "DIALECTS",
    "GEMINI_TOOLS",
    "HOST_VARIABLE",
    "Dialect",
    "dialect_for",
    "own_prompt",
    "patch_files",
    "resolved_path",
    "tool_calls",
]

HOST_VARIABLE = "MEMDIR_HOOK_HOST"
AFTER_TOOL = "AfterTool"  # Gemini's event after a tool call: the hook answers warnings there
# Gemini CLI's tools that Claude Code's rules know by other names: same input fields
# (command; file_path, content; file_path, old_string, new_string).
GEMINI_TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit"}


class Dialect:
    """How one host's hooks talk: its name, label, and what its answers can carry.

    A plain slotted class: every tool call's hook loads this module, and a
    record would load :mod:`memdir.utils.records` for a call no rule covers.
    """

    __slots__ = (
        "can_ask",
        "context_tag",
        "host",
        "label",
        "loads_claude_memory",
        "mcp_prefix",
        "patch_tool",
        "prompt_event",
        "tool_kinds",
        "top_level_decision",
    )

    def __init__(
        self,
        *,
        host: str,
        label: str,
        can_ask: bool = True,
        loads_claude_memory: bool = True,
        patch_tool: str | None = None,
        tool_kinds: Mapping[str, str] | None = None,
        mcp_prefix: str | None = None,
        top_level_decision: bool = False,
        prompt_event: str = "UserPromptSubmit",
        context_tag: str | None = None,
    ) -> None:
        self.host = host  # the --host value: claude, codex, gemini
        self.label = label  # the name users know it by
        self.can_ask = can_ask  # a PreToolUse answer may ask the user
        self.loads_claude_memory = loads_claude_memory  # it loads Claude Code's MEMORY.md
        self.patch_tool = patch_tool  # the tool whose input is a patch of several files
        self.tool_kinds = tool_kinds or {}  # its tool -> the Claude Code tool it stands for
        self.mcp_prefix = mcp_prefix  # how it names MCP tools, when not mcp__<server>__<tool>
        self.top_level_decision = top_level_decision  # a deny is {"decision", "reason"}
        self.prompt_event = prompt_event  # its event before each prompt
        self.context_tag = context_tag  # the tag it wraps a hook's context in, in the prompt


DIALECTS = {
    "claude": Dialect(host="claude", label="Claude Code"),
    "codex": Dialect(
        host="codex",
        label="Codex CLI",
        can_ask=False,
        loads_claude_memory=False,
        patch_tool="apply_patch",
    ),
    "gemini": Dialect(
        host="gemini",
        label="Gemini CLI",
        can_ask=False,
        loads_claude_memory=False,
        tool_kinds=GEMINI_TOOLS,
        mcp_prefix="mcp_",
        top_level_decision=True,
        prompt_event="BeforeAgent",
        context_tag="hook_context",
    ),
}
DEFAULT_HOST = "claude"


def dialect_for(env: Mapping[str, str]) -> Dialect:
    """The dialect the hook's command named (:data:`HOST_VARIABLE`), else Claude Code's.

    An unknown name is answered as Claude Code, whose protocol the others copy:
    a hook never fails for the host it runs in.
    """
    return DIALECTS.get(env.get(HOST_VARIABLE, "") or DEFAULT_HOST, DIALECTS[DEFAULT_HOST])


def own_prompt(dialect: Dialect, prompt: str) -> str:
    """The user's own words in a prompt the host may have put hooks' context in front of.

    The host escapes ``<`` and ``>`` inside that context, so its first closing tag
    is the block's own.
    """
    if dialect.context_tag is None:
        return prompt
    opening, closing = f"<{dialect.context_tag}>", f"</{dialect.context_tag}>"
    text = prompt.lstrip()
    while text.startswith(opening) and closing in text:
        text = text[text.index(closing) + len(closing) :].lstrip()
    return text


def tool_calls(
    dialect: Dialect, tool_name: str, tool_input: Mapping[str, Any], cwd: object
) -> list[tuple[str, Mapping[str, Any]]]:
    """The calls the rules judge for one tool call: the call itself, then the Claude Code
    tool it stands for (by the dialect's :attr:`~Dialect.tool_kinds`, or its MCP naming),
    or, for a patch, each file's ``Write`` (a new file) or ``Edit`` (any other change).
    Files are named by absolute path where ``cwd`` makes a relative one absolute."""
    calls: list[tuple[str, Mapping[str, Any]]] = [(tool_name, tool_input)]
    base = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None
    kind = dialect.tool_kinds.get(tool_name) or _mcp_name(dialect, tool_name)
    if kind is not None:
        calls.append((kind, _with_absolute_path(tool_input, base)))
    if tool_name != dialect.patch_tool:
        return calls
    patch = tool_input.get("command")
    if not isinstance(patch, str):
        return calls
    for action, path, added in patch_files(patch):
        if not os.path.isabs(path):
            if base is None:
                continue
            path = os.path.join(base, path)
        if action == "add":
            calls.append(("Write", {"file_path": path, "content": added}))
        else:
            calls.append(("Edit", {"file_path": path, "new_string": added}))
    return calls


def _mcp_name(dialect: Dialect, tool_name: str) -> str | None:
    """Claude Code's ``mcp__<server>__<tool>`` for the host's name of an MCP tool.

    Gemini writes ``mcp_<server>_<tool>`` and splits it at the first ``_`` after
    the prefix (its own advice: no ``_`` in a server's name), as this does.
    """
    prefix = dialect.mcp_prefix
    if prefix is None or not tool_name.startswith(prefix) or tool_name.startswith("mcp__"):
        return None
    server, _, tool = tool_name[len(prefix) :].partition("_")
    return f"mcp__{server}__{tool}" if server and tool else None


def resolved_path(value: object, cwd: object) -> str | None:
    """The file a tool call names in ``value``, resolved (links, ``..``); a relative
    name is taken from ``cwd`` when that is absolute. None: no usable name."""
    if not isinstance(value, str) or not value or "\0" in value:
        return None
    if not os.path.isabs(value):
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            return None
        value = os.path.join(cwd, value)
    return os.path.realpath(value)


def _with_absolute_path(tool_input: Mapping[str, Any], base: str | None) -> Mapping[str, Any]:
    """``tool_input`` with a relative ``file_path`` made absolute from ``base``."""
    path = tool_input.get("file_path")
    if base is None or not isinstance(path, str) or not path or os.path.isabs(path):
        return tool_input
    return {**tool_input, "file_path": os.path.join(base, path)}


# The file operations of Codex's patch format (``*** Begin Patch`` ... ``*** End Patch``).
_OPERATIONS = {
    "*** Add File: ": "add",
    "*** Update File: ": "update",
    "*** Delete File: ": "delete",
    "*** Move to: ": "move",
}


def patch_files(patch: str) -> list[tuple[str, str, str]]:
    """(operation, path as written, the lines it adds) for each file a patch touches.

    The operation is ``add``, ``update``, ``delete`` or ``move`` (the new path of
    an update that renames its file). Lines that are not the patch format's own
    are read as a change's lines: ``+`` adds one.
    """
    files: list[tuple[str, str, list[str]]] = []
    for line in patch.splitlines():
        for marker, operation in _OPERATIONS.items():
            if line.startswith(marker):
                files.append((operation, line[len(marker) :].strip(), []))
                break
        else:
            if files and line.startswith("+"):
                files[-1][2].append(line[1:])
    return [(operation, path, "\n".join(added)) for operation, path, added in files if path]
