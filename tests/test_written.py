"""Reading back the commands memdir's installers write: every form, and nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.hosts.launch import Launch
from memdir.hosts.written import read_hook_command, read_server_entry

# Path text with what shell quoting must survive: spaces, quotes, ;, $, globs.
_PART = st.text(st.sampled_from("abcXYZ019 _-.'\";$*&|()[]{}~#"), min_size=1, max_size=12)
_DIR = st.lists(_PART, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))
_PROGRAM = st.one_of(
    _DIR.map(lambda d: (d + "/memdir",)),
    _DIR.map(lambda d: (d + "/python3", "-m", "memdir")),
)
_ENV = st.lists(
    st.tuples(st.sampled_from(["PYTHONPATH", "MEMDIR_HOME", "MEMDIR_CONFIG"]), _DIR),
    max_size=3,
    unique_by=lambda pair: pair[0],
)
_LAUNCH = st.builds(
    Launch,
    program=_PROGRAM,
    env=_ENV.map(tuple),
    profile=st.sampled_from([None, "memdir", "claude"]),
)
_HOOK = st.sampled_from(["session-start", "pre-tool-use", "stop", "pre-compact", "session-end"])


@settings(max_examples=150, deadline=None)
@given(launch=_LAUNCH, name=_HOOK, shared=st.booleans())
def test_every_hook_command_memdir_writes_reads_back_as_written(
    launch: Launch, name: str, shared: bool
) -> None:
    written = read_hook_command(launch.hook_command(name, shared=shared))
    assert written is not None
    assert (written.program, written.env, written.profile) == (
        launch.program, launch.env, launch.profile,
    )  # fmt: skip
    assert written.args == ("hook", name) and written.shared is shared


@settings(max_examples=150, deadline=None)
@given(launch=_LAUNCH, project=st.one_of(st.none(), _DIR), shared=st.booleans())
def test_every_server_entry_memdir_writes_reads_back_as_written(
    launch: Launch, project: str | None, shared: bool
) -> None:
    args = ["serve", *(["--project", project] if project else [])]
    written = read_server_entry(launch.server_entry(args, shared=shared))
    assert written is not None
    assert (written.program, written.env) == (launch.program, launch.env)
    profile = ("--profile", launch.profile) if launch.profile else ()
    assert written.args == (*profile, *args) and written.shared is shared


def test_commands_in_other_forms_do_not_read_back() -> None:
    for command in [
        "touch /tmp/x; memdir hook stop",
        "memdir hook stop; touch /tmp/x",
        "memdir hook stop && rm -rf ~",
        "PATH=/evil memdir hook stop",
        "LD_PRELOAD=/evil.so /opt/memdir hook stop",
        "/opt/evil hook stop",
        "relative/memdir hook stop",
        "/usr/bin/python3 -c 'import os' -m memdir hook stop",
        "/opt/memdir hook stop --extra",
        "/opt/memdir serve",
        "/opt/memdir hook 'stop; id'",
        "if [ -x /a/memdir ]; then exec /a/memdir hook stop; else id; fi",
        "if [ -x /a/memdir ]; then exec /b/memdir hook stop; else echo x >&2; fi",
        "if [ -x /a/memdir ]; then touch x; exec /a/memdir hook stop; else echo x >&2; fi",
        "if [ -x /a/memdir ]; then exec /a/memdir hook stop; elif true; then id; "
        "else echo x >&2; fi",
    ]:
        assert read_hook_command(command) is None, command
    assert read_hook_command("memdir hook stop") is not None  # what earlier versions wrote
    for entry in [
        {"command": "/bin/sh", "args": ["-c", "touch /tmp/x", "memdir", "serve"]},
        {"command": "/opt/memdir", "args": ["serve", "--evil"]},
        {"command": "/opt/memdir", "args": ["serve"], "env": {"LD_PRELOAD": "/x.so"}},
        {"command": "/opt/evil", "args": ["serve"]},
        {"command": "/opt/memdir", "args": ["hook", "stop"]},
    ]:
        assert read_server_entry(entry) is None, entry
