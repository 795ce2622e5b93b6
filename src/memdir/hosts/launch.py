"""How a host starts this installation of memdir, wherever it is installed.

Claude Code runs a hook's command through ``/bin/sh`` and an MCP host spawns
a server with its own PATH: a bare ``memdir`` works only where that PATH
happens to hold it, and a hook that exits 127 is a rule that fails open. So
the installers name the running installation by absolute path
(:func:`this_installation`): the ``memdir`` console script beside
``sys.executable`` when it is that interpreter's, else ``<python> -m memdir``.

A :class:`Launch` also carries every setting that chose the memory folder:
the profile (``--profile`` or ``MEMDIR_PROFILE``), ``MEMDIR_HOME`` and
``MEMDIR_CONFIG`` when set, and ``PYTHONPATH`` when memdir itself was found
through it (a source checkout), so the host runs the same code on the same
folder. ``CLAUDE_CONFIG_DIR`` is not carried: under the claude profile the
folder is Claude Code's own, and Claude Code hands its own value to the
hooks and servers it starts. Hook commands put the settings in front of the
command (``MEMDIR_PROFILE=claude /abs/memdir hook pre-tool-use``): the fast
hook path answers only when argv starts with ``hook <name>``.

A shared file (a project's ``.claude/settings.json`` or ``.mcp.json``) is read
by teammates who may not have memdir, or have it elsewhere. Its command tries
this installation, then ``memdir`` on PATH, and otherwise says in one line on
stderr what is missing: a hook then exits 0 (it never breaks the teammate's
tool calls), a server exits 1 (the host lists it as failed, which is what it
is). The personal settings (paths of this machine) go only with this
installation; the profile, a choice of the project, goes with both, and a
teammate's own ``MEMDIR_PROFILE`` wins on the PATH branch.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import ConfigError

__all__ = [
    "Launch",
    "hook_launcher",
    "hook_name",
    "launch_for",
    "runs_memdir_server",
    "this_installation",
]

# The environment variables that choose memdir's folder, in the order commands carry them.
CARRIED = ("PYTHONPATH", "MEMDIR_HOME", "MEMDIR_CONFIG")
# `memdir hook <name>` as any installer wrote it: bare, by path, quoted, or `-m memdir`.
_HOOK = re.compile(
    r"""(?:^|[\s'"/;=])memdir(?:\.exe|/hook_launcher\.py)?['"]?\s+hook\s+([a-z][a-z-]*)"""
)
# The hook launcher's flags: no site module until needed, no script folder on the path.
LAUNCHER_FLAGS = "-SP"
_MEMDIR_WORD = re.compile(r"""(?:^|[\s'"/;=])memdir(?:\.exe)?(?:['"\s]|$)""")
_IMPORTS_MEMDIR = re.compile(r"^\s*(?:from|import)\s+memdir\b", re.MULTILINE)
_SHEBANG_EXEC = re.compile(r"""^'''exec' +"?([^"\s]+)""", re.MULTILINE)


def this_installation(executable: str | None = None) -> tuple[str, ...]:
    """The argv that runs the memdir installation this process runs, by absolute path.

    ``executable`` defaults to ``sys.executable``. Its path is kept as given,
    links unresolved: a virtual environment's ``python`` is a link to the base
    interpreter, and only the link finds the environment's packages.
    """
    executable = sys.executable if executable is None else executable
    if not executable:
        raise ConfigError(
            "cannot tell which Python runs memdir (sys.executable is empty)",
            hint="pass --command with the full path of memdir",
        )
    python = os.path.abspath(executable)
    script = os.path.join(os.path.dirname(python), "memdir.exe" if os.name == "nt" else "memdir")
    if _is_console_script(script, python):
        return (script,)
    return (python, "-m", "memdir")


def _is_console_script(script: str, python: str) -> bool:
    """Whether ``script`` is memdir's entry point for the interpreter ``python``."""
    if not (os.path.isfile(script) and os.access(script, os.X_OK)):
        return False
    if os.name == "nt":
        return True  # a launcher .exe beside python.exe: nothing to read
    try:
        with open(script, "rb") as handle:
            head = handle.read(2048).decode("utf-8", "replace")
    except OSError:
        return False
    first = head.split("\n", 1)[0]
    if not first.startswith("#!") or not _IMPORTS_MEMDIR.search(head):
        return False
    words = first[2:].split()
    interpreter = words[0] if words else ""
    if interpreter == "/bin/sh":  # pip's form for long paths: '''exec' "<python>" "$0" "$@"
        found = _SHEBANG_EXEC.search(head)
        interpreter = found.group(1) if found else ""
    if not os.path.isabs(interpreter):
        return False
    same_dir = os.path.realpath(os.path.dirname(interpreter))
    return same_dir == os.path.realpath(os.path.dirname(python))


def _found_through_pythonpath(env: Mapping[str, str]) -> str | None:
    """The folder holding the running ``memdir`` package when only PYTHONPATH (or the
    current directory of ``python -m``) finds it; None when the interpreter finds it alone."""
    package_parent = Path(__file__).resolve().parent.parent.parent
    entries = [e for e in env.get("PYTHONPATH", "").split(os.pathsep) if e]
    if sys.path and sys.path[0]:
        entries.append(sys.path[0])  # `python -m memdir` run from a checkout's src/
    for entry in entries:
        try:
            if Path(entry).resolve() == package_parent:
                return str(package_parent)
        except OSError:
            continue
    return None


@dataclass(frozen=True, kw_only=True)
class Launch:
    """How a host should start memdir, and the settings it must carry.

    ``program`` is memdir's argv prefix (absolute paths); ``shell``, when set,
    is a user's own command text used as given instead (hooks only).
    ``env`` holds this machine's settings (paths), ``profile`` the project's.
    ``hooks``, when set, is the quicker argv prefix for the hooks of this
    machine's own settings files: the interpreter running
    :mod:`memdir.hook_launcher` (see there).
    """

    program: tuple[str, ...]
    hooks: tuple[str, ...] | None = None
    shell: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    profile: str | None = None

    def _program_text(self) -> str:
        return self.shell if self.shell is not None else shlex.join(self.program)

    def _assignments(self) -> list[str]:
        pairs = [*self.env, *((("MEMDIR_PROFILE", self.profile),) if self.profile else ())]
        return [f"{name}={shlex.quote(value)}" for name, value in pairs]

    def _first_word(self) -> str:
        """The program the command starts: this installation's, or the first word of ``shell``."""
        if self.shell is None:
            return self.program[0]
        try:
            words = shlex.split(self.shell)
        except ValueError:
            words = []
        return words[0] if words else self.shell

    def _probe(self) -> str:
        """The shell test that this installation (or the ``shell`` command) is here."""
        first = self._first_word()
        if os.path.isabs(first):
            return f"[ -x {shlex.quote(first)} ]"
        return f"command -v {shlex.quote(first)} >/dev/null 2>&1"

    def hook_command(self, name: str, *, shared: bool = False, host: str | None = None) -> str:
        """The shell command a host's hook runs for ``memdir hook <name>``.

        ``shared``: the command goes into a file teammates read (see the module
        docstring). ``host``: the hook dialect other than Claude Code's it answers
        in (``--host codex``, :mod:`memdir.hooks.dialects`).
        """
        assignments, program = self._assignments(), self._program_text()
        event, name = name, name + (f" --host {shlex.quote(host)}" if host else "")
        if not shared:
            # A shared file keeps the console script: its wrapper tests one executable.
            if self.hooks is not None and self.shell is None:
                program = shlex.join(self.hooks)
            return " ".join([*assignments, program, "hook", name])
        # exec only our own argv: a user's command text may be a pipeline or a list.
        run = [] if self.shell is not None else ["exec"]
        mine = " ".join([*assignments, *run, program, "hook", name])
        parts = [f"if {self._probe()}; then {mine};"]
        if self._program_text() != "memdir":
            profile = (
                f'MEMDIR_PROFILE="${{MEMDIR_PROFILE:-{self.profile}}}" ' if self.profile else ""
            )
            parts.append(
                f"elif command -v memdir >/dev/null 2>&1; then {profile}exec memdir hook {name};"
            )
        missing = self._missing(f"hook {event} skipped")
        parts.append(f"else echo {shlex.quote(missing)} >&2; fi")
        return " ".join(parts)

    def _missing(self, what: str) -> str:
        first = self._first_word()
        where = f"no {first}, no memdir on PATH" if first != "memdir" else "no memdir on PATH"
        return f"memdir: {what}: memdir is not installed here ({where})"

    def server_entry(self, args: Sequence[str], *, shared: bool = False) -> dict[str, object]:
        """An MCP host's ``{"command", "args"[, "env"]}`` entry running ``memdir <args>``.

        The profile goes in the arguments (``serve`` is not a fast path); this
        machine's settings in the host's ``env`` map, or, in a shared file,
        inside the wrapper's branch that runs this installation.
        """
        full = [*(["--profile", self.profile] if self.profile else []), *args]
        if not shared or os.name == "nt":  # no /bin/sh to wrap with on Windows
            entry: dict[str, object] = {
                "command": self.program[0],
                "args": [*self.program[1:], *full],
            }
            if self.env:
                entry["env"] = dict(self.env)
            return entry
        own = " ".join(
            [*(f"{k}={shlex.quote(v)}" for k, v in self.env), "exec", shlex.join(self.program)]
        )
        script = f'if {self._probe()}; then {own} "$@";'
        if self.program != ("memdir",):
            script += ' elif command -v memdir >/dev/null 2>&1; then exec memdir "$@";'
        missing = self._missing("MCP server not started")
        script += f" else echo {shlex.quote(missing)} >&2; exit 1; fi"
        return {"command": "/bin/sh", "args": ["-c", script, "memdir", *full]}


def launch_for(
    env: Mapping[str, str],
    *,
    profile: str | None = None,
    command: str | None = None,
    shell: str | None = None,
    executable: str | None = None,
) -> Launch:
    """The :class:`Launch` for this installation under ``env``.

    ``command`` replaces the program by one path or name (MCP hosts); ``shell``
    by a user's command text (hooks). ``MEMDIR_HOME`` and ``MEMDIR_CONFIG`` are
    carried made absolute, since a host starts memdir in another directory.
    """
    program = (command,) if command else this_installation(executable)
    hooks = None if (command or shell or os.name == "nt") else hook_launcher(executable)
    carried: list[tuple[str, str]] = []
    source = None if (command or shell) else _found_through_pythonpath(env)
    if source is not None:
        carried.append(("PYTHONPATH", source))
    for name in CARRIED[1:]:
        value = env.get(name, "").strip()
        if value:
            carried.append((name, os.path.abspath(os.path.expanduser(value))))
    return Launch(
        program=program, hooks=hooks, shell=shell or None, env=tuple(carried), profile=profile
    )


def hook_launcher(executable: str | None = None) -> tuple[str, ...] | None:
    """``(<python>, -SP, <memdir>/hook_launcher.py)``, or None when the file is not there."""
    python = os.path.abspath(sys.executable if executable is None else executable)
    launcher = Path(__file__).resolve().parent.parent / "hook_launcher.py"
    if not python or not launcher.is_file():
        return None
    return (python, LAUNCHER_FLAGS, str(launcher))


def hook_name(command: object) -> str | None:
    """The memdir hook a Claude Code hook command runs (``pre-tool-use``...), else None.

    Recognises every form memdir's installers wrote: bare ``memdir hook ...``,
    an absolute path, ``python -m memdir``, with settings in front, and the
    shared wrapper.
    """
    if not isinstance(command, str):
        return None
    found = _HOOK.search(command)
    return found.group(1) if found else None


def runs_memdir_server(entry: object) -> bool:
    """Whether an MCP host's server entry starts ``memdir serve`` (in any form memdir wrote)."""
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [command, *(a for a in args if isinstance(a, str))]
    return "serve" in words and any(_MEMDIR_WORD.search(w) for w in words)
