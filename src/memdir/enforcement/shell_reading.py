"""The characters of one shell word: quotes, escapes, parameters and substitutions.

The command-line scanner (:mod:`memdir.enforcement.shell_words`) splits a
line into words and simple commands; a word's own characters are read here,
by :class:`WordReader`, the scanner's base class: ``'…'``, ``"…"``, ``$'…'``
and backslashes removed, ``$NAME`` and ``${…}`` expanded from the variables
assigned on the line (see the scanner's docstring for which), and ``$( )`` and
backticks read as command lines of their own, by a new scanner one level
deeper (never past :data:`MAX_DEPTH`), standing for what they print when that
is known. The reader builds the current word (``word``, ``started``,
``braced``); where a word ends (:meth:`WordReader.end_word`) and how a command
line is read (:meth:`WordReader.run`) are the scanner's. Like the scanner,
nothing here loads ``re`` or ``typing`` at run time: the pre-tool-use hook
reads commands with it.
"""

from __future__ import annotations

from memdir.enforcement.shell_expansions import MARK_BRACES, parameter_end, sliced, unescape
from memdir.enforcement.shell_forms import name_end

TYPE_CHECKING = False  # the pre-tool-use hook loads this module: no typing at run time
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["MAX_DEPTH", "WORD_PARTS", "WordReader"]

MAX_DEPTH = 8  # nested substitutions and shell bodies read; deeper ones are not trusted

WORD_PARTS = frozenset("\\'\"$`")  # an escape, the quotes, the expansions: parts of a word
_DEFAULTS = frozenset("-=+?")  # ${X-w} ${X=w} ${X+w} ${X?w}, and with a colon
_NO_ARGUMENTS = frozenset("123456789@*")  # $1 .. $9, $@, $*: the arguments


class WordReader:
    """The characters of a command line's words; its commands are read by a subclass."""

    def __init__(self, text: str, variables: dict[str, str], depth: int) -> None:
        self.text = text
        self.pos = 0
        self.variables = variables
        self.depth = depth
        self.commands: list[list[str]] = []
        self.inputs: list[str | None] = []  # each command's input, when known
        self.complete = True
        self.word: list[str] = []
        self.started = False  # the current word exists, even if empty (``''``)
        self.braced = False  # the current word holds marked braces
        self.output: str | None = None  # what this line's last command printed, if known
        self.top = 0  # this line's own commands (not those nested in them)

    # -- what the command-line scanner provides ---------------------------------------

    def end_word(self) -> None:
        """End the current word (an unquoted expansion's blanks separate words)."""
        raise NotImplementedError

    def run(self, end: str | None) -> None:
        """Read commands up to ``end`` (``)``) or the end of the text."""
        raise NotImplementedError

    # -- the current word -------------------------------------------------------------

    def add(self, piece: str) -> None:
        self.word.append(piece)
        self.started = True

    def add_unquoted(self, value: str) -> None:
        """An unquoted expansion: split into words at blanks and newlines."""
        parts = value.split()
        if not parts:
            if value:
                self.end_word()
            return
        if value[:1].isspace():
            self.end_word()
        for i, part in enumerate(parts):
            if i:
                self.end_word()
            self.add(part)
        if value[-1:].isspace():
            self.end_word()

    def plain(self, piece: str) -> None:
        """A run of ordinary characters; its braces and commas marked for expansion."""
        if "{" in piece or (self.braced and ("}" in piece or "," in piece)):
            piece = piece.translate(MARK_BRACES)
            self.braced = True
        self.add(piece)

    def word_part(self, c: str, *, quoted: bool) -> None:
        """Read what ``c`` (one of :data:`WORD_PARTS`, just passed) opens. ``quoted``: an
        expansion's value stays one piece, blanks kept (the word of ``${X:-word}``),
        instead of being split into words."""
        if c == "\\":
            self.backslash()
        elif c == "'":
            self.add(self.until("'"))
        elif c == '"':
            self.quoted('"')
        elif c == "$":
            self.dollar(quoted=quoted)
        else:
            self.backticks(quoted=quoted)

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

    def quoted(self, closing: str | None) -> None:
        """A double-quoted string up to ``closing`` (None: a here-document's body, to
        its end, where ``"`` is an ordinary character)."""
        text, n = self.text, len(self.text)
        escapable = '$`"\\\n' if closing else "$`\\\n"
        self.started = True
        while self.pos < n:
            c = text[self.pos]
            self.pos += 1
            if c == closing:
                return
            if c == "\\" and self.pos < n and text[self.pos] in escapable:
                if text[self.pos] != "\n":
                    self.add(text[self.pos])
                self.pos += 1
            elif c == "$":
                self.dollar(quoted=True)
            elif c == "`":
                self.backticks(quoted=True)
            else:
                self.add(c)
        if closing is not None:
            self.complete = False

    # -- expansions -------------------------------------------------------------------

    def dollar(self, *, quoted: bool) -> None:
        text, pos = self.text, self.pos
        nxt = text[pos : pos + 1]
        put: Callable[[str], None] = self.add if quoted else self.add_unquoted
        if nxt == "(":
            self.pos += 1
            self.substitution(quoted=quoted)
        elif nxt == "{":
            close = parameter_end(text, pos)
            if close < 0:
                self.add("$")
                return
            inside = text[pos + 1 : close]
            self.pos = close + 1
            value = self.parameter(inside)
            if value is None:
                self.add("${" + inside + "}")
            else:
                put(value)
        elif nxt == "'" and not quoted:
            self.pos += 1
            self.add(unescape(self.until("'")))
        elif nxt == '"' and not quoted:
            self.pos += 1
            self.quoted('"')
        elif nxt and nxt in _NO_ARGUMENTS:
            self.pos += 1  # empty: an agent's command line is run with no arguments
        else:
            stop = name_end(text, pos)
            found = text[pos:stop]
            if found and found in self.variables:
                self.pos = stop
                put(self.variables[found])
            else:
                self.add("$")

    def parameter(self, inside: str) -> str | None:
        """What ``${inside}`` stands for (see the module docstring); None: unknown."""
        end = name_end(inside, 0)
        name, rest = inside[:end], inside[end:]
        known = self.variables.get(name) if name else None
        if not name or not rest:
            if not name:
                self.ignored(inside)
            return known
        colon = rest[0] == ":"
        op = rest[1:2] if colon else rest[:1]
        if op not in _DEFAULTS:
            if colon and known is not None:
                return sliced(known, rest[1:])
            self.ignored(rest)
            return None
        word = rest[2:] if colon else rest[1:]
        is_set = known is not None and (known != "" or not colon)
        if op == "?":
            self.word_value(word)  # its substitutions run when the message is printed
            return known if is_set else None
        if op == "+":  # the word when set; a variable from elsewhere may be: the word
            return "" if known is not None and not is_set else self.word_value(word)
        if is_set:
            return known
        value = self.word_value(word)
        if op == "=":
            self.variables[name] = value
        return value

    def ignored(self, text: str) -> None:
        """An expansion not followed (a pattern, a length): its substitutions still run."""
        if "$" in text or "`" in text:
            self.word_value(text)

    def word_value(self, text: str) -> str:
        """The word of ``${X:-word}``: quotes removed, expansions made, blanks kept."""
        if self.depth >= MAX_DEPTH:
            self.complete = False
            return text
        line = type(self)(text, self.variables, self.depth + 1)
        n = len(text)
        while line.pos < n:
            c = text[line.pos]
            line.pos += 1
            if c in WORD_PARTS:
                line.word_part(c, quoted=True)
            else:
                line.add(c)
        self.merge(line)
        return "".join(line.word)

    # -- command lines inside a word ---------------------------------------------------

    def nested(self, text: str) -> WordReader | None:
        """``text`` read as a command line of its own, its commands added to ours."""
        if self.depth >= MAX_DEPTH:
            self.complete = False
            return None
        line = type(self)(text, self.variables, self.depth + 1)
        line.run(None)
        self.merge(line)
        return line

    def inner(self) -> WordReader | None:
        """Read the commands up to the ``)`` that closes the one just read."""
        if self.depth >= MAX_DEPTH:  # too deep to follow: the caller searches the text
            self.complete = False
            self.pos = len(self.text)
            return None
        line = type(self)(self.text, self.variables, self.depth + 1)
        line.pos = self.pos
        line.run(")")
        self.pos = line.pos
        self.merge(line)
        return line

    def merge(self, line: WordReader) -> None:
        self.commands += line.commands
        self.inputs += line.inputs
        self.complete = self.complete and line.complete

    def substitution(self, *, quoted: bool, opener: str = "$(", file: bool = False) -> None:
        """Read ``$( … )``'s commands; add the word it stands for (``file``: a process
        substitution, which stands for a file name)."""
        start = self.pos
        line = self.inner()
        source = opener + self.text[start : self.pos]
        self.put(None if file else line, source, quoted=quoted)

    def put(self, line: WordReader | None, source: str, *, quoted: bool) -> None:
        """Add a substitution's word: the output of its one command when known (split
        unless quoted), else its text."""
        output = line.output if line is not None and line.top == 1 else None
        if output is None:
            self.add(source)
            return
        output = output.rstrip("\n")  # as the shell drops the output's last newlines
        if quoted:
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
