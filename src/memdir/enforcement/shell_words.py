"""The simple commands a shell command line runs, as words: what Bash rules are matched on.

A Bash rule must see the command the shell runs, not the characters the agent
typed: ``npm  install``, ``n\\pm install``, ``'npm' install``, a line
continuation, ``$(echo npm) install``, ``N=npm; $N install``, ``{npm,x}
install`` and ``npm$IFS'install'`` all run ``npm install``.
:func:`split_commands` reads a command line once, left to right (linear time,
no backtracking), the way a POSIX shell (bash) reads it (a word's quotes and
expansions: :mod:`memdir.enforcement.shell_reading`):

- quotes (``'…'``, ``"…"``, ``$'…'``) and backslashes are removed, a
  backslash-newline joins two lines, runs of blanks separate words;
- ``;``, ``&``, ``&&``, ``||``, ``|``, ``|&``, newlines and parentheses end a
  simple command; ``#`` at the start of a word starts a comment;
- a redirection is one word, its operator and target joined (``>out``,
  ``2>&1``, ``<<EOF``: :class:`~memdir.enforcement.shell_forms.Redirection`),
  also written against a word (``npm install>/dev/null``);
- a here-document's body and a here-string are the command's input, not
  commands: they are read as commands only when a shell reads them
  (``bash <<EOF``, ``sh -s <<< '…'``), and an unquoted here-document's
  ``$( )`` and backticks run, so they are read;
- brace expansion (``{a,b}``, ``n{p,}m``, ``{1..3}``) gives the words bash
  gives; each choice of one alternative per brace is read as a command too,
  so ``{npm,x} install`` is also ``npm install``;
- ``$( )``, backticks, ``<( )`` and ``>( )`` are read as command lines of
  their own; a substitution of what a command prints, when known (a plain
  ``echo``/``printf``, ``cat`` of a here-document), stands for that text
  (``$(echo npm)`` is the word ``npm``), any other keeps its text; a pipe from
  such a command into a shell is read as the shell's commands;
- ``$IFS`` is a blank; a variable assigned earlier on the line (``N=npm;``,
  ``export N=npm``) is expanded, split into words when unquoted;
  ``${X:-word}`` (and ``-``, ``=``, ``:=``, ``+``, ``:+``) of a variable
  not assigned on the line stands for its word; ``${X:1:2}`` slices a known
  value; ``$1``..``$9``, ``$@`` and ``$*`` are empty (``npm$IFS$9install``);
  any other ``$NAME`` stays as written;
- the shell code a command runs as a string (``bash -c``, ``env -S``,
  ``script -c``, ``flock -c``, ``trap``, ``eval``, ...) and the commands
  ``find -exec`` runs are read as well (:mod:`memdir.enforcement.shell_forms`).

A word keeps the blanks it holds inside quotes, so a rule can tell a
command from an argument that is data (``git commit -m 'npm install'`` is
one word after ``-m``). Nesting is read to :data:`MAX_DEPTH` levels and the
input to :data:`MAX_CHARS` characters; past either, or when quotes,
parentheses or a here-document do not close, the result says it is not
``complete`` and the caller must not trust it alone. Not a shell: no
globbing, no arithmetic, no aliases or functions resolved, no string a
command computes at run time.
"""

from __future__ import annotations

from memdir.enforcement.shell_expansions import UNMARK_BRACES, brace_variants, brace_words
from memdir.enforcement.shell_forms import (
    SHELLS,
    Redirection,
    assigned,
    code_strings,
    command_chain,
    command_index,
    exec_commands,
    known_output,
    reads_stdin,
)
from memdir.enforcement.shell_reading import MAX_DEPTH, WORD_PARTS, WordReader

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    # (words, brace groups: (index, words), input: here-documents and strings, piped)
    Command = tuple[list[str], list[tuple[int, list[str]]], list[str] | None, bool]

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "SHELLS",
    "Redirection",
    "command_index",
    "commands_with_input",
    "split_commands",
]

MAX_CHARS = 100_000  # a longer command line is not read (about 0.2 s of dense syntax): ask

# The characters that mean something to the shell (blanks aside): a run of any others is
# one piece of a word. Scanned without ``re``: the pre-tool-use hook reads commands before
# it has loaded any regex engine (importing ``re`` costs that hook a third of its time).
_SPECIAL = frozenset("'\"\\$`;&|()<>#")
_BLANK = " \t\r\f\v"
_DECLARE = frozenset({"export", "declare", "typeset", "local", "readonly"})
_SEPARATORS = frozenset(";&|()<>")


class _Line(WordReader):
    """One pass over a command line, collecting its simple commands (a word's own
    characters are read by :class:`~memdir.enforcement.shell_reading.WordReader`)."""

    def __init__(self, text: str, variables: dict[str, str], depth: int) -> None:
        super().__init__(text, variables, depth)
        self.words: list[str] = []
        self.groups: list[tuple[int, list[str]]] = []  # the command's brace words
        self.redirect: str | None = None  # the operator the current word is the target of
        self.stdin: list[str] | None = None  # the command's here-documents and -strings
        self.piped = False  # the command reads the output of the one before
        self.heredocs: list[tuple[str, bool, bool, list[str]]] = []  # bodies still to read
        self.waiting: list[Command] = []  # commands read before their here-documents
        self.closing: str | None = None  # ``)`` when this line is the inside of ``$( )``

    # -- words and commands -----------------------------------------------------------

    def end_word(self) -> None:
        if self.redirect is not None:
            self.end_redirect()
            return
        if not self.started:
            return
        word = "".join(self.word)
        self.word = []
        self.started = False
        if not self.braced:
            self.words.append(word)
            return
        self.braced = False
        expanded = [word.translate(UNMARK_BRACES)] if self.assignment(word) else brace_words(word)
        if len(expanded) > 1:
            self.groups.append((len(self.words), expanded))
        self.words += expanded

    def assignment(self, word: str) -> bool:
        """Whether ``word`` assigns a variable (no brace expansion there)."""
        return assigned(word) is not None and all(assigned(w) for w in self.words)

    def end_redirect(self) -> None:
        operator, self.redirect = self.redirect or "", None
        target = "".join(self.word).translate(UNMARK_BRACES) if self.braced else "".join(self.word)
        self.word = []
        self.started = self.braced = False
        self.words.append(Redirection(operator + target))
        if operator.endswith("<<<"):
            self.feed(target + "\n")

    def feed(self, text: str) -> list[str]:
        """Add ``text`` to the command's input (here-documents and -strings, in order)."""
        if self.stdin is None:
            self.stdin = []
        self.stdin.append(text)
        return self.stdin

    def end_command(self, *, pipe: bool = False) -> None:
        self.end_word()
        words, self.words = self.words, []
        groups, self.groups = self.groups, []
        stdin, self.stdin = self.stdin, None
        piped, self.piped = self.piped, pipe
        if not words:
            return
        if self.heredocs or self.waiting:  # its input is still to be read
            self.waiting.append((words, groups, stdin, piped))
            return
        self.finish(words, groups, stdin, piped)

    def finish(
        self,
        words: list[str],
        groups: list[tuple[int, list[str]]],
        stdin: list[str] | None,
        piped: bool,
    ) -> None:
        """Record one simple command of this line (and its brace variants)."""
        given = "".join(stdin) if stdin is not None else (self.output if piped else None)
        self.top += 1
        self.output = self.record(words, given)
        for variant in brace_variants(words, groups):
            self.record(variant, given)

    def record(self, words: list[str], stdin: str | None) -> str | None:
        """Record a command, remember its assignments, read the shell code it runs;
        returns what it prints, when known."""
        self.commands.append(words)
        self.inputs.append(stdin)
        chain = command_chain(words)
        at = min(chain[-1], len(words))
        if at == len(words) or words[at] in _DECLARE:
            for word in words[at + 1 :] if at < len(words) else words:
                self.assign(word)
        if at < len(words) and words[at] == "eval":
            self.nested(" ".join(w for w in words[at + 1 :] if not isinstance(w, Redirection)))
        for code in code_strings(words, chain):
            self.nested(code)
        for command in exec_commands(words, at):
            self.record(command, None)
        if stdin is not None and reads_stdin(words, at):
            self.nested(stdin)
        return known_output(words, at, stdin)

    def assign(self, word: str) -> None:
        name = assigned(word)
        if name is not None:
            self.variables[name] = word[len(name) + 1 :]

    # -- the scanner ------------------------------------------------------------------

    def run(self, end: str | None) -> None:
        """Read commands up to ``end`` (``)``) or the end of the text."""
        text, n = self.text, len(self.text)
        self.closing = end
        while self.pos < n:
            stop = _plain_end(text, self.pos)
            if stop > self.pos:
                self.plain(text[self.pos : stop])
                self.pos = stop
                continue
            c = text[self.pos]
            self.pos += 1
            if c in _BLANK:
                self.end_word()
            elif c == "\n":
                self.newline()
            elif c in WORD_PARTS:
                self.word_part(c, quoted=False)
            elif c == "#" and not self.started and self.redirect is None:
                newline = text.find("\n", self.pos)
                self.pos = n if newline < 0 else newline
            elif c in "<>" or (c == "&" and text.startswith(">", self.pos)):
                self.redirection(c)
            elif c in ";&|":
                self.separator(c)
            elif c == "(":
                self.open_paren()
            elif c == ")":
                if end == ")":
                    self.end_line()
                    return
                self.complete = False  # a ``)`` that closes nothing
                self.end_command()
            else:
                self.add(c)
        if end is not None:
            self.complete = False  # ``$(`` or ``(`` never closed
        self.end_line()

    def separator(self, c: str) -> None:
        """``;``, ``&``, ``&&``, ``|``, ``||``, ``|&``: the command ends."""
        text = self.text
        if c == "|" and text.startswith("|", self.pos):
            self.pos += 1
            self.end_command()
        elif c == "|":
            if text.startswith("&", self.pos):
                self.pos += 1
            self.end_command(pipe=True)
        else:
            self.end_command()

    def newline(self) -> None:
        self.end_command()
        if self.heredocs:
            self.read_bodies()
        if self.waiting:
            self.flush()

    def end_line(self) -> None:
        self.end_command()
        if self.heredocs:  # a here-document whose body never came
            for *_, holder in self.heredocs:
                holder.append("")
            self.heredocs = []
            self.complete = False
        if self.waiting:
            self.flush()

    def flush(self) -> None:
        waiting, self.waiting = self.waiting, []
        for command in waiting:
            self.finish(*command)

    def open_paren(self) -> None:
        self.end_command()  # a subshell, a function's ``()``, an array's ``=(``
        self.inner()

    # -- redirections and here-documents -----------------------------------------------

    def redirection(self, c: str) -> None:
        """A redirection operator (``>``, ``2>&1``, ``&>>``, ``<<EOF``, ``<<<``); the word
        that follows is its target."""
        text, n = self.text, len(self.text)
        if c != "&" and text.startswith("(", self.pos):  # <( ) and >( ): a file's name
            self.pos += 1
            self.substitution(quoted=True, opener=c + "(", file=True)
            return
        fd = ""
        if self.started and self.redirect is None and not self.braced:
            digits = "".join(self.word)
            if digits.isdigit() and digits.isascii():
                fd, self.word, self.started = digits, [], False
        self.end_word()
        op = c
        if c == "&":
            op, self.pos = "&>", self.pos + 1
            if text.startswith(">", self.pos):
                op, self.pos = "&>>", self.pos + 1
        elif text.startswith("<<", self.pos) and c == "<":
            op, self.pos = "<<<", self.pos + 2
        elif text.startswith("<", self.pos) and c == "<":
            self.pos += 1
            strip = text.startswith("-", self.pos)
            self.pos += strip
            self.heredoc(fd, strip=strip)
            return
        elif self.pos < n and text[self.pos] in (">|&" if c == ">" else "&>"):
            op, self.pos = c + text[self.pos], self.pos + 1
        self.skip_blanks()
        self.redirect = fd + op

    def skip_blanks(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] in _BLANK:
            self.pos += 1

    def heredoc(self, fd: str, *, strip: bool) -> None:
        """``<<WORD`` (``<<-WORD``: leading tabs stripped): the body follows the line."""
        self.skip_blanks()
        delimiter, quoted = self.delimiter()
        holder = self.feed("")
        self.heredocs.append((delimiter, strip, quoted, holder))
        self.words.append(Redirection(f"{fd}{'<<-' if strip else '<<'}{delimiter}"))

    def delimiter(self) -> tuple[str, bool]:
        """A here-document's delimiter word as written, its quotes removed; and whether
        any part of it was quoted (then the body is not expanded)."""
        text, n = self.text, len(self.text)
        out: list[str] = []
        quoted = False
        while self.pos < n:
            c = text[self.pos]
            if c.isspace() or c in _SEPARATORS:
                break
            self.pos += 1
            if c in "'\"":
                out.append(self.until(c))
                self.started = False  # until() marks a word: this is none
                quoted = True
            elif c == "\\" and self.pos < n:
                out.append(text[self.pos])
                self.pos += 1
                quoted = True
            else:
                out.append(c)
        return "".join(out), quoted

    def read_bodies(self) -> None:
        """The bodies of the here-documents opened on the line just ended, in order."""
        text, n = self.text, len(self.text)
        for delimiter, strip, quoted, holder in self.heredocs:
            lines: list[str] = []
            closed = False
            while self.pos < n and not closed:
                end = text.find("\n", self.pos)
                stop = n if end < 0 else end
                line = text[self.pos : stop]
                line = line.lstrip("\t") if strip else line
                self.pos = stop if end < 0 else end + 1
                closed = self.closes(line, delimiter, stop)
                if not closed:
                    lines.append(line)
            self.complete = self.complete and closed
            body = "".join(line + "\n" for line in lines)
            if not quoted and ("$" in body or "`" in body or "\\" in body):
                body = self.expanded(body)
            holder.append(body)
        self.heredocs = []

    def closes(self, line: str, delimiter: str, stop: int) -> bool:
        """Whether ``line`` ends a here-document: its delimiter alone, or (inside
        ``$( )``) the delimiter right before the ``)`` (read next)."""
        if line == delimiter:
            return True
        if self.closing == ")" and line.startswith(delimiter):
            after = line[len(delimiter) :]
            if after.lstrip(_BLANK).startswith(")"):
                self.pos = stop - len(after)
                return True
        return False

    def expanded(self, body: str) -> str:
        """An unquoted here-document's body, its expansions made (and their commands read)."""
        if self.depth >= MAX_DEPTH:
            self.complete = False
            return body
        line = _Line(body, self.variables, self.depth + 1)
        line.quoted(None)
        self.merge(line)
        return "".join(line.word)


def _plain_end(text: str, pos: int) -> int:
    """Where the run of ordinary characters starting at ``pos`` ends."""
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in _SPECIAL or c.isspace():
            break
        pos += 1
    return pos


def split_commands(text: str) -> tuple[list[list[str]], bool]:
    """The simple commands ``text`` runs (each a list of words) and whether it was read whole.

    Not complete: the text is longer than :data:`MAX_CHARS` (then nothing is
    read), nests deeper than :data:`MAX_DEPTH`, or leaves a quote, a
    parenthesis or a here-document open.
    """
    if len(text) > MAX_CHARS:
        return [], False
    line = _Line(text, {"IFS": " \t\n"}, 0)
    line.run(None)
    return line.commands, line.complete


def commands_with_input(text: str) -> tuple[list[tuple[list[str], str | None]], bool]:
    """:func:`split_commands`, each command with its input when known: its
    here-documents and -strings, or what a known command before it printed into
    its pipe (``echo x | tee f``)."""
    if len(text) > MAX_CHARS:
        return [], False
    line = _Line(text, {"IFS": " \t\n"}, 0)
    line.run(None)
    return list(zip(line.commands, line.inputs, strict=True)), line.complete
