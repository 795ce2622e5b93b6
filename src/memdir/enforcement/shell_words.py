"""The simple commands a shell command line runs, as words: what Bash rules are matched on.

A Bash rule must see the command the shell runs, not the characters the agent
typed: ``npm  install``, ``n\\pm install``, ``'npm' install``, a line
continuation, ``$(echo npm) install`` and ``N=npm; $N install`` all run
``npm install``. :func:`split_commands` reads a command line once, left to
right (linear time, no backtracking), the way a POSIX shell splits it:

- quotes (``'…'``, ``"…"``, ``$'…'``) and backslashes are removed, a
  backslash-newline joins two lines, runs of blanks separate words;
- ``;``, ``&``, ``&&``, ``||``, ``|``, ``|&``, newlines and parentheses end a
  simple command; ``#`` at the start of a word starts a comment;
- ``$( )``, backticks, ``<( )`` and ``>( )`` are read as command lines of
  their own; a substitution whose body is a plain ``echo``/``printf`` of
  words stands for its output (``$(echo npm)`` is the word ``npm``), any
  other keeps its text;
- a variable assigned earlier on the line (``N=npm;``, ``export N=npm``) is
  expanded, split into words when unquoted; any other ``$NAME`` stays as
  written;
- the bodies of ``bash -c``/``sh -c`` (any shell, also behind ``sudo``,
  ``xargs`` or ``find -exec``) and ``eval`` are read as command lines too.

A word keeps the blanks it holds inside quotes, so a rule can tell a
command from an argument that is data (``git commit -m 'npm install'`` is
one word after ``-m``). Nesting is read to :data:`MAX_DEPTH` levels and the
input to :data:`MAX_CHARS` characters; past either, or when quotes or
parentheses do not close, the result says it is not ``complete`` and the
caller must not trust it alone. Not a shell: no globbing, no arithmetic, no
aliases or functions resolved, here-document bodies read as commands.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["MAX_CHARS", "MAX_DEPTH", "SHELLS", "command_index", "split_commands"]

MAX_CHARS = 100_000  # a longer command line is not read (about 0.2 s of dense syntax): ask
MAX_DEPTH = 8  # nested substitutions and shell bodies read; deeper ones are not trusted
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"})

# The characters that mean something to the shell (blanks aside): a run of any others is
# one piece of a word. Scanned without ``re``: the pre-tool-use hook reads commands before
# it has loaded any regex engine (importing ``re`` costs that hook a third of its time).
_SPECIAL = frozenset("'\"\\$`;&|()<>#")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_REST = _NAME_START | frozenset("0123456789")
_BLANK = " \t\r\f\v"
_DECLARE = frozenset({"export", "declare", "typeset", "local", "readonly"})
# Commands that run the command that follows them, and their options that take a value.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset("-u -g -h -p -C -D -r -t -U -T".split()),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "time": frozenset({"-f", "-o"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset("-I -n -P -L -d -E -s -a --max-args --max-procs".split()),
}
_WRAPPER_ARGS = {"timeout": 1}  # words a wrapper takes before the command (the duration)
_ECHOES = frozenset({"echo", "printf"})


class _Line:
    """One pass over a command line, collecting its simple commands."""

    def __init__(self, text: str, variables: dict[str, str], depth: int) -> None:
        self.text = text
        self.pos = 0
        self.variables = variables
        self.depth = depth
        self.commands: list[list[str]] = []
        self.complete = True
        self.words: list[str] = []
        self.word: list[str] = []
        self.started = False  # the current word exists, even if empty (``''``)

    # -- words and commands -----------------------------------------------------------

    def end_word(self) -> None:
        if self.started:
            self.words.append("".join(self.word))
        self.word = []
        self.started = False

    def end_command(self) -> None:
        self.end_word()
        words, self.words = self.words, []
        if words:
            self.finish(words)

    def add(self, piece: str) -> None:
        self.word.append(piece)
        self.started = True

    def add_unquoted(self, value: str) -> None:
        """An unquoted expansion: split into words at blanks and newlines."""
        parts = value.split()
        if not parts:
            return
        if value[:1].isspace():
            self.end_word()
        for i, part in enumerate(parts):
            if i:
                self.end_word()
            self.add(part)
        if value[-1:].isspace():
            self.end_word()

    def finish(self, words: list[str]) -> None:
        """Record one simple command, remember its assignments, read the shell code it runs."""
        self.commands.append(words)
        at = command_index(words)
        if at == len(words) or words[at] in _DECLARE:
            for word in words[at + 1 :] if at < len(words) else words:
                self.assign(word)
        if at < len(words) and words[at] == "eval":
            self.nested(" ".join(words[at + 1 :]))
        for body in _shell_bodies(words):
            self.nested(body)

    def assign(self, word: str) -> None:
        name = _assigned(word)
        if name is not None:
            self.variables[name] = word[len(name) + 1 :]

    def nested(self, text: str) -> list[list[str]]:
        """The commands of ``text``, read as a command line of its own, added to ours."""
        if self.depth >= MAX_DEPTH:
            self.complete = False
            return []
        inner = _Line(text, self.variables, self.depth + 1)
        inner.run(None)
        self.commands += inner.commands
        self.complete = self.complete and inner.complete
        return inner.commands

    # -- the scanner ------------------------------------------------------------------

    def run(self, end: str | None) -> None:
        """Read commands up to ``end`` (``)``) or the end of the text."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            stop = _plain_end(text, self.pos)
            if stop > self.pos:
                self.add(text[self.pos : stop])
                self.pos = stop
                continue
            c = text[self.pos]
            self.pos += 1
            if c in _BLANK:
                self.end_word()
            elif c == "\n":
                self.end_command()
            elif c == "\\":
                self.backslash()
            elif c == "'":
                self.add(self.until("'"))
            elif c == '"':
                self.double_quoted()
            elif c == "$":
                self.dollar(quoted=False)
            elif c == "`":
                self.backticks(quoted=False)
            elif c == "#" and not self.started:
                newline = text.find("\n", self.pos)
                self.pos = n if newline < 0 else newline
            elif c == "&" and self.redirection_ampersand():
                self.add(c)
            elif c in ";&|":
                self.end_command()
            elif c == "(":
                self.open_paren()
            elif c == ")":
                if end == ")":
                    self.end_command()
                    return
                self.complete = False  # a ``)`` that closes nothing
                self.end_command()
            else:  # < and >: redirections stay part of the words
                self.add(c)
        if end is not None:
            self.complete = False  # ``$(`` or ``(`` never closed
        self.end_command()

    def redirection_ampersand(self) -> bool:
        """Whether the ``&`` just read belongs to a redirection: ``2>&1``, ``&>log``."""
        before = self.word[-1][-1:] if self.word else ""
        return before in ("<", ">") or self.text.startswith(">", self.pos)

    def until(self, quote: str) -> str:
        """The text up to the closing ``quote`` (single quotes: nothing is special)."""
        close = self.text.find(quote, self.pos)
        if close < 0:
            self.complete = False
            close = len(self.text)
        piece = self.text[self.pos : close]
        self.pos = close + 1
        self.started = True
        return piece

    def backslash(self) -> None:
        if self.pos >= len(self.text):
            self.add("\\")
            return
        c = self.text[self.pos]
        self.pos += 1
        if c != "\n":  # backslash-newline joins the lines
            self.add(c)

    def double_quoted(self) -> None:
        text, n = self.text, len(self.text)
        self.started = True
        while self.pos < n:
            c = text[self.pos]
            self.pos += 1
            if c == '"':
                return
            if c == "\\" and self.pos < n and text[self.pos] in '$`"\\\n':
                if text[self.pos] != "\n":
                    self.add(text[self.pos])
                self.pos += 1
            elif c == "$":
                self.dollar(quoted=True)
            elif c == "`":
                self.backticks(quoted=True)
            else:
                self.add(c)
        self.complete = False

    def dollar(self, *, quoted: bool) -> None:
        text, pos = self.text, self.pos
        nxt = text[pos : pos + 1]
        put: Callable[[str], None] = self.add if quoted else self.add_unquoted
        if nxt == "(":
            self.pos += 1
            self.substitution(quoted=quoted)
        elif nxt == "{":
            close = text.find("}", pos)
            name = text[pos + 1 : close] if close > 0 else ""
            if close > 0 and _name_end(name, 0) == len(name) > 0 and name in self.variables:
                self.pos = close + 1
                put(self.variables[name])
            else:
                self.add("$")
        elif nxt == "'" and not quoted:
            self.pos += 1
            self.add(_ansi_c(self.until("'")))
        elif nxt == '"' and not quoted:
            self.pos += 1
            self.double_quoted()
        else:
            stop = _name_end(text, pos)
            found = text[pos:stop]
            if found and found in self.variables:
                self.pos = stop
                put(self.variables[found])
            else:
                self.add("$")

    def inner(self) -> list[list[str]]:
        """Read the commands up to the ``)`` that closes the one just read."""
        if self.depth >= MAX_DEPTH:  # too deep to follow: the caller searches the text
            self.complete = False
            self.pos = len(self.text)
            return []
        inner = _Line(self.text, self.variables, self.depth + 1)
        inner.pos = self.pos
        inner.run(")")
        self.pos = inner.pos
        self.commands += inner.commands
        self.complete = self.complete and inner.complete
        return inner.commands

    def substitution(self, *, quoted: bool, opener: str = "$(") -> None:
        """Read ``$( … )``'s commands; add the word it stands for."""
        start = self.pos
        commands = self.inner()
        self.put(commands, opener + self.text[start : self.pos], quoted=quoted)

    def put(self, commands: list[list[str]], source: str, *, quoted: bool) -> None:
        """Add a substitution's word: a plain echo's output (split unless quoted), else its text."""
        output = _output(commands)
        if output is None:
            self.add(source)
        elif quoted:
            self.add(output)
        else:
            self.add_unquoted(output)

    def backticks(self, *, quoted: bool) -> None:
        """Read a backtick substitution's commands; add the word it stands for."""
        text, n = self.text, len(self.text)
        body: list[str] = []
        while self.pos < n and text[self.pos] != "`":
            c = text[self.pos]
            if c == "\\" and self.pos + 1 < n and text[self.pos + 1] in "$`\\":
                self.pos += 1
                c = text[self.pos]
            body.append(c)
            self.pos += 1
        if self.pos >= n:
            self.complete = False
        self.pos += 1
        self.started = True
        source = "".join(body)
        self.put(self.nested(source), f"`{source}`", quoted=quoted)

    def open_paren(self) -> None:
        if len(self.word) == 1 and self.word[0] in ("<", ">"):
            opener = self.word[0] + "("
            self.word = []
            self.substitution(quoted=True, opener=opener)  # process substitution: a file name
            return
        self.end_command()  # a subshell, a function's ``()``, an array's ``=(``
        self.inner()


def _output(commands: list[list[str]]) -> str | None:
    """What a substitution stands for when its body is a plain echo; None: unknown."""
    if len(commands) == 1 and commands[0][0] in _ECHOES:
        args = [w for w in commands[0][1:] if w not in ("-n", "-e", "-E")]
        if commands[0][0] == "echo" or (len(args) == 1 and "%" not in args[0]):
            return " ".join(args)
    return None


def _ansi_c(body: str) -> str:
    """The text of ``$'…'``: the common backslash escapes decoded."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[nxt])
            i += 2
        elif nxt == "x":
            digits = _hex_run(body, i + 2, 2)
            out.append(chr(int(digits, 16)) if digits else "\\x")
            i += 2 + len(digits)
        elif nxt in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8)))
            i = j
        else:  # an escape bash does not know stays as written
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


_ANSI_SIMPLE = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _hex_run(text: str, start: int, most: int) -> str:
    end = start
    while end < len(text) and end < start + most and text[end] in "0123456789abcdefABCDEF":
        end += 1
    return text[start:end]


def _plain_end(text: str, pos: int) -> int:
    """Where the run of ordinary characters starting at ``pos`` ends."""
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in _SPECIAL or c.isspace():
            break
        pos += 1
    return pos


def _name_end(text: str, pos: int) -> int:
    """Where the shell variable name starting at ``pos`` ends (``pos``: there is none)."""
    n = len(text)
    if pos >= n or text[pos] not in _NAME_START:
        return pos
    pos += 1
    while pos < n and text[pos] in _NAME_REST:
        pos += 1
    return pos


def _assigned(word: str) -> str | None:
    """The variable ``word`` assigns (``NAME=value``), or None."""
    end = _name_end(word, 0)
    return word[:end] if end and word[end : end + 1] == "=" else None


def command_index(words: list[str]) -> int:
    """Where the command name is in ``words``: after assignments and wrappers (``sudo -u x``)."""
    i, n = 0, len(words)
    while i < n and _assigned(words[i]) is not None:
        i += 1
    while i < n:
        name = words[i].rsplit("/", 1)[-1]
        takes = _WRAPPERS.get(name)
        if takes is None:
            return i
        i += 1
        while i < n and (words[i].startswith("-") or (name == "env" and "=" in words[i])):
            i += 2 if words[i] in takes else 1
        i += _WRAPPER_ARGS.get(name, 0)
        if i < n and words[i] == "--":
            i += 1
    return min(i, n)


def _shell_bodies(words: list[str]) -> list[str]:
    """The command strings given to a shell with ``-c`` anywhere in ``words``."""
    bodies: list[str] = []
    for i, word in enumerate(words):
        if word.rsplit("/", 1)[-1] not in SHELLS:
            continue
        flagged = False
        for arg in words[i + 1 :]:
            if arg.startswith(("-", "+")) and not arg.startswith("--"):
                flagged = flagged or "c" in arg[1:]
                continue
            if flagged:
                bodies.append(arg)
            break
    return bodies


def split_commands(text: str) -> tuple[list[list[str]], bool]:
    """The simple commands ``text`` runs (each a list of words) and whether it was read whole.

    Not complete: the text is longer than :data:`MAX_CHARS` (then nothing is
    read), nests deeper than :data:`MAX_DEPTH`, or leaves a quote or a
    parenthesis open.
    """
    if len(text) > MAX_CHARS:
        return [], False
    line = _Line(text, {}, 0)
    line.run(None)
    return line.commands, line.complete
