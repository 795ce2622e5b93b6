"""Read back a command memdir's installers wrote, to run it without a shell.

``memdir doctor`` runs the hook and server commands it finds in Claude Code's
files. A project's files come with the repository: a cloned project could put
any shell text there that merely mentions ``memdir hook``, and doctor must
not run it. So a command from such a file is run only when it reads back as
exactly one of the forms :class:`~memdir.hosts.launch.Launch` writes
(settings in front, memdir's argv, its arguments; or the shared wrapper
around them; or a bare ``memdir`` from earlier versions), and then as an
argv list with no shell in between (:meth:`Written.resolve` plays the
wrapper's ``if``). Anything else reads as None. The same reading tells the
installers which entries they wrote themselves (:func:`served_project`: the
per-project Codex tables of earlier versions, which an install migrates).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Resolved", "Written", "read_hook_command", "read_server_entry", "served_project"]

_NAMES = frozenset({"PYTHONPATH", "MEMDIR_HOME", "MEMDIR_CONFIG", "MEMDIR_PROFILE"})
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_HOOK_NAME = re.compile(r"^[a-z][a-z-]*$")
_HOST = re.compile(r"^[a-z]+$")
_PROFILE_DEFAULT = re.compile(r"^\$\{MEMDIR_PROFILE:-([a-z]+)\}$")
_FALLBACK = "elif command -v memdir >/dev/null 2>&1; then "
_SHARED_HOOK = re.compile(
    r"^if \[ -x (?P<probe>.+?) \]; then (?P<own>.+?); "
    rf"(?:{re.escape(_FALLBACK)}(?P<fallback>.+?); )?"
    r"else echo (?P<message>.+) >&2; fi$",
    re.DOTALL,
)
_SHARED_SERVER = re.compile(
    r'^if \[ -x (?P<probe>.+?) \]; then (?P<own>.+?) "\$@"; '
    rf'(?P<fallback>{re.escape(_FALLBACK)}exec memdir "\$@"; )?'
    r"else echo (?P<message>.+) >&2; exit 1; fi$",
    re.DOTALL,
)


@dataclass(frozen=True, kw_only=True)
class Resolved:
    """What a written command runs here: the argv and the variables it sets."""

    argv: tuple[str, ...]
    env: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class Written:
    """A command memdir wrote, read back.

    ``program`` is memdir's argv prefix (``("memdir",)`` for the bare form),
    ``args`` what follows it (``hook <name>``, or ``serve ...``), ``shared``
    whether the wrapper falls back to memdir on PATH, ``message`` the line it
    prints when memdir is missing.
    """

    program: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    profile: str | None
    args: tuple[str, ...]
    shared: bool = False
    message: str = ""

    def resolve(self, env: Mapping[str, str]) -> Resolved | str:
        """What the command would run under ``env``; the wrapper's line when nothing is found."""
        profile = {"MEMDIR_PROFILE": self.profile} if self.profile else {}
        mine = self.program[0]
        if os.path.isabs(mine):
            launcher = self.program[2] if self.program[1:2] == ("-SP",) else None
            if launcher is not None and not os.path.isfile(launcher):
                return f"cannot run: {launcher}: no such file (memdir was moved or removed)"
            if os.path.isfile(mine) and os.access(mine, os.X_OK):
                return Resolved(argv=(*self.program, *self.args), env={**dict(self.env), **profile})
            if not self.shared:
                return f"cannot run: {mine}: no such executable file"
        if self.shared or mine == "memdir":
            found = shutil.which("memdir", path=env.get("PATH", os.defpath))
            if found is not None:
                chosen = {"MEMDIR_PROFILE": env.get("MEMDIR_PROFILE") or self.profile}
                extra = chosen if self.profile and self.shared else profile
                return Resolved(argv=(found, *self.args), env={k: v for k, v in extra.items() if v})
        if self.shared:
            return f"says: {self.message}"
        return "cannot run: memdir is not on PATH"


def _tokens(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _settings(words: list[str]) -> tuple[list[tuple[str, str]], str | None] | None:
    """Pop the leading NAME=value words; None when one names another variable."""
    carried: list[tuple[str, str]] = []
    profile = None
    while words and (found := _ASSIGNMENT.match(words[0])):
        name, value = found.group(1), found.group(2)
        if name not in _NAMES:
            return None
        words.pop(0)
        if name == "MEMDIR_PROFILE":
            profile = value
        else:
            carried.append((name, value))
    return carried, profile


def _program(words: list[str]) -> tuple[str, ...] | None:
    """Pop memdir's argv prefix: ``/abs/memdir``, ``memdir``, ``/abs/python -m memdir`` or
    ``/abs/python -SP /abs/memdir/hook_launcher.py``."""
    if not words:
        return None
    first = words[0]
    if os.path.basename(first) in ("memdir", "memdir.exe") and (
        os.path.isabs(first) or first == "memdir"
    ):
        return (words.pop(0),)
    if os.path.isabs(first) and words[1:3] == ["-m", "memdir"]:
        program = tuple(words[:3])
        del words[:3]
        return program
    if os.path.isabs(first) and words[1:2] == ["-SP"] and _is_launcher(words[2:3]):
        program = tuple(words[:3])
        del words[:3]
        return program
    return None


def _is_launcher(words: list[str]) -> bool:
    """Whether ``words`` is the absolute path of a memdir hook launcher."""
    path = words[0] if words else ""
    parts = path.replace(os.sep, "/").split("/")
    return os.path.isabs(path) and parts[-2:] == ["memdir", "hook_launcher.py"]


def _hook_args(words: list[str]) -> tuple[str, ...] | None:
    """``hook <name>`` and the options memdir's installers write: ``--model``, then a
    host's dialect, ``--host <host>``."""
    if len(words) < 2 or words[0] != "hook" or not _HOOK_NAME.match(words[1]):
        return None
    rest = words[2:]
    if len(rest) >= 2 and rest[-2] == "--host" and _HOST.match(rest[-1]):
        rest = rest[:-2]
    if rest not in ([], ["--model"]):
        return None
    return tuple(words)


def _read_run(text: str, *, exec_: bool) -> Written | None:
    words = _tokens(text)
    if words is None:
        return None
    settings = _settings(words)
    if settings is None:
        return None
    if exec_ and (not words or words.pop(0) != "exec"):
        return None
    program = _program(words)
    args = _hook_args(words) if program is not None else None
    if program is None or args is None:
        return None
    return Written(program=program, env=tuple(settings[0]), profile=settings[1], args=args)


def read_hook_command(command: object) -> Written | None:
    """A Claude Code hook command read back, when it is one of the forms memdir writes."""
    if not isinstance(command, str):
        return None
    shared = _SHARED_HOOK.match(command)
    if shared is None:
        return _read_run(command, exec_=False)
    own = _read_run(shared.group("own"), exec_=True)
    probe, message = _tokens(shared.group("probe")), _tokens(shared.group("message"))
    if own is None or probe != [own.program[0]] or message is None or len(message) != 1:
        return None
    fallback = shared.group("fallback")
    if fallback is not None and not _fallback_matches(fallback, own):
        return None
    return Written(
        program=own.program,
        env=own.env,
        profile=own.profile,
        args=own.args,
        shared=True,
        message=message[0],
    )


def _fallback_matches(text: str, own: Written) -> bool:
    words = _tokens(text)
    if words is None:
        return False
    if own.profile is not None:
        first = words.pop(0) if words else ""
        default = _PROFILE_DEFAULT.match(first.removeprefix("MEMDIR_PROFILE="))
        if not first.startswith("MEMDIR_PROFILE=") or default is None:
            return False
        if default.group(1) != own.profile:
            return False
    return words == ["exec", "memdir", *own.args]


def _server_args(words: list[str]) -> tuple[tuple[str, ...], str | None] | None:
    """memdir's server arguments: ``[--profile P] serve [--project DIR]``."""
    profile = None
    if words[:1] == ["--profile"] and len(words) >= 2:
        profile = words[1]
        words = words[2:]
    if words[:1] != ["serve"]:
        return None
    tail = words[1:]
    if tail and not (len(tail) == 2 and tail[0] == "--project"):
        return None
    return tuple(words), profile


def read_server_entry(entry: object) -> Written | None:
    """An MCP host's server entry read back, when it is one of the forms memdir writes."""
    if not isinstance(entry, dict):
        return None
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    if not all(isinstance(a, str) for a in args):
        return None
    variables: Any = entry.get("env", {})
    if not isinstance(variables, dict) or not set(variables) <= _NAMES - {"MEMDIR_PROFILE"}:
        return None
    if command == "/bin/sh" and args[:1] == ["-c"] and args[2:3] == ["memdir"]:
        return _read_shared_server(args[1], args[3:]) if not variables else None
    words = [command, *args]
    program = _program(words)
    served = _server_args(words) if program is not None else None
    if program is None or served is None:
        return None
    carried = tuple((str(k), str(v)) for k, v in variables.items())
    return Written(program=program, env=carried, profile=None, args=(*_profile(served), *served[0]))


def _profile(served: tuple[tuple[str, ...], str | None]) -> tuple[str, ...]:
    return ("--profile", served[1]) if served[1] else ()


def _read_shared_server(script: str, rest: list[str]) -> Written | None:
    shared = _SHARED_SERVER.match(script)
    served = _server_args(list(rest))
    if shared is None or served is None:
        return None
    words = _tokens(shared.group("own"))
    settings = _settings(words) if words is not None else None
    if words is None or settings is None or settings[1] is not None or words[:1] != ["exec"]:
        return None
    words.pop(0)
    program = _program(words)
    probe, message = _tokens(shared.group("probe")), _tokens(shared.group("message"))
    if program is None or words or probe != [program[0]] or message is None or len(message) != 1:
        return None
    return Written(
        program=program,
        env=tuple(settings[0]),
        profile=None,
        args=(*_profile(served), *served[0]),
        shared=shared.group("fallback") is not None,
        message=message[0],
    )


def served_project(entry: object) -> str | None:
    """The ``--project`` folder of an MCP server entry memdir wrote for one project, else
    None (another program's entry, or memdir's serving the folder it starts in)."""
    written = read_server_entry(entry)
    if written is None:
        return None
    args = list(written.args)
    if "--project" not in args[:-1]:
        return None
    return args[args.index("--project") + 1]
