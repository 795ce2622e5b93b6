"""What one simple command runs: its command name behind wrappers, and the shell code it hands on.

:mod:`memdir.enforcement.shell_words` reads a command line into simple
commands (lists of words); this module reads one of them the way the
programs in it would:

- **the command name** (:func:`command_index`): past assignments
  (``A=1``), redirections (``>log``), the reserved words that open a compound
  command (``if``, ``then``, ``while``, ``until``, ``do``, ``!``, ``{``, ...)
  and the wrappers that run the command after them (``sudo -u x``, ``env``,
  ``nice -n 5``, ``timeout 10``, ``xargs``, ``flock FILE``, ...), options and
  their values skipped (also in a cluster: ``sudo -iu x``); a wrapper that
  only describes its command (``command -v npm``, ``sudo -l npm``) runs none;
- **shell code given as a string** (:func:`code_strings`): ``bash -c`` (any
  shell, anywhere in the words: ``docker exec c sh -c``), ``env -S``,
  ``script -c``, ``flock -c``, ``su -c``, ``sg GROUP CMD``, ``watch CMD``
  and ``trap CMD SIGNAL``;
- **commands given as words** (:func:`exec_commands`): ``find … -exec CMD {} ;``
  (and ``-execdir``, ``-ok``, ``-okdir``);
- **a shell that reads its commands from its input** (:func:`reads_stdin`):
  ``bash``, ``sh -s``, ``bash -``, ``source /dev/stdin``; the caller hands it
  a here-document, a here-string or a pipe whose text it knows;
- **what a command prints** (:func:`known_output`): a plain ``echo`` or
  ``printf`` of words, or ``cat`` of a known input; a substitution or a pipe
  from such a command stands for that text;
- the expansions inside a word (brace expansion, the parts of ``${…}``, the
  escapes of ``$'…'``) are :mod:`memdir.enforcement.shell_expansions`.

Words that are redirections (:class:`Redirection`) are never a command's name
or argument. Nothing here runs a program or loads ``re``: the pre-tool-use
hook reads commands before it has loaded any regex engine.
"""

from __future__ import annotations

from memdir.enforcement.shell_expansions import unescape

__all__ = [
    "ECHO_OPTIONS",
    "RESERVED_WORDS",
    "SHELLS",
    "WRAPPER_NAMES",
    "Redirection",
    "assigned",
    "code_strings",
    "command_chain",
    "command_index",
    "exec_commands",
    "known_output",
    "name_end",
    "reads_stdin",
]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"})
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_REST = _NAME_START | frozenset("0123456789")
# Reserved words that open (or go on with) a compound command: the command follows them.
_RESERVED = frozenset({"!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done"})
_RESERVED_TOO = frozenset({"while", "until", "coproc"})
# Commands that run the command that follows them, and their options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset("-u -g -h -p -C -D -r -t -U -T --user --group --host".split()),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "time": frozenset({"-f", "-o"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset("-I -n -P -L -d -E -s -a --max-args --max-procs".split()),
    "setsid": frozenset(),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "flock": frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}),
    "watch": frozenset({"-n", "--interval", "-d", "--differences"}),
    "strace": frozenset("-e -o -p -s -u -E -a -b -I -O -P -S -X".split()),
    "ltrace": frozenset("-e -o -p -s -u -a -n -A -D -F -L".split()),
    "unbuffer": frozenset(),
    "chronic": frozenset(),
    "pkexec": frozenset({"--user"}),
    "caffeinate": frozenset({"-t", "-w"}),
    "torsocks": frozenset({"-a", "-P", "-u", "-p"}),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
}
WRAPPER_NAMES = frozenset(_WRAPPERS)
RESERVED_WORDS = _RESERVED | _RESERVED_TOO | {"function", "time"}
# Flags with which a wrapper only describes the command it names (``command -v npm``).
_DESCRIBE_FLAGS = {"command": frozenset("vV"), "sudo": frozenset("l")}
# Words a wrapper takes before the command: a duration, a priority, a CPU mask, a lock.
_WRAPPER_ARGS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1}
# Commands that run a string as shell code, and the options that give it.
_CODE_OPTIONS: dict[str, tuple[str, str]] = {
    "script": ("c", "--command"),
    "flock": ("c", "--command"),
    "su": ("c", "--command"),
    "runuser": ("c", "--command"),
    "sg": ("c", "--command"),
}
# A shell's options whose value is the next word.
_SHELL_VALUED = frozenset({"--rcfile", "--init-file"})
_EXEC_FLAGS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_STDIN_NAMES = frozenset({"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})
ECHO_OPTIONS = frozenset({"-n", "-e", "-E", "-ne", "-en"})
_PRINTERS = frozenset({"echo", "printf", "cat"})


class Redirection(str):
    """A redirection read as one word: its operator and target (``>out``, ``2>&1``,
    ``<<EOF``, ``<<<text``). It stays among a command's words, where a pattern may
    name it, but is never the command's name nor one of its arguments."""

    __slots__ = ()


def name_end(text: str, pos: int) -> int:
    """Where the shell variable name starting at ``pos`` ends (``pos``: there is none)."""
    n = len(text)
    if pos >= n or text[pos] not in _NAME_START:
        return pos
    pos += 1
    while pos < n and text[pos] in _NAME_REST:
        pos += 1
    return pos


def assigned(word: str) -> str | None:
    """The variable ``word`` assigns (``NAME=value``), or None."""
    if isinstance(word, Redirection):
        return None
    end = name_end(word, 0)
    return word[:end] if end and word[end : end + 1] == "=" else None


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def command_chain(words: list[str]) -> list[int]:
    """The index of each command in ``words``' wrapper chain, the command run last
    (``len(words)`` when none is: ``sudo -u x``, ``A=1``)."""
    found: list[int] = []
    i, n = 0, len(words)
    while i < n:
        word = words[i]
        if isinstance(word, Redirection) or word in _RESERVED or assigned(word) is not None:
            i += 1
            continue
        if word in _RESERVED_TOO and not found:
            i += 1
            continue
        if word == "function" and not found:
            i += 2  # ``function NAME``: the body follows
            continue
        found.append(i)
        name = _base(word)
        takes = _WRAPPERS.get(name)
        if takes is None:
            return found
        if _describes(words, i + 1, name, takes):
            break
        i = _past_options(words, i + 1, name, takes)
    found.append(n)
    return found


def _past_options(words: list[str], i: int, name: str, takes: frozenset[str]) -> int:
    """The index after a wrapper's options (and the words it takes before its command)."""
    n = len(words)
    while i < n:
        word = words[i]
        if isinstance(word, Redirection) or (name == "env" and assigned(word) is not None):
            i += 1
        elif word == "--":
            i += 1
            break
        elif word.startswith("-") and len(word) > 1:
            i += _option_width(word, takes)
        else:
            break
    i += _WRAPPER_ARGS.get(name, 0)
    if i < n and words[i] == "--":
        i += 1
    return i


def _describes(words: list[str], i: int, name: str, takes: frozenset[str]) -> bool:
    """Whether the wrapper at ``words[i - 1]`` only describes the command after it
    (``command -v npm``, ``sudo -l npm``): then it runs nothing."""
    letters = _DESCRIBE_FLAGS.get(name)
    n = len(words)
    while letters and i < n and words[i].startswith("-") and words[i] != "--":
        word = words[i]
        if word == "--list" and name == "sudo":
            return True
        if not word.startswith("--") and not letters.isdisjoint(word[1:]):
            return True
        i += _option_width(word, takes)
    return False


def _option_width(word: str, takes: frozenset[str]) -> int:
    """How many words an option takes up: 2 when its value is the next word (``-u x``, and
    in a cluster ``-iu x``), else 1 (``-uroot``, ``--user=x``, a flag)."""
    if word in takes:
        return 2
    if word.startswith("--"):
        return 1
    for at in range(1, len(word)):
        if "-" + word[at] in takes:
            return 1 if at + 1 < len(word) else 2  # the rest of the cluster is its value
    return 1


def command_index(words: list[str]) -> int:
    """Where the command name is in ``words``: after assignments, redirections, reserved
    words and wrappers (``sudo -u x``); ``len(words)`` when there is none."""
    return min(command_chain(words)[-1], len(words))


def _option_value(words: list[str], i: int, short: str, long: str) -> tuple[str, int] | None:
    """The value of option ``-<short>`` (also in a cluster: ``-qc``) or ``<long>`` among
    ``words[i:]``, up to ``--``, and the index just past it; None when not given."""
    n = len(words)
    while i < n:
        word = words[i]
        i += 1
        if isinstance(word, Redirection) or not word.startswith("-") or word == "-":
            continue
        if word == "--":
            return None
        if word.startswith("--"):
            if word == long:
                return (words[i], i + 1) if i < n else None
            if word.startswith(long + "="):
                return word[len(long) + 1 :], i
            continue
        at = word.find(short, 1)
        if at > 0:
            rest = word[at + 1 :]
            if rest:
                return rest, i
            return (words[i], i + 1) if i < n else None
    return None


def _operands(words: list[str], i: int) -> list[str]:
    """The words after ``i`` that are neither options (before the first operand) nor
    redirections."""
    found: list[str] = []
    options = True
    for word in words[i:]:
        if isinstance(word, Redirection):
            continue
        if options and word == "--":
            options = False
            continue
        if options and word.startswith("-") and len(word) > 1:
            continue
        options = False
        found.append(word)
    return found


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _shell_c(words: list[str], i: int) -> str | None:
    """The string a shell at ``words[i]`` runs with ``-c``, or None: its first operand once
    ``c`` is among its flags, past ``--``, long options and the values of ``-o``/``-O``
    (``bash -o errexit -c CODE``, ``bash --login -c -- CODE``)."""
    flagged = False
    args = [arg for arg in words[i + 1 :] if not isinstance(arg, Redirection)]
    at = 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg == "--":
            return args[at] if flagged and at < len(args) else None
        if arg in _SHELL_VALUED:
            at += 1
        elif arg.startswith("--"):
            continue
        elif arg.startswith(("-", "+")) and len(arg) > 1:
            flagged = flagged or "c" in arg[1:]
            at += 1 if arg[-1] in "oO" else 0  # ``-eo pipefail``: the cluster's value
        else:
            return arg if flagged else None
    return None


def code_strings(words: list[str], chain: list[int]) -> list[str]:
    """The strings ``words`` (its :func:`command_chain`: ``chain``) hands to a shell as code
    (see the module docstring)."""
    found: list[str] = []
    for i, word in enumerate(words):
        if not (word in SHELLS or ("/" in word and _base(word) in SHELLS)):
            continue
        if not isinstance(word, Redirection):
            code = _shell_c(words, i)
            if code is not None:
                found.append(code)
    for at in chain:
        if at < len(words):
            found += _code_of(words, at)
    return found


def _code_of(words: list[str], at: int) -> list[str]:
    """The code one command of the chain runs as a string: ``env -S``, ``script -c``, ..."""
    name = _base(words[at])
    if name == "env":
        split = _option_value(words, at + 1, "S", "--split-string")
        if split is None:
            return []
        rest = [w for w in words[split[1] :] if not isinstance(w, Redirection)]
        return [" ".join([split[0], *(_quoted(w) for w in rest)])]
    if name in _CODE_OPTIONS:
        short, long = _CODE_OPTIONS[name]
        code = _option_value(words, at + 1, short, long)
        if code is not None:
            return [code[0]]
        if name == "sg":  # ``sg GROUP COMMAND``
            operands = _operands(words, at + 1)
            return [operands[1]] if len(operands) > 1 else []
        return []
    if name == "trap":
        operands = _operands(words, at + 1)
        return [operands[0]] if len(operands) > 1 and operands[0] != "-" else []
    if name == "watch":
        operands = _operands(_skip_valued(words, at + 1, _WRAPPERS["watch"]), 0)
        return [" ".join(operands)] if operands else []
    return []


def _skip_valued(words: list[str], i: int, takes: frozenset[str]) -> list[str]:
    """``words[i:]`` with the options in ``takes`` and their values left out."""
    out: list[str] = []
    n = len(words)
    while i < n:
        if words[i] in takes:
            i += 2
            continue
        out.append(words[i])
        i += 1
    return out


def exec_commands(words: list[str], at: int) -> list[list[str]]:
    """The commands ``find … -exec CMD … ;`` runs (the command name at ``at``), each as its
    words."""
    if at >= len(words) or _base(words[at]) != "find":
        return []
    found: list[list[str]] = []
    current: list[str] | None = None
    for word in words[at + 1 :]:
        if current is None:
            if word in _EXEC_FLAGS:
                current = []
        elif word in (";", "+") and not isinstance(word, Redirection):
            if current:
                found.append(current)
            current = None
        else:
            current.append(word)
    if current:
        found.append(current)
    return found


def reads_stdin(words: list[str], at: int) -> bool:
    """Whether a shell among ``words`` (the command name at ``at``) reads its commands
    from its input: no ``-c``, and no script file (only options, or ``-s`` and the
    arguments it passes on)."""
    if at < len(words) and words[at] in ("source", "."):
        operands = _operands(words, at + 1)
        return bool(operands) and operands[0] in _STDIN_NAMES
    for i, word in enumerate(words):
        if isinstance(word, Redirection) or _base(word) not in SHELLS:
            continue
        if _shell_reads_stdin(words, i):
            return True
    return False


def _shell_reads_stdin(words: list[str], i: int) -> bool:
    for arg in words[i + 1 :]:
        if isinstance(arg, Redirection):
            continue
        if arg in _STDIN_NAMES or arg == "--":
            return True
        if arg.startswith(("-", "+")):
            if "c" in arg[1:] and not arg.startswith("--"):
                return False
            if "s" in arg[1:] and not arg.startswith("--"):
                return True
            continue
        return False  # a script file
    return True


def known_output(words: list[str], at: int, stdin: str | None) -> str | None:
    """What ``words`` (the command name at ``at``) prints, when it is a plain
    ``echo``/``printf`` of words or ``cat`` of a known input (``stdin``); None: unknown,
    or sent elsewhere than the output."""
    if at >= len(words) or _base(words[at]) not in _PRINTERS:
        return None
    if any(isinstance(w, Redirection) and _to_output(w) for w in words):
        return None
    name = _base(words[at])
    args = [w for w in words[at + 1 :] if not isinstance(w, Redirection)]
    if name == "echo":
        escapes = False
        while args and args[0] in ECHO_OPTIONS:
            escapes = escapes or "e" in args[0]
            args = args[1:]
        text = " ".join(args)
        return unescape(text) if escapes else text
    if name == "printf":
        if len(args) == 1 and "%" not in args[0]:
            return unescape(args[0])
        return None
    if name == "cat" and stdin is not None and all(a == "-" for a in args):
        return stdin
    return None


def _to_output(word: str) -> bool:
    """Whether a redirection sends the command's output elsewhere (``>f``, ``1>f``, ``&>f``)."""
    digits = len(word) - len(word.lstrip("0123456789"))
    fd, op = word[:digits], word[digits:]
    return op.startswith("&>") or (op.startswith(">") and fd in ("", "1"))
