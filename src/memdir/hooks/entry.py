"""A slim path for the hooks that run on every call.

``memdir hook pre-tool-use`` runs before every tool call and ``memdir hook
user-prompt-submit`` before every prompt, so their start-up time is paid
hundreds of times a session. The ``memdir`` script (``memdir.__main__``)
calls :func:`dispatch` before it imports the click CLI: for those two
commands it answers here, importing only the store's value modules,
RE2 and (for prompts) recall: never click, rich, the facade or the model
layer (``--model`` loads the provider, and only then). ``memdir hook
session-start`` is answered here too, by
:func:`memdir.hooks.background.session_start_output` (the prompt, built without
the facade's stores). For every other command it returns None and the click CLI runs.

The hooks read Claude Code's JSON on stdin and print the documented output
shape (see :mod:`memdir.hooks.pre_tool_use` and :func:`user_prompt_output`).
Another host's command says which it is (``--host codex``, ``--host
gemini``): the answer is then given in its dialect (:mod:`memdir.hooks.dialects`),
which the hook's environment carries on to the hook server. A hook must never get in the
agent's way: any error is one line on stderr and exit status 0, and a call
no rule covers gets no output at all; but pre-tool-use fails closed: a call whose
rules it cannot read is handed to the user (:func:`pre_tool_use`), never let through.
"""

from __future__ import annotations

import _thread
import os
import sys

from memdir.hooks.site_on_demand import SiteOnDemand
from memdir.utils.json_text import loads

# Not typing.TYPE_CHECKING: this module starts every hook process, where importing
# typing, dataclasses or pathlib costs more than the answer (see memdir.utils.records).
TYPE_CHECKING = False
if TYPE_CHECKING:  # types only: the fast path imports these modules when it needs them
    import threading
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from memdir.config import Settings
    from memdir.enforcement.rule_cache import RuleRoot
    from memdir.hooks.dialects import Dialect
    from memdir.search.vectors.embeddings import Embedder
    from memdir.storage.paths import Layout

__all__ = [
    "FAST_COMMANDS",
    "dispatch",
    "pre_tool_use",
    "read_payload",
    "run_fast",
    "user_prompt_output",
    "user_prompt_submit",
]

FAST_COMMANDS = ("pre-tool-use", "user-prompt-submit", "session-start")
_SCOPES = ("private", "team")


def read_payload(text: str) -> dict[str, Any]:
    """The hook's stdin JSON object (empty input is an empty object)."""
    if not text.strip():
        return {}
    data = loads(text)
    if not isinstance(data, dict):
        raise ValueError("the hook input is not a JSON object")
    return data


def _cwd(payload: Mapping[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


def _project(payload: Mapping[str, Any], env: Mapping[str, str]) -> tuple[Settings, Layout] | None:
    """(settings, layout) for the hook's ``cwd``, or None when memory is disabled."""
    from memdir.config import load_settings, memory_enabled
    from memdir.storage.paths import make_layout

    settings = load_settings(env)
    if not memory_enabled(env, settings.enabled):
        return None
    layout = make_layout(settings.home, _cwd(payload), profile=settings.profile, env=env)
    return settings, layout


def _rule_places(
    payload: Mapping[str, Any], env: Mapping[str, str]
) -> tuple[list[RuleRoot], str] | None:
    """Where the rules of the hook's project live (folders, cache file); None: memory is off.

    Remembered between calls (:mod:`memdir.hooks.memo`): a call in a
    known directory loads neither the settings nor the layout modules.
    """
    from memdir.hooks import memo as hook_memo

    cwd = _cwd(payload)
    known = hook_memo.remembered(cwd, env)
    if known is not None:
        try:
            return _places(known)
        except (KeyError, TypeError, ValueError):
            pass  # a damaged memo: work the answer out again
    from memdir.utils.inputs import record

    with record() as read:
        answer = _work_out_places(payload, env)
    hook_memo.remember(cwd, env, answer, read)
    return _places(answer)


def _work_out_places(payload: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """The answer :func:`_rule_places` remembers, as JSON values."""
    from memdir.enforcement.enforced import cache_path, rule_roots

    project = _project(payload, env)
    if project is None:
        return {"enabled": False}
    settings, layout = project
    roots = rule_roots(layout, include_team=settings.team is not False)
    return {
        "enabled": True,
        "roots": [[str(scope), root, sorted(excluded)] for scope, root, excluded in roots],
        "cache": str(cache_path(layout)),
    }


def _places(answer: Mapping[str, Any]) -> tuple[list[RuleRoot], str] | None:
    """A remembered answer as values; raises on a malformed one."""
    enabled = answer["enabled"]
    if enabled is not True:
        if enabled is False:
            return None
        raise TypeError("the remembered switch is neither true nor false")
    remembered = answer["roots"]
    if not isinstance(remembered, list):  # an empty dict would iterate as "no rules"
        raise TypeError("the remembered folders are not a list")
    roots: list[RuleRoot] = []
    for scope, root, excluded in remembered:
        if scope not in _SCOPES:
            raise ValueError(f"not a scope: {scope!r}")
        texts = isinstance(excluded, list) and all(isinstance(e, str) for e in excluded)
        if not isinstance(root, str) or not texts:
            raise TypeError("a remembered folder is not text")
        roots.append((scope, root, frozenset(excluded)))
    cache = answer["cache"]
    if not isinstance(cache, str):
        raise TypeError("the remembered cache file is not text")
    return roots, cache


def pre_tool_use(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The PreToolUse answer for one call (``""`` when no rule fires).

    When the rule cache is current and no cached rule can fire on this call
    (:mod:`memdir.enforcement.rule_gate`), the answer is given before RE2, the
    rule values or the rest of the interpreter's packages are loaded.

    It fails closed. Derived state that is damaged (the memo, the rule cache:
    sealed with a checksum) is worked out again from the files; when the rules
    still cannot be told (a failure while reading them, a record of teammates'
    held rules that is missing or damaged while one of them fires), the call is
    asked about, with a one-line reason naming the file and ``memdir doctor
    --fix``, never let through unchecked (:func:`_asked`).
    """
    from memdir.hooks.dialects import AFTER_TOOL, dialect_for

    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        return ""
    dialect = dialect_for(env)
    reading: list[str] = []  # the derived file being read, once known
    try:
        return _judged(payload, env, tool_name, tool_input, dialect, reading)
    except Exception as exc:  # rules that cannot be read never let a call through
        if payload.get("hook_event_name") == AFTER_TOOL:
            return ""  # held (or not) before the call: nothing to add after it
        return _asked(dialect, _unread_reason(exc, reading, payload, env))


def _judged(
    payload: Mapping[str, Any],
    env: Mapping[str, str],
    tool_name: str,
    tool_input: dict[str, Any],
    dialect: Dialect,
    reading: list[str],
) -> str:
    """:func:`pre_tool_use`'s answer; raises when the rules cannot be read."""
    from memdir.enforcement.rule_cache import current_header, header_gate
    from memdir.enforcement.rule_gate import may_fire_by
    from memdir.hooks.dialects import AFTER_TOOL, tool_calls

    places = _rule_places(payload, env)
    if places is None:
        return ""
    reading.append(places[1])
    calls = tool_calls(dialect, tool_name, tool_input, payload.get("cwd"))
    held = _memory_write_held(payload, env, calls, places[0])
    if held is not None:
        from memdir.hooks.permission import permission_json

        action, reason = held
        return (
            _asked(dialect, reason) if action == "ask" else permission_json(dialect, "deny", reason)
        )
    touched = [path for _, given in calls for path in _touched(given, payload.get("cwd"))]
    header, tokens = current_header(*places, touched, ask=lambda: _watch_tokens(places[0], env))
    if header is not None:
        gate = header_gate(header)
        if not any(may_fire_by(gate, name, given) for name, given in calls):
            return ""
    from memdir.enforcement.enforced import load_rules_at, rule_set
    from memdir.hooks.pre_tool_use import decide_calls, pre_tool_use_output

    # A current cache is used as read: reading and walking again would find the same.
    rules = (
        rule_set(header, places[1])
        if header is not None
        else load_rules_at(*places, touched=touched, tokens=tokens)
    )
    decision = decide_calls(rules.rules, calls)
    event = payload.get("hook_event_name")
    if rules.held and decision.action != "deny" and event != AFTER_TOOL:
        unsure = _unsure_holds(places[1])
        if unsure is not None and decide_calls(rules.held, calls).action in ("deny", "ask"):
            return _asked(dialect, _unsure_reason(unsure))
    # Only a call a rule caught pays for the log; after the call (Gemini's warning
    # for the model) it was logged before.
    if decision.action is not None and event != AFTER_TOOL:
        from memdir.enforcement.rule_firings import record_firings

        fired = [(r.ref, r.rule.summary, r.rule.action) for r in decision.fired]
        record_firings(os.path.dirname(places[1]), tool_name, fired)
    return pre_tool_use_output(decision, dialect, event)


def _memory_write_held(
    payload: Mapping[str, Any],
    env: Mapping[str, str],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    roots: Sequence[RuleRoot],
) -> tuple[str, str] | None:
    """The answer (``deny`` or ``ask``, and why) to an agent's write into memory that
    must not simply run; None: it may, or it is none.

    Judged before the call, as the agent's change: a file tool's write
    (:mod:`memdir.hooks.memory_writes`) or a shell command's
    (:mod:`memdir.hooks.shell_writes`).
    """
    from memdir.hooks.dialects import AFTER_TOOL
    from memdir.hooks.memory_writes import WRITE_TOOLS, held_write, memory_calls

    if payload.get("hook_event_name") == AFTER_TOOL:
        return None
    cwd = payload.get("cwd")
    found = memory_calls(calls, roots, cwd) if any(n in WRITE_TOOLS for n, _ in calls) else []
    for name, given in calls:
        if name == "Bash":  # a shell call, in every host's dialect
            from memdir.hooks.shell_writes import shell_cwd, shell_memory_calls, shell_text

            where = shell_cwd(given, cwd)
            command = shell_text(given.get("command"), roots, where)
            if command is None:
                continue
            writes, answer = shell_memory_calls(command, roots, where, env.get("HOME"))
            if answer is not None:
                return answer
            found += writes
    reason = held_write(payload, env, found) if found else None
    return None if reason is None else ("deny", reason)


def _unsure_holds(cache_file: str) -> str | None:
    """The record of teammates' rules that is missing or damaged, so that a held rule
    may be this user's own (:mod:`memdir.enforcement.team_rules`); None: both hold."""
    from memdir.enforcement import team_rules

    pending = os.path.join(os.path.dirname(cache_file), team_rules.PENDING_NAME)
    if team_rules.read_held(pending) is None:
        return pending
    accepted = team_rules._accepted_near(cache_file)
    return accepted if team_rules.read_accepted(accepted) is None else None


def _unsure_reason(record: str) -> str:
    return (
        f"memdir cannot tell whether the team rule that fires here is yours or a "
        f"teammate's not yet accepted: {record} is missing or damaged, so it holds the call. "
        "Run `memdir doctor --fix` (it rebuilds the list from the team repository), then retry."
    )


def _unread_reason(
    exc: Exception, reading: Sequence[str], payload: Mapping[str, Any], env: Mapping[str, str]
) -> str:
    """One line: what could not be read, the file, and what repairs it."""
    from memdir.storage.failures import describe

    detail = " ".join(describe(exc).split())[:400] or type(exc).__name__
    named = getattr(exc, "path", None) or getattr(exc, "filename", None)
    where = "" if named else f"; reading {reading[-1] if reading else _memo_file(payload, env)}"
    return (
        f"memdir could not read the rules for this call ({detail}{where}), so it holds the "
        "call for the user rather than let it through unchecked. Run `memdir doctor --fix` "
        "(it repairs memdir's own files; fix any other file it names), then retry."
    )


def _memo_file(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    from memdir.hooks import memo as hook_memo

    try:
        return hook_memo.memo_path(_cwd(payload), env)
    except OSError:  # a working folder that is gone
        return "the hook memo"


def _asked(dialect: Dialect, reason: str) -> str:
    """The answer that hands the call to the user: ``ask``, or where the host's hooks
    cannot ask (:attr:`~memdir.hooks.dialects.Dialect.can_ask`), ``deny`` saying so."""
    from memdir.hooks.permission import permission_json

    action = "ask"
    if not dialect.can_ask:
        action = "deny"
        reason += (
            f" {dialect.label}'s hooks cannot ask the user: tell the user what you meant to run "
            "and why."
        )
    return permission_json(dialect, action, reason)


def _watch_tokens(roots: Sequence[RuleRoot], env: Mapping[str, str]) -> list[str] | None:
    """The hook server's folder-watch tokens for ``roots`` (None: walk)."""
    from memdir.hooks.client import watch_tokens

    try:
        return watch_tokens(roots, env)
    except Exception:  # the watch is a shortcut: whatever goes wrong, the walk is done
        return None


if sys.flags.no_site and "site" not in sys.modules:
    sys.meta_path.append(SiteOnDemand())


# The fields in which an agent's edit tools name the file they change (Claude Code's
# Write, Edit, MultiEdit and NotebookEdit, and tools shaped like them).
_PATH_FIELDS = ("file_path", "notebook_path", "path")


def _touched(tool_input: Mapping[str, Any], cwd: object) -> list[str]:
    """The resolved paths a tool call names as the file it writes, if any."""
    from memdir.hooks.dialects import resolved_path

    found = (resolved_path(tool_input.get(field), cwd) for field in _PATH_FIELDS)
    return [path for path in found if path is not None]


def user_prompt_output(context: str, event: str = "UserPromptSubmit") -> str:
    """The JSON adding ``context`` for the agent before a prompt (``event``: the host's
    name of that hook), or ``""``."""
    if not context:
        return ""
    import json

    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(output, ensure_ascii=False)


def user_prompt_submit(
    payload: Mapping[str, Any], env: Mapping[str, str], *, use_model: bool = False
) -> str:
    """Recall for one prompt: at most ``recall_max_memories``, none this session has seen."""
    from memdir.hooks.dialects import dialect_for, own_prompt

    dialect = dialect_for(env)
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return ""
    prompt = own_prompt(dialect, prompt)  # Gemini's first prompt carries the session start's
    if not prompt.strip():
        return ""
    project = _project(payload, env)
    if project is None:
        return ""
    settings, layout = project
    from memdir.hooks.prompt_recall import HookProject, model_selector, team_on
    from memdir.recall.relevant import recall

    # Without --model the lexical selector runs, and recall lists only the few best matches.
    memory = HookProject(layout=layout, settings=settings, team_enabled=team_on(settings, layout))
    session = payload.get("session_id")
    result = recall(
        memory,
        prompt,
        session=session if isinstance(session, str) and session else None,
        selector=model_selector(settings, env) if use_model else None,
        enabled=True,  # _project returned: the enable chain said on
        max_chars=settings.hook_context_chars,  # past it Claude Code shows a preview only
        embedder=_warm_embedder(settings) if _WARM else None,
    )
    return user_prompt_output(result.render(), dialect.prompt_event)


# Recall by meaning needs the embedding model loaded (numpy, the weights: half a second):
# the hook server keeps it loaded and asks; a hook's own short-lived process recalls by
# words alone rather than load it for one prompt.
_WARM = False
# How long a prompt waits for a model still loading (the server's first seconds, a busy
# machine) before it is answered by words alone: a hook gives up on the server after 10 s
# and then recalls by words itself, so waiting longer would only make the same answer late.
_MODEL_WAIT = 3.0
_LOADS: dict[str, threading.Event] = {}
_LOADS_LOCK = _thread.allocate_lock()  # threading itself loads only in the server


def keep_models_warm(ref: str | None = "auto") -> None:
    """Recall by meaning from now on in this (long-lived) process; the model ``ref`` names
    (a ``search_embeddings`` value) loads in a thread now, so the first prompt need not
    wait for it. Each prompt's own settings still say whether it is used."""
    global _WARM
    _WARM = True
    _loaded(ref)


def _loaded(ref: str | None) -> threading.Event:
    """Set once the model ``ref`` names is loaded (or failed to); starts the load once."""
    import threading

    key = ref or ""
    with _LOADS_LOCK:
        event = _LOADS.get(key)
        if event is None:
            event = _LOADS[key] = threading.Event()
            threading.Thread(
                target=_preload, args=(ref, event), name="memdir-embedder", daemon=True
            ).start()
    return event


def _preload(ref: str | None, done: threading.Event) -> None:
    import contextlib

    from memdir.recall.meaning import warm_embedder

    try:
        with contextlib.suppress(Exception):  # a failure shows again, and falls back, later
            embedder = warm_embedder(ref)
            if embedder is not None:
                embedder.embed(["warm"])
    finally:
        done.set()


def _warm_embedder(settings: Settings) -> Embedder | None:
    """The embedding model for recall by meaning, or None (words alone) when it cannot load
    or is still loading after :data:`_MODEL_WAIT` seconds."""
    from memdir.recall.meaning import warm_embedder

    if not _loaded(settings.search_embeddings).wait(_MODEL_WAIT):
        return None
    try:
        return warm_embedder(settings.search_embeddings)
    except Exception:  # a hook never fails: a model that cannot load means words alone
        return None


def run_fast(
    name: str,
    *,
    stdin_text: str,
    env: Mapping[str, str],
    use_model: bool = False,
    write: Callable[[str], Any] | None = None,
    warn: Callable[[str], Any] | None = None,
) -> int:
    """Run the fast hook ``name`` on ``stdin_text``; print its answer; always exit 0."""
    write = write or sys.stdout.write
    warn = warn or sys.stderr.write
    try:
        if name == "session-start":
            from memdir.hooks.session_start import output_for_text

            output = output_for_text(stdin_text, env=env)
        elif name == "pre-tool-use":
            output = pre_tool_use(read_payload(stdin_text), env)
        else:
            output = user_prompt_submit(read_payload(stdin_text), env, use_model=use_model)
    except Exception as exc:  # a hook reports and steps aside, it never blocks the agent
        from memdir.storage.failures import describe

        warn(f"memdir: hook {name}: {describe(exc)}\n")
        return 0
    if output:
        write(output + "\n")
    return 0


def _fast_args(argv: Sequence[str]) -> tuple[str, bool, str | None] | None:
    """(command, use_model, host) when ``argv`` is one of the fast hooks, else None.

    ``host`` is the dialect ``--host`` names (None: Claude Code's), always last.
    """
    if len(argv) < 2 or argv[0] != "hook" or argv[1] not in FAST_COMMANDS:
        return None
    rest = list(argv[2:])
    host = None
    if len(rest) >= 2 and rest[-2] == "--host":
        from memdir.hooks.dialects import DIALECTS

        if rest[-1] not in DIALECTS:
            return None  # the full CLI names the hosts it knows
        host = rest[-1]
        del rest[-2:]
    if rest == []:
        return argv[1], False, host
    if rest == ["--model"] and argv[1] == "user-prompt-submit":
        return argv[1], True, host
    return None  # anything else (--help, unknown options): the full CLI answers


def _stdin_text() -> str:
    """The hook's input, as text whatever the locale (bad bytes become U+FFFD)."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return ""
    buffer = getattr(stream, "buffer", None)
    try:
        data = stream.read() if buffer is None else buffer.read()
    except (OSError, ValueError):
        return ""  # a closed or unreadable stdin is an empty input, not a traceback
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


# The marker memdir sets in its own ``claude -p`` children (memdir.llm.claude_code.CHILD_ENV):
# there every hook of an agent's session answers nothing, so no memdir work starts in them.
_CHILD_ENV = "MEMDIR_CHILD"
_CHILD_SILENT = [["hook", name] for name in (*FAST_COMMANDS, "stop", "pre-compact", "session-end")]


def dispatch(argv: Sequence[str]) -> int | None:
    """Answer ``argv`` here when it is a fast hook (returns the exit status), else None.

    In memdir's own ``claude -p`` child every session hook answers nothing (status 0).
    """
    if os.environ.get(_CHILD_ENV) and list(argv[:2]) in _CHILD_SILENT:
        return 0
    fast = _fast_args(argv)
    if fast is None:
        return None
    name, use_model, host = fast
    env: Mapping[str, str] = os.environ
    if host is not None:
        from memdir.hooks.dialects import HOST_VARIABLE

        env = {**os.environ, HOST_VARIABLE: host}  # the hook server gets it with the rest
    text = _stdin_text()
    if not use_model:  # a model's answer takes seconds: not the server's to wait for
        from memdir.hooks.client import answer

        try:
            served = answer(name, text, env)
        except Exception:  # the server is a shortcut: whatever goes wrong, the work is done here
            served = None
        if served is not None:
            out, err = served
            sys.stderr.write(err)
            sys.stdout.write(out)
            sys.stdout.flush()
            return 0
    status = run_fast(name, stdin_text=text, env=env, use_model=use_model)
    sys.stdout.flush()
    return status
