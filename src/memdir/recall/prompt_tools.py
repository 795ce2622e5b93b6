"""The parts of the memory prompt for a client that reaches memory only through memdir's tools.

An MCP client on another machine (``host_paths=False``, ``tools='memdir'``) is
told of memdir's tools, never of a path; a client given the tools besides the
files saves through them. :mod:`memdir.recall.prompt` loads this module only
for such a prompt: the session-start hook, which names the files, never does.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's, as in memdir.recall.prompt
if TYPE_CHECKING:
    from typing import Literal

    # The prompt's modes and the tools it names (types only, re-exported by
    # memdir.recall.prompt, which checks the values at run time).
    PromptMode = Literal["individual", "combined", "daily-log"]
    PromptTools = Literal["files", "memdir"]

__all__ = ["SEARCHING", "intro", "save_section"]


def intro(*, mode: PromptMode, skip_index: bool) -> str:
    """The intro for a client that reaches memory only through memdir's tools (no paths)."""
    recall = (
        " Memories relevant to a request may be shown to you along with it; search for "
        "others when you need them."
        if skip_index
        else ""
    )
    scopes = (
        " Memories live in two scopes: private (for you and this user only) and team "
        "(shared with everyone on the project; its files are under team/). Never put secrets "
        "(API keys, tokens, passwords, credentials) in team memory: everyone on the project "
        "reads it."
        if mode == "combined"
        else ""
    )
    return (
        "# Memory\n\nYou have a persistent memory, kept by memdir and reached through its "
        "tools (view, search, recall, write, edit, delete, log), never through file paths."
        f"{scopes}\n\nBuild it up so that future conversations know who the user is, how "
        f"they want you to work, and the context behind the work.{recall}"
    )


SEARCHING = """\
## Searching past context

Use the search tool with narrow terms (an error, a path, a name); mode='grep' finds exact \
text. Read a hit with view."""


def save_section(*, mode: PromptMode, skip_index: bool, upkeep: str) -> str:
    """How to save, through memdir's memory tools rather than by writing files."""
    scope = ", its scope (private or team)" if mode == "combined" else ""
    index = "" if skip_index else " They keep MEMORY.md in step: never edit it yourself."
    return (
        "## How to save\n\nSave through memdir's memory tools, not files: a short name, a "
        f"specific one-line description, the type{scope}, the body.{index}\n\n"
        f"{upkeep} Delete one that turns out wrong."
    )
