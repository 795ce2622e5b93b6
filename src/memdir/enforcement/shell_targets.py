"""The files one simple command writes, creates or removes, as its words name them.

:mod:`memdir.enforcement.shell_words` reads a command line into simple
commands; :func:`changed_files` reads one of them for the files it changes:

- an output redirection's target (``>``, ``>>``, ``>|``, ``&>``, ``&>>``,
  ``2>``, ``>&file``: :func:`output_target`), whatever the command;
- ``tee``'s operands; ``rm``, ``unlink``, ``shred``, ``truncate`` and
  ``touch``'s operands (a deletion changes a folder as much as a write);
- a copy's destination (``cp``, ``mv``, ``install``, ``ln``, ``rsync``, ``scp``): the file named,
  or the source's name inside the folder named (``-t DIR``, several sources, a
  trailing ``/``, or a destination the caller knows to be a folder); ``mv``'s
  sources too, which are gone after it;
- the files ``sed``, ``perl`` or ``ruby`` edit in place (``-i``, ``-i.bak``,
  ``--in-place``), their script skipped;
- ``dd of=FILE``, ``curl -o FILE``, ``wget -O FILE``, the file ``patch`` names.

:func:`copy_parts` and :func:`filled_files` give the parts apart, for the
pre-tool-use hook: a copy within memory brings nothing new, a deletion is no
write to judge, and a file filled from elsewhere has text nobody knows yet.

Paths are returned as written (``~``, variables, a relative path: the
caller resolves them, knowing where the command ran). Not seen: what a
program writes by its own code (``python -c``, a script, ``git``), a path a
glob or a command's output computes, a recursive copy's files. Like the
scanner, nothing here loads ``re`` or ``typing`` at run time, so that the
pre-tool-use hook, which reads commands before it has loaded either, can use it.
"""

from __future__ import annotations

from memdir.enforcement.shell_forms import Redirection, command_index

TYPE_CHECKING = False  # no typing at run time (see above)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "COPIERS",
    "changed_files",
    "copy_parts",
    "filled_files",
    "operands",
    "output_target",
    "redirected",
]

# Commands whose operands are the files they change, and their options whose value is
# the next word.
_CHANGERS: dict[str, frozenset[str]] = {
    "tee": frozenset(),
    "rm": frozenset(),
    "unlink": frozenset(),
    "shred": frozenset({"-n", "-s", "--iterations", "--size"}),
    "truncate": frozenset({"-s", "-r", "--size", "--reference"}),
    "touch": frozenset({"-d", "-t", "-r", "--date", "--reference"}),
}
_COPY_VALUED = frozenset({"-t", "-S", "--target-directory", "--suffix"})
_COPIERS: dict[str, frozenset[str]] = {
    "cp": _COPY_VALUED,
    "mv": _COPY_VALUED,
    "ln": _COPY_VALUED,
    "install": _COPY_VALUED | {"-m", "-o", "-g", "--mode", "--owner", "--group"},
    "rsync": frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "-T"}),
    "scp": frozenset({"-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J"}),
}
COPIERS = frozenset(_COPIERS)
_PATCH_VALUED = frozenset(
    {
        "-i",
        "--input",
        "-o",
        "--output",
        "-d",
        "--directory",
        "-r",
        "--reject-file",
        "-z",
        "-B",
        "-Y",
        "-F",
        "-D",
        "-V",
    }
)
# In-place editors: the options that give the script (then every operand is a file),
# and the other options whose value is the next word.
_EDITORS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "sed": (frozenset({"-e", "-f", "--expression", "--file"}), frozenset({"-l"})),
    "perl": (frozenset({"-e", "-E"}), frozenset({"-I", "-M", "-m", "-x"})),
    "ruby": (frozenset({"-e"}), frozenset({"-I", "-r", "-C", "-E", "-x"})),
}
_DOWNLOADERS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
# Output operators, the longest first, and whether each appends.
_OUTPUTS = ((">>", True), (">|", False), ("&>>", True), ("&>", False), (">", False))


def output_target(word: str) -> str | None:
    """The file a redirection word writes (``>f``, ``2>>f``, ``&>f``, ``>&f``), or None:
    it reads, or copies a descriptor (``2>&1``, ``>&2``)."""
    found = redirected(word)
    return None if found is None else found[0]


def redirected(word: str) -> tuple[str, bool, bool] | None:
    """(the file, whether it is appended to, whether it gets the command's output) of a
    redirection word that writes one, or None. What another descriptor (``2>``) writes
    is not the command's output."""
    if not isinstance(word, Redirection):
        return None
    op = word.lstrip("0123456789")
    output = word[: len(word) - len(op)] in ("", "1")
    if op.startswith(">&"):  # ``>&2`` copies a descriptor; ``>&file`` is ``&>file``
        target = op[2:]
        return None if not target or target.isdigit() or target == "-" else (target, False, output)
    for prefix, append in _OUTPUTS:
        if op.startswith(prefix):
            target = op[len(prefix) :]
            return (target, append, output) if target else None
    return None


def changed_files(words: list[str], folder: Callable[[str], bool]) -> list[str]:
    """The files the simple command ``words`` writes, creates or removes, as written;
    ``folder`` tells whether a copy's destination, named alone, is a folder (then the
    file copied there keeps its name)."""
    found = [t for t in map(output_target, words) if t is not None]
    at = command_index(words)
    if at == len(words):
        return found
    name, args = words[at].rsplit("/", 1)[-1], words[at + 1 :]
    if name in _CHANGERS:
        found += operands(args, _CHANGERS[name])
    elif name in _COPIERS:
        sources, landed = copy_parts(name, args, folder)
        found += landed + (sources if name == "mv" else [])
    else:
        found += filled_files(name, args)
    return found


def filled_files(name: str, args: list[str]) -> list[str]:
    """The files command ``name`` fills with text from elsewhere, as written: an
    in-place edit's, ``dd of=``, a download's output, the file ``patch`` patches."""
    if name in _EDITORS:
        return _edited(args, *_EDITORS[name])
    if name == "dd":
        return [a[3:] for a in args if a.startswith("of=") and len(a) > 3]
    if name in _DOWNLOADERS:
        return _option_values(args, *_DOWNLOADERS[name])
    if name == "patch":
        return operands(args, _PATCH_VALUED)[:1] + _option_values(args, "-o", "--output")
    return []


def copy_parts(
    name: str, args: list[str], folder: Callable[[str], bool]
) -> tuple[list[str], list[str]]:
    """(the sources, where they land) of a copy, move or link (``name`` one of
    :data:`COPIERS`); ``folder`` tells whether a destination named alone is a folder."""
    takes = _COPIERS[name]
    named = operands(args, takes)
    into = _option_values(args, "-t", "--target-directory")
    if into:
        sources, target = named, into[-1]
    elif name == "ln" and len(named) == 1:
        sources, target = named, "./"  # ``ln -s x``: a link named like x, here
    elif len(named) >= 2:
        sources, target = named[:-1], named[-1]
    else:
        return named, []
    # ``-T``: the destination is the file itself, a folder of that name or not.
    whole = len(named) > 1 and not into and ("-T" in args or "--no-target-directory" in args)
    inside = bool(into) or len(sources) > 1 or target.endswith("/") or folder(target)
    if whole or not inside:
        landed = [target]
    else:
        landed = [_joined(target, source.rstrip("/").rsplit("/", 1)[-1]) for source in sources]
    return sources, landed


def _joined(folder: str, name: str) -> str:
    return folder + name if folder.endswith("/") else f"{folder}/{name}"


def _edited(args: list[str], scripts: frozenset[str], takes: frozenset[str]) -> list[str]:
    """The files an in-place edit changes (none when it does not edit in place). The
    in-place option takes no word after it: what its cluster holds past ``i`` is the
    backup's suffix (``-i.bak``; ``-pie`` is ``-p -i`` with the suffix ``e``)."""
    valued = scripts | takes
    rest = [word for word in args if not _in_place(word, valued)]
    if len(rest) == len(args):
        return []
    named = operands(rest, valued)
    given = any(_gives(word, scripts) for word in _options(rest))
    return named if given else named[1:]  # the first operand is the script


def _in_place(word: str, valued: frozenset[str]) -> bool:
    """Whether a word is an option that asks for editing in place (``-i``, ``-pi``,
    ``-i.bak``, ``--in-place``); a letter of a cluster's value (``-Mstrict``) is none."""
    if isinstance(word, Redirection) or not word.startswith("-"):
        return False
    if word.startswith("--"):
        return word == "--in-place" or word.startswith("--in-place=")
    for letter in word[1:]:
        if letter == "i":
            return True
        if "-" + letter in valued:
            return False  # the rest of the cluster is this option's value
    return False


def _gives(word: str, scripts: frozenset[str]) -> bool:
    """Whether an option word gives the script (``-e``, ``-pe``, ``--expression=…``)."""
    if word.startswith("--"):
        return word.split("=", 1)[0] in scripts
    return any("-" + letter in scripts for letter in word[1:])


def _options(args: list[str]) -> list[str]:
    """The option words of ``args`` up to ``--`` (values not told apart)."""
    found: list[str] = []
    for word in args:
        if word == "--":
            break
        if not isinstance(word, Redirection) and word.startswith("-") and len(word) > 1:
            found.append(word)
    return found


def operands(args: list[str], takes: frozenset[str]) -> list[str]:
    """The words of ``args`` that are neither options, their values, nor redirections
    (options may follow operands, as GNU tools read them, up to ``--``)."""
    found: list[str] = []
    options, skip = True, False
    for word in args:
        if skip:
            skip = False
            continue
        if isinstance(word, Redirection):
            continue
        if options and word == "--":
            options = False
        elif options and word.startswith("-") and len(word) > 1:
            skip = _takes_next(word, takes)
        else:
            found.append(word)
    return found


def _takes_next(word: str, takes: frozenset[str]) -> bool:
    """Whether an option's value is the next word (``-t DIR``; in a cluster, ``-vt DIR``)."""
    if word.startswith("--"):
        return word in takes
    for at in range(1, len(word)):
        if "-" + word[at] in takes:
            return at + 1 == len(word)  # else the rest of the cluster is its value
    return False


def _option_values(args: list[str], short: str, long: str) -> list[str]:
    """The values given to ``short`` or ``long`` (``-o f``, ``-of``, ``-sSo f``,
    ``--output=f``, ``--output f``), up to ``--``."""
    found: list[str] = []
    for i, word in enumerate(args):
        if word == "--":
            break
        if isinstance(word, Redirection) or not word.startswith("-"):
            continue
        if word.startswith("--"):
            if word == long:
                found += args[i + 1 : i + 2]
            elif word.startswith(long + "="):
                found.append(word[len(long) + 1 :])
            continue
        at = word.find(short[1], 1)
        if at > 0:
            found += [word[at + 1 :]] if at + 1 < len(word) else args[i + 1 : i + 2]
    return found
