"""The key table of MEMORY.md: in step with the index's stamp, asked once per locked section."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memdir.storage.index_keys import open_table


def _set_stamp(db: Path, stamp: str) -> None:
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('stamp', ?)", (stamp,))
    other.close()


def test_the_stamp_is_remembered_only_while_the_scope_lock_is_held(tmp_path: Path) -> None:
    db = tmp_path / "keys.sqlite"
    table = open_table(db)
    assert table is not None
    index = b"- [One](one.md) \xe2\x80\x94 d\n"
    assert table.rebuild(index, "s1") and table.in_step("s1")
    _set_stamp(db, "s2")  # another process, with no lock held here: asked again
    assert not table.in_step("s1") and table.in_step("s2")
    table.forget(held=True)
    assert table.in_step("s2")
    _set_stamp(db, "s3")  # cannot happen while the lock is held: the answer is kept
    assert table.in_step("s2")
    table.forget(held=False)
    assert not table.in_step("s2") and table.in_step("s3")


def test_a_change_made_under_the_lock_is_the_stamp_it_remembers(tmp_path: Path) -> None:
    db = tmp_path / "keys.sqlite"
    table = open_table(db)
    assert table is not None
    assert table.rebuild(b"", "s1")
    table.forget(held=True)
    assert table.append("one.md", "- [One](one.md) \u2014 d", "s2")
    assert table.in_step("s2") and not table.in_step("s1")
    assert table.files_titled("one", "s2") == ["one.md"]
    assert table.lines_of("one.md", "s2") == ["- [One](one.md) \u2014 d"]
    table.forget(held=False)
    assert table.files_titled("one", "s2") == ["one.md"]  # asked, and still in step
