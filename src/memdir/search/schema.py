"""The catalog database: its tables, their schema version, and the connection to it.

One SQLite file (:data:`CATALOG_NAME`) in WAL mode holds the documents (``docs``),
their analysed text in two FTS5 tables (``fts``, and ``ctx`` for a turn's
neighbours' text, scored apart: see :mod:`memdir.search.engine`), the vectors and
their change log (:data:`~memdir.search.vectors.vector_table.VECTOR_TABLES`) and the
source files they came from. :func:`open_index_db` opens a project's catalog,
creating the tables in one transaction or refusing a file of another
:data:`SCHEMA_VERSION` (the catalog is derived: its keeper rebuilds it);
:func:`connect` opens any database (``":memory:"`` too) with the same settings; the
vector index's file lies beside it (:func:`vector_path`).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memdir.search.vectors.vector_table import VECTOR_TABLES
from memdir.utils.sqlite_open import open_database

__all__ = [
    "CATALOG_NAME",
    "KINDS",
    "SCHEMA_VERSION",
    "connect",
    "create_tables",
    "open_index_db",
    "remake_text_tables",
    "vector_path",
]

# 3: memories in Claude Code's shape (``metadata.type``, ``modified``) are read typed;
# a catalog built before holds them untyped, so it is rebuilt.
# 4: each turn's neighbours' text in an FTS table of its own (scored on its own length).
# 5: irregular forms indexed as their base word ("went" as "go", search/irregular.py).
# 6: each document's name as written (a turn's speaker), embedded before its text.
# 7: a memory's name field holds the words of its file's name only where the name lacks them;
# the ctx table's vocabulary (its idf, length_norm.py).
SCHEMA_VERSION = 7
CATALOG_NAME = "catalog.sqlite3"
KINDS = ("memory", "log", "notes", "transcript")


# Trigger: FTS5 ships a Porter stemmer. Why ours: measured equal on LoCoMo (72.5 vs 72.4
# turn recall@10), and stemming in Python gives feedback, name matching and snippets the
# very terms the index holds. Outcome: FTS5 sees pre-stemmed terms through unicode61.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, source INTEGER, kind TEXT NOT NULL,
    title TEXT NOT NULL, text TEXT NOT NULL, date TEXT, scope TEXT, type TEXT,
    grp TEXT, seq INTEGER, meta TEXT, name TEXT);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE INDEX IF NOT EXISTS docs_grp ON docs(grp, seq);
CREATE INDEX IF NOT EXISTS docs_filter ON docs(kind, scope, type, date, id);
{fts};
{ctx};
CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(fts, 'row');
CREATE VIRTUAL TABLE IF NOT EXISTS ctxvocab USING fts5vocab(ctx, 'row');
{vectors};
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    mtime_ns INTEGER, size INTEGER, hash TEXT);
CREATE INDEX IF NOT EXISTS sources_mtime ON sources(mtime_ns);
"""


# Trigger: FTS5's bm25() normalises a row by its whole length, every column together.
# Why: a short turn indexed beside its two long neighbours' text was scored as a long
# document, whatever weight the context column had. Outcome: the neighbours' text is
# a table of its own, scored and normalised on its own, and added by weight.
_FTS = """CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    name, description, body, dates, tokenize = 'unicode61 remove_diacritics 2')"""
_CTX = """CREATE VIRTUAL TABLE IF NOT EXISTS ctx USING fts5(
    body, context, dates, tokenize = 'unicode61 remove_diacritics 2')"""
_SCHEMA = _SCHEMA.format(fts=_FTS, ctx=_CTX, vectors=";\n".join(VECTOR_TABLES))


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection to the database at ``path`` (``":memory:"``: one in memory), autocommit."""
    if str(path) == ":memory:":
        return sqlite3.connect(":memory:", isolation_level=None)
    return open_database(path, timeout=30.0, setup=_prepare)


def _prepare(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    # A large transaction (a build) grows the WAL: it is cut back to this
    # size when it is next reset, instead of keeping that disk space.
    conn.execute(f"PRAGMA journal_size_limit = {_WAL_LIMIT}")


_WAL_LIMIT = 1 << 20


def create_tables(conn: sqlite3.Connection) -> None:
    """Create whatever tables of the schema ``conn``'s database lacks."""
    conn.executescript(_SCHEMA)


def remake_text_tables(conn: sqlite3.Connection) -> None:
    """Drop the two FTS5 tables and create them empty (in the caller's transaction).

    Deleting FTS5 rows one by one reads and tokenises each again: dropping is quicker.
    """
    conn.execute("DROP TABLE IF EXISTS fts")
    conn.execute("DROP TABLE IF EXISTS ctx")
    conn.execute(_FTS)
    conn.execute(_CTX)


def vector_path(path: Path | str) -> Path | None:
    """The vector index's file beside the database at ``path`` (None: kept in memory).

    In memory too where ``pread`` is missing (Windows): the file is read with it.
    """
    if str(path) in (":memory:", "") or not hasattr(os, "pread"):
        return None
    return Path(path).with_suffix(".vectors")


def open_index_db(path: Path) -> sqlite3.Connection:
    """Connect, and make sure the file is an index of this schema version (else DatabaseError)."""
    conn = connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if has_tables:
                raise sqlite3.DatabaseError(f"catalog schema {version}, expected {SCHEMA_VERSION}")
            # One transaction: a process killed while creating the catalog (a server
            # stopped as it starts) leaves no tables without their version.
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;"
            )
        conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone()  # readable, without a count
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn
