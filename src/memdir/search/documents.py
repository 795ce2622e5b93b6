"""What a file is indexed as: the documents of a memory, a daily log, session notes, a transcript.

Each source file of the catalog becomes documents (:class:`~memdir.search.engine.Document`):
a memory one (its name, description and body as weighted fields, the manifest's facts
in ``meta``), a daily log one per entry, session notes one, a transcript one per turn
(its speaker as the name, its neighbours' text as context). Reading, hashing and
analysing a file is a pure function of it (:func:`read_source`), so a large build
runs it in forked worker processes (:func:`read_all`) while the catalog writes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from memdir.errors import MemdirError
from memdir.model import Scope
from memdir.search import terms as textproc
from memdir.search.document import Document, Prepared, prepare
from memdir.storage import sidecar
from memdir.storage.dailylog import read_log
from memdir.storage.paths import Layout, under

__all__ = ["Job", "Read", "file_documents", "memory_document", "read_all", "read_source", "under"]

# What a build reads in each file: (layout, path, kind, mtime, hash already indexed or None).
Job = tuple[Layout, str, str, float, str | None]
# The file's hash and prepared documents (None: the hash is the one indexed), or None: unreadable.
Read = tuple[str, list[Prepared] | None] | None
_PARALLEL_FROM = 2000  # files to read from which a build spreads the reading over processes


def read_source(job: Job) -> Read:
    """Read, hash and analyse one file: a pure function of it, so it can run in a worker."""
    layout, path, kind, mtime, indexed = job
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    import hashlib  # only builds and catch-ups that read a file hash it

    digest = hashlib.sha256(data).hexdigest()
    if digest == indexed:
        return digest, None
    return digest, [prepare(doc) for doc in file_documents(layout, Path(path), kind, data, mtime)]


@contextlib.contextmanager
def read_all(jobs: list[Job]) -> Iterator[Iterator[Read]]:
    """:func:`read_source` of every job, in order: in worker processes for a large build.

    Reading and analysing files is most of a build and needs no database, so
    with several CPUs, no other thread running (a fork copies only this one)
    and many files, forked workers do it while this process writes.
    """
    workers = _workers(len(jobs))
    if workers < 2:
        yield map(read_source, jobs)
        return
    import multiprocessing  # only large builds use it; searches never pay its import

    # Trigger: Ctrl-C reaches every process of the terminal's group. Why: a worker that
    # takes it prints a traceback, and the pool forks a new one in its place while the
    # parent unwinds. Outcome: workers ignore it; the parent's interrupt ends the pool.
    # The interrupt is blocked while the pool forks, so that a worker forked but not yet
    # at its first line (a busy machine) holds it pending rather than dying of it; the
    # pool's own threads keep the blocked mask, and so do the workers they fork later.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_deaf)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    with pool:
        yield pool.imap(read_source, jobs, chunksize=64)


def _deaf() -> None:
    """A worker's start: interrupts are the parent's to handle (one pending is dropped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _workers(jobs: int) -> int:
    """How many worker processes read ``jobs`` files (0: read them here)."""
    if jobs < _PARALLEL_FROM or threading.active_count() > 1:
        return 0
    if not sys.platform.startswith("linux"):
        return 0  # elsewhere fork is unsafe (macOS) or missing (Windows)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cpus or 1, 4)


def file_documents(
    layout: Layout, path: Path, kind: str, data: bytes, mtime: float
) -> list[Document]:
    """The documents of one source file of ``kind``."""
    text = data.decode("utf-8", "replace")
    if kind == "memory":
        return [memory_document(path, _memory_dir(layout), text, mtime)]
    if kind == "log":
        return _log_docs(path, layout.memory_dir)
    if kind == "notes":
        rel = path.relative_to(layout.project_dir).as_posix()
        title = f"session notes {path.parent.parent.name}"
        return [
            Document(
                id=rel,
                kind="notes",
                title=title,
                fields={"body": text},
                date=dt.datetime.fromtimestamp(mtime),
            )
        ]
    return _transcript_docs(path)


@functools.lru_cache(maxsize=64)
def _memory_dir(layout: Layout) -> Path:
    """``layout.memory_dir``, which joins paths on each call: once per file in a build."""
    return layout.memory_dir


def memory_document(path: Path, memory_dir: Path, text: str, mtime: float) -> Document:
    """A memory file as a document: ranked fields, and the manifest's facts in ``meta``.

    ``meta`` holds the description, ``verified``/``updated`` dates (ISO) and,
    for a file whose frontmatter does not parse, the ``problem``; so a manifest
    can list memories from the index without opening their files.
    """
    rel = _relative(path, memory_dir)
    scope = Scope.TEAM if rel.startswith("team/") else Scope.PRIVATE
    stem = os.path.splitext(os.path.basename(rel))[0]
    stem_words = stem.replace("_", " ").replace("-", " ")
    try:
        memory = sidecar.load_memory(text, path=path)
    except MemdirError as exc:
        # A file that does not parse is still searchable as plain text.
        return Document(
            id=rel,
            kind="memory",
            title=stem,
            fields={"name": stem_words, "body": text},
            scope=scope,
            date=dt.datetime.fromtimestamp(mtime),
            meta={"problem": f"frontmatter does not parse: {exc.message}"},
        )
    updated = memory.last_updated  # ``updated``, or Claude Code's ``modified``
    when = updated or memory.created or dt.datetime.fromtimestamp(mtime)
    return Document(
        id=rel,
        kind="memory",
        title=memory.name or stem,
        fields={
            "name": _name_field(memory.name, stem_words),
            "description": memory.description,
            "body": memory.body,
        },
        text=f"{memory.description}\n{memory.body}",
        date=when,
        scope=scope,
        type=memory.type,
        meta={
            "description": memory.description,
            "verified": memory.verified.isoformat() if memory.verified else None,
            "updated": updated.isoformat() if updated else None,
        },
    )


def _name_field(name: str, stem_words: str) -> str:
    """A memory's name, then the words of its file's name that the name lacks.

    A file is usually named after its memory: its words again would count the
    name twice (at the name field's weight), and a memory outrank a shorter
    document, a log entry, that holds more of the query's words.
    """
    held = set(textproc.terms(name))
    extra = [word for word in stem_words.split() if not set(textproc.terms(word)) <= held]
    return " ".join([name, *extra])


def _relative(path: Path, memory_dir: Path) -> str:
    """``path`` relative to ``memory_dir``, as text (pathlib's parsing is a build's hot spot)."""
    full, root = str(path), str(memory_dir)
    if under(full, root) and "/./" not in full and "/../" not in full:
        return full[len(root) + 1 :]
    return path.relative_to(memory_dir).as_posix()


def _log_docs(path: Path, memory_dir: Path) -> list[Document]:
    rel = path.relative_to(memory_dir).as_posix()
    docs = []
    for entry in read_log(path):
        when = entry.at or dt.datetime.combine(entry.day, dt.time())
        docs.append(
            Document(
                id=f"{rel}#L{entry.line}",
                kind="log",
                title=f"log {when:%Y-%m-%d %H:%M}",
                fields={"body": entry.text},
                date=when,
                scope=Scope.PRIVATE,
                group=rel,
                seq=entry.line,
            )
        )
    return docs


def _transcript_docs(path: Path) -> list[Document]:
    from memdir.errors import TranscriptError
    from memdir.transcripts.reader import read_transcript

    try:
        transcript = read_transcript(path)
    except TranscriptError:
        return []
    turns = [t for t in transcript.turns if not t.is_sidechain and t.text.strip()]
    docs = []
    for i, turn in enumerate(turns):
        near = [turns[j].text for j in (i - 1, i + 1) if 0 <= j < len(turns)]
        docs.append(
            Document(
                id=f"{path}#{turn.index}",
                kind="transcript",
                title=f"{turn.speaker or turn.role} · {path.stem} #{turn.index}",
                # The speaker comes from the record, never from the text: a turn
                # starting "Note:" or "Error:" names no one.
                fields={"name": turn.speaker or "", "body": turn.text, "context": " ".join(near)},
                date=turn.timestamp,
                group=str(path),
                seq=i,
            )
        )
    return docs
