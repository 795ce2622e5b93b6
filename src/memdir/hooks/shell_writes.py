"""An agent's shell command that writes into memory, judged before it runs.

The file tools are not the only door into a memory folder: an agent's shell
writes there too (``echo … >> logs/…/2026-12-06.md``, ``cat > memory/x.md``,
``tee``, ``cp``, ``sed -i``), and memdir's own CLI, run from that shell, speaks
for the user (``memdir add`` is never screened, ``memdir review approve``
applies what waits for the user). The PreToolUse hook reads the command the
way the rule gate does (:func:`memdir.enforcement.shell_words.split_commands`:
quotes, variables, substitutions and ``bash -c`` bodies resolved) and finds
each place it writes under a memory folder:

- an output redirection (``>``, ``>>``, ``>|``, ``&>``, ``2>``) of a command
  whose output is known (a plain ``echo`` or ``printf``): the file's text after
  the command meets the same gate as a ``Write`` of that text
  (:func:`memdir.hooks.memory_writes.held_write`): screened, held for review,
  refused in a read-only scope;
- any other write whose text cannot be known before the command runs (a
  redirection of another command's output, ``tee``, ``cp``/``mv``/``install``/
  ``ln``/``rsync`` into memory from outside it, ``dd of=``, ``sed -i``/
  ``perl -i``, ``curl -o``, ``wget -O``, ``patch``): refused, the agent pointed
  to its file tools, where the text is judged;
- memdir's CLI commands (``memdir``, the plugin's ``memdir-plugin``) that change
  memory as the user would, or decide for them (``add``, ``edit``, ``log``,
  ``pin``, ``unpin``, ``restore``, ``undo``, ``unforget``, ``redact``,
  ``review approve``/``reject``): asked about, so that the user confirms them
  (a skill the user started runs them for them; where the host's hooks cannot
  ask, refused, the agent told to ask the user). Reading commands (``list``, ``show``, ``search``,
  ``recall``, ``review``'s list, ``doctor``) and deleting ones (``rm``,
  ``forget``: nothing new enters memory) go on;
- a program that may write into memory by its own code: an interpreter
  (``python``, ``node``, ``perl``, ``ruby``, ``awk``, ...) whose inline code or
  known input names a memory folder, that is handed a memory file, or that runs
  inside a memory folder; ``git`` changing the files of a memory folder
  (``pull``, ``checkout``, ``reset``, ``stash``, a clone into it), whose
  arrivals only memdir's syncs screen: refused.

A command that names memory but cannot be read whole (past the reader's length
or depth, or a quote left open) is refused: what it writes is not known.

Paths are resolved as the shell would at that point of the line: ``~`` and
``$HOME`` from the hook's environment, a relative path from the working
folder a ``cd`` or ``pushd`` earlier on the line left. A command that names no
memory folder (by its project folder's name, or run from inside one) costs a
substring test. Not seen: a compiled program or a script that finds a memory
folder on its own, a path the shell computes (a glob, a command's output) or
reaches through a link whose name the command does not spell. The hook is a
gate for an agent that follows its instructions, and a check on text it was
handed; the screening of every other door stays.
"""

from __future__ import annotations

import os

from memdir.hooks.memory_writes import MemoryCall, current_text, memory_place

TYPE_CHECKING = False  # not typing's: the pre-tool-use hook loads this module for Bash
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from memdir.enforcement.rule_cache import RuleRoot

__all__ = ["mentions_memory", "shell_cwd", "shell_memory_calls", "shell_text"]

# memdir's commands that change memory as its user would, or decide for them.
_PERSON_COMMANDS = frozenset(
    {"add", "edit", "log", "pin", "unpin", "restore", "undo", "unforget", "redact"}
)
_REVIEW_DECISIONS = frozenset({"approve", "reject"})
_MEMDIR_NAMES = frozenset({"memdir", "memdir-plugin"})  # the plugin's command for the shell
_MEMDIR_VALUED = frozenset({"--profile", "--project"})  # the group's options with a value
_AWK_VALUED = frozenset({"-F", "-v", "-f"})
_PRINTERS = frozenset({"echo", "printf"})
_CHANGE_DIRECTORY = frozenset({"cd", "pushd"})
_WORKDIR_FIELDS = ("dir_path", "workdir")  # a shell call's own folder (Gemini, Codex)
# Interpreters and the options that give them code to run on the command line.
_CODE_OPTIONS = {
    "python": ("-c",),
    "node": ("-e", "-p", "--eval", "--print"),
    "nodejs": ("-e", "-p", "--eval", "--print"),
    "bun": ("-e", "-p", "--eval", "--print"),
    "deno": (),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r",),
    "lua": ("-e",),
    "awk": (),
    "Rscript": ("-e",),
}
# git's commands that change the files of the tree they run in, and its global options
# whose value is the next word.
_GIT_CHANGES = frozenset(
    {
        "am",
        "apply",
        "checkout",
        "checkout-index",
        "cherry-pick",
        "merge",
        "pull",
        "read-tree",
        "rebase",
        "reset",
        "restore",
        "revert",
        "stash",
        "submodule",
        "switch",
        "worktree",
    }
)
_GIT_VALUED = frozenset({"-c", "--git-dir", "--namespace", "--exec-path", "--config-env"})


def mentions_memory(command: str, roots: Sequence[RuleRoot], cwd: object) -> bool:
    """Whether ``command`` may write into a memory folder: it holds the name of a
    folder's parent (the project's folder in memdir's home) or memdir's own, or runs
    from inside a memory folder."""
    if "memdir" in command:
        return True
    if isinstance(cwd, str) and memory_place(os.path.join(os.path.realpath(cwd), "x"), roots):
        return True
    for _, root, _ in roots:
        for form in {root, os.path.realpath(root)}:
            parent = os.path.basename(os.path.dirname(form))
            if parent and parent in command:
                return True
    return False


def shell_cwd(tool_input: Mapping[str, Any], cwd: object) -> object:
    """The folder a shell call runs in: the session's, or the one the call names
    (Gemini CLI's ``dir_path``, Codex's ``workdir``), taken from the session's."""
    for field in _WORKDIR_FIELDS:
        named = tool_input.get(field)
        if isinstance(named, str) and named and isinstance(cwd, str) and os.path.isabs(cwd):
            return os.path.normpath(os.path.join(cwd, named))
    return cwd


def shell_text(command: object, roots: Sequence[RuleRoot], cwd: object) -> str | None:
    """A shell call's command line, when it may name a memory folder (None: it names
    none, or is not text). A command given as words (an argument list) is joined as
    the shell would read it."""
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        import shlex

        command = shlex.join(command)
    if not isinstance(command, str) or not mentions_memory(command, roots, cwd):
        return None
    return command


def shell_memory_calls(
    command: str, roots: Sequence[RuleRoot], cwd: object, home: str | None
) -> tuple[list[MemoryCall], tuple[str, str] | None]:
    """The writes into memory ``command`` makes whose text is known, each as the
    ``Write`` of the file's text after it; and the answer to give instead of judging
    them, or None: ``("deny", reason)`` for a write whose text is not known,
    ``("ask", reason)`` for memdir's command that acts as the user (they confirm it:
    a skill they started may run it for them)."""
    from memdir.enforcement.shell_words import commands_with_input

    commands, complete = commands_with_input(command)
    if not complete:  # too long, too deep, or left open: what it writes is not known
        return [], ("deny", _UNREAD)
    reader = _Reader(roots, cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None, home)
    for words, given in commands:
        answer = reader.read(words, given)
        if answer is not None:
            return [], answer
    return reader.calls, None


class _Reader:
    """One command line's simple commands, in order: where each writes into memory."""

    def __init__(self, roots: Sequence[RuleRoot], cwd: str | None, home: str | None) -> None:
        self.roots = roots
        self.cwd = cwd
        self.home = home
        self.texts: dict[str, str] = {}  # a file's text after the writes read so far
        self.calls: list[MemoryCall] = []

    def read(self, words: list[str], given: str | None) -> tuple[str, str] | None:
        """Judge one simple command (``given``: its input, when known): None, or the
        answer for the command line (``ask`` or ``deny``, and why)."""
        from memdir.enforcement.shell_targets import redirected
        from memdir.enforcement.shell_words import Redirection, command_index

        at = command_index(words)
        args = [w for w in words[at + 1 :] if not isinstance(w, Redirection)]
        name = os.path.basename(words[at]) if at < len(words) else ""
        if name in _CHANGE_DIRECTORY:
            self.change_directory(args)
            return None
        verb = _for_the_person(name, args)
        if verb is not None:
            return "ask", _persons_reason(verb)
        program = self.git(args) if name == "git" else self.program(name, args, given)
        if program is not None:
            return "deny", program
        printed = _printed(name, args, given)
        for word in words:
            written = redirected(word)
            if written is not None:
                target, append, output = written
                reason = self.written(target, append, printed if output else None)
                if reason is not None:
                    return "deny", reason
        reason = self.teed(args, _known(given)) if name == "tee" else self.copied(name, args)
        return None if reason is None else ("deny", reason)

    def program(self, name: str, args: list[str], given: str | None) -> str | None:
        """Why an interpreter may write into memory by its own code (None: it may not):
        it runs inside a memory folder, its inline code or input names one, or it is
        handed a memory file."""
        code = _inline_code(name, args, given)
        if code is None:
            return None
        if self.cwd is not None and self.inside(os.path.join(self.cwd, "x")):
            return _program_reason(name, "runs inside a memory folder")
        if code and any(form in code for form in self.root_forms()):
            return _program_reason(name, "names a memory folder in its code")
        if any(self.place(word) is not None for word in args if not word.startswith("-")):
            return _program_reason(name, "is handed a memory file")
        return None

    def git(self, args: list[str]) -> str | None:
        """Why a git command changes files in a memory folder (None: it does not):
        what it checks out, merges or applies there is not screened."""
        folder, command = self.cwd, ""
        skip = False
        for at, word in enumerate(args):
            if skip:
                skip = False
            elif word == "-C" and at + 1 < len(args):  # each -C from the one before
                folder = _within(folder, _home_expanded(args[at + 1], self.home))
                skip = True
            elif word.startswith("--work-tree="):
                folder = _within(folder, _home_expanded(word.split("=", 1)[1], self.home))
            elif word in _GIT_VALUED:
                skip = True
            elif not word.startswith("-"):
                command = word
                rest = args[at + 1 :]
                break
        else:
            return None
        if command == "clone":  # the new clone lands where its last operand says
            operands = [w for w in rest if not w.startswith("-")]
            into = operands[-1] if len(operands) > 1 else None
            if into is not None and self.place(into) is not None:
                return _GIT_REASON
            return None
        if command not in _GIT_CHANGES or folder is None:
            return None
        return _GIT_REASON if self.inside(os.path.join(folder, "x")) else None

    def root_forms(self) -> set[str]:
        """How code may spell a memory folder: its path, resolved or not, and the part
        of it under the home folder (``~/…``, ``Path.home() / "…"``)."""
        forms: set[str] = set()
        for _, root, _ in self.roots:
            for form in (root, os.path.realpath(root)):
                forms.add(form)
                if self.home and form.startswith(self.home.rstrip("/") + "/"):
                    forms.add(form[len(self.home.rstrip("/")) + 1 :])
        return forms

    def copied(self, name: str, args: list[str]) -> str | None:
        """Why a copy into memory from outside it, or a file there filled from elsewhere,
        is refused (None: neither)."""
        from memdir.enforcement.shell_targets import COPIERS, copy_parts, filled_files

        if name in COPIERS:
            sources, landed = copy_parts(name, args, self.is_folder)
            if all(self.inside(source) for source in sources):
                landed = []  # a move or copy within memory: no new text comes in
        else:
            landed = filled_files(name, args)
        for target in landed:
            place = self.place(target)
            if place is not None:
                return _unknown_text(place[1])
        return None

    def is_folder(self, word: str) -> bool:
        path = self.resolved(word)
        return path is not None and os.path.isdir(path)

    def teed(self, args: list[str], given: str | None) -> str | None:
        append = any(a in ("-a", "--append") for a in args)
        for target in (a for a in args if not a.startswith("-")):
            reason = self.written(target, append, given)
            if reason is not None:
                return reason
        return None

    def change_directory(self, args: list[str]) -> None:
        given = [a for a in args if not a.startswith("-") or a == "-"]
        if not given:
            self.cwd = self.home
        elif given[0] != "-":
            self.cwd = self.resolved(given[0])

    def written(self, target: str, append: bool, text: str | None) -> str | None:
        """Judge ``text`` written to ``target`` (None: not known): None, or the reason
        to refuse the command line."""
        place = self.place(target)
        if place is None:
            return None
        path, rel, scope = place
        if text is None:
            return _unknown_text(rel)
        if os.path.isdir(path):  # the shell refuses it on its own
            return None
        before = self.texts.get(path, current_text(path) or "") if append else ""
        self.texts[path] = before + text
        tool_input = {"file_path": path, "content": before + text}
        call = MemoryCall(tool="Write", tool_input=tool_input, scope=scope, path=path, rel=rel)
        self.calls.append(call)
        return None

    def inside(self, word: str) -> bool:
        return self.place(word) is not None

    def place(self, word: str) -> tuple[str, str, str] | None:
        """(resolved path, file relative to its scope's folder, scope) of ``word``, when
        it names a file under a memory folder, or is one of those folders."""
        path = self.resolved(word)
        if path is None:
            return None
        found = memory_place(path, self.roots)
        if found is None and os.path.isdir(path):  # a copy into the folder itself
            found = memory_place(os.path.join(path, "x"), self.roots)
            if found is not None:
                found = (found[0], os.path.dirname(found[1]) or "the memory folder")
        return None if found is None else (path, found[1], found[0])

    def resolved(self, word: str) -> str | None:
        if not word or "\0" in word:
            return None
        value = _home_expanded(word, self.home)
        if not os.path.isabs(value):
            if self.cwd is None:
                return None
            value = os.path.join(self.cwd, value)
        return os.path.realpath(value)


def _inline_code(name: str, args: list[str], given: str | None) -> str | None:
    """The code an interpreter runs from its words or its known input ("": a script
    file, or input not known), or None: ``name`` is no interpreter."""
    from memdir.enforcement.shell_targets import operands as shell_operands

    kind = _interpreter(name)
    if kind is None:
        return None
    options = _CODE_OPTIONS[kind]
    for at, word in enumerate(args):
        if word in options and at + 1 < len(args):
            return args[at + 1]
        for option in options:  # ``-c'…'`` and ``--eval=…``
            if option.startswith("--") and word.startswith(option + "="):
                return word[len(option) + 1 :]
            if not option.startswith("--") and word.startswith(option) and len(word) > 2:
                return word[2:]
    if kind == "awk":  # the program is the first operand, unless a file gives it
        operands = shell_operands(args, _AWK_VALUED)
        return operands[0] if operands and "-f" not in args else ""
    if kind == "deno" and args[:1] == ["eval"]:
        return " ".join(args[1:])
    scripts = [w for w in args if not w.startswith("-")]
    if not scripts or scripts[0] == "-":  # the code is its input
        return given or ""
    return ""


def _within(folder: str | None, word: str) -> str | None:
    """``word`` as a folder from ``folder`` (None: not known)."""
    if os.path.isabs(word):
        return os.path.realpath(word)
    return None if folder is None else os.path.realpath(os.path.join(folder, word))


def _interpreter(name: str) -> str | None:
    """Which interpreter ``name`` runs (``python3.12`` is python), or None."""
    if name.startswith("python") and (name[6:] == "" or name[6:].replace(".", "").isdigit()):
        return "python"
    if name in ("gawk", "mawk", "nawk"):
        return "awk"
    return name if name in _CODE_OPTIONS else None


def _program_reason(name: str, why: str) -> str:
    return (
        f"memdir did not let this command run: {name} {why}, and what a program writes "
        "by its own code cannot be judged before it runs. Write memory with your file "
        "tools instead (its text is screened, and may wait for the user's review)."
    )


def _for_the_person(name: str, args: list[str]) -> str | None:
    """The memdir command (``add``, ``review approve``) that ``name`` and ``args`` run
    when it acts as the user, or None."""
    from memdir.enforcement.shell_targets import operands as shell_operands

    if name.startswith("python") and args[:2] == ["-m", "memdir"]:
        args = args[2:]
    elif name.startswith("python") and args and os.path.basename(args[0]) in _MEMDIR_NAMES:
        args = args[1:]
    elif name not in _MEMDIR_NAMES:
        return None
    words = shell_operands(args, _MEMDIR_VALUED)
    if not words:
        return None
    verb = words[0]
    if verb == "review" and len(words) > 1 and words[1] in _REVIEW_DECISIONS:
        return f"review {words[1]}"
    return verb if verb in _PERSON_COMMANDS else None


def _persons_reason(verb: str) -> str:
    return (
        f"`memdir {verb}` changes memory as the user, without screening or review: run it "
        "only when the user asked for it. To save what you learned, write the memory's "
        "file with your file tools instead (it is screened, and may wait for the user's "
        "review)."
    )


def _printed(name: str, args: list[str], given: str | None) -> str | None:
    """What a plain ``echo`` or ``printf`` prints (echo's newline included), or ``cat``
    of its known input; None: not known."""
    from memdir.enforcement.shell_forms import ECHO_OPTIONS, known_output

    if name == "cat":
        return _known(given) if all(a == "-" for a in args) else None
    if name not in _PRINTERS:
        return None
    text = known_output([name, *args], 0, None)
    options = args[: next((i for i, a in enumerate(args) if a not in ECHO_OPTIONS), len(args))]
    newline = name == "echo" and not any("n" in option for option in options)
    return _known(text + "\n" if newline and text is not None else text)


def _known(text: str | None) -> str | None:
    """``text``, unless what the shell writes may differ from it: a substitution or
    variable the reader could not resolve stays in it as written, and runs."""
    if text is None or "`" in text or "$(" in text:
        return None
    at = text.find("$")
    while at >= 0:
        if text[at + 1 : at + 2].isalpha() or text[at + 1 : at + 2] in ("{", "_"):
            return None
        at = text.find("$", at + 1)
    return text


def _home_expanded(word: str, home: str | None) -> str:
    if home is None:
        return word
    for prefix in ("~/", "$HOME/", "${HOME}/"):
        if word.startswith(prefix):
            return os.path.join(home, word[len(prefix) :])
    return home if word in ("~", "$HOME", "${HOME}") else word


_GIT_REASON = (
    "memdir did not let this git command run: it changes files in a memory folder, and "
    "what git checks out, merges or applies there is not screened. Team memory arrives "
    "through `memdir team sync` and private memory through `memdir sync`, which screen "
    "it; to save a memory, write its file with your file tools."
)

_UNREAD = (
    "memdir did not let this command run: it may write into memory (it names a memory "
    "folder or memdir), and it could not be read whole (too long, nested too deep, or a "
    "quote or here-document left open). Write memory with your file tools, or split the "
    "command."
)


def _unknown_text(rel: str) -> str:
    return (
        f"memdir did not let this command write {rel}: what a shell command writes into "
        "memory cannot be judged before it runs. Write the file with your file tools "
        "instead (its text is screened, and may wait for the user's review)."
    )
