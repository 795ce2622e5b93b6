"""One project's memory as a value: its layout, settings and two stores.

:class:`ProjectMemory` is what background work (extraction, consolidation,
doctor, team sync, the hooks) is handed: the private and team stores and the
paths around them, with the few verbs that only route to a store. It builds
nothing and reads no configuration; :class:`memdir.Memdir`, the composition
root, extends it with everything that needs search, recall or a model. Each
store gets its review gate here (:func:`memdir.history.review.hold_reason`,
which screens an agent's write and holds one that re-learns a forgotten
memory: :meth:`ProjectMemory.relearns`), so the store itself knows neither
review, screening nor tombstones. Matching a tombstone by meaning needs an
embedder, which lives above this layer: :meth:`ProjectMemory.meaning` answers
None here (terms alone), and the facade answers its search embedder.
"""

from __future__ import annotations

import builtins
import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memdir.config import Settings, memory_enabled
from memdir.enforcement.rule_validation import validate_memory_rules
from memdir.errors import InvalidMemory, MemdirError, MemoryNotFound
from memdir.history.provenance import current
from memdir.history.review import hold_reason
from memdir.history.tombstones import (
    FORGOTTEN_NAME,
    PRIVATE_NAME,
    Embeds,
    Tombstone,
    TombstoneFile,
    match,
    relearn_reason,
)
from memdir.history.versions import HISTORY_NAME, History
from memdir.model import Memory, MemoryRecord, MemoryType, Scope
from memdir.storage.paths import Layout
from memdir.storage.store import MemoryStore, WriteGuard, WriteResult

__all__ = ["ProjectMemory"]


class ProjectMemory:
    """A project's memory: its layout, settings, and private and team stores."""

    def __init__(
        self,
        *,
        layout: Layout,
        settings: Settings,
        env: Mapping[str, str] | None = None,
        team_guard: WriteGuard | None = None,
        private_guard: WriteGuard | None = None,
    ) -> None:
        self.layout = layout
        self.settings = settings
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.history_db: History | None = None
        if settings.history:
            self.history_db = History(
                layout.history_dir / HISTORY_NAME,
                retention_days=settings.history_retention_days,
                trash_dir=layout.trash_dir,
            )
        # Each scope's tombstones: the private one's beside the history, the team's in
        # the team folder, where team sync carries it.
        self.forgotten: dict[Scope, TombstoneFile] = {
            Scope.PRIVATE: TombstoneFile(layout.history_dir / PRIVATE_NAME),
            Scope.TEAM: TombstoneFile(layout.team_dir / FORGOTTEN_NAME),
        }
        self.private = self._store(
            Scope.PRIVATE,
            root=layout.memory_dir,
            excluded=tuple(sorted(layout.private_excluded)),
            guard=private_guard,
        )
        self.team = self._store(Scope.TEAM, root=layout.team_dir, guard=team_guard)
        self._after_init()

    def _after_init(self) -> None:
        """The constructor's last step: a subclass sets up its own state here (the
        facade's caches), so the constructor's keywords are declared once."""

    def _store(
        self, scope: Scope, *, root: Path, guard: WriteGuard | None, excluded: tuple[str, ...] = ()
    ) -> MemoryStore:
        """One scope's store, recording into the history under its review mode and rules."""
        history = self.history_db

        def review(memory: Memory | None) -> str | None:
            return hold_reason(
                self.settings,
                scope,
                current(),
                memory,
                history=history is not None,
                forgotten=self.relearns,
            )

        return MemoryStore(
            root=root,
            scope=scope,
            settings=self.settings,
            lock_path=self.layout.lock_dir / f"{scope.value}.lock",
            trash_dir=self.layout.trash_dir,
            excluded=excluded,
            guard=guard,
            state_dir=self.layout.state_dir,
            history=history,
            review=review,
            check=validate_memory_rules,
        )

    def tombstones(self, scope: Scope | str | None = None) -> builtins.list[Tombstone]:
        """What a person forgot (``memdir forget``), private then team, oldest first."""
        scopes = [Scope(scope)] if scope is not None else [Scope.PRIVATE, Scope.TEAM]
        return [t for s in scopes for t in self.forgotten[s].read()]

    def meaning(self) -> Embeds | None:
        """The embedder a tombstone is matched by meaning with (None: by terms alone)."""
        return None

    def relearns(self, memory: Memory, *, scope: Scope | None = None) -> str | None:
        """Why ``memory`` waits for review as a forgotten memory learned again, or None.

        Either scope's tombstones count (only ``scope``'s when given): a fact the
        team forgot is not re-learned into private memory unseen, nor a private
        one into the team's.
        """
        tombstones = self.tombstones(scope)
        if not tombstones:
            return None
        try:
            found = match(tombstones, memory, embedder=self.meaning())
        except (MemdirError, OSError, ImportError, RuntimeError, ValueError):
            found = match(tombstones, memory)  # the model failed to load: by terms alone
        return relearn_reason(found) if found is not None else None

    def store(self, scope: Scope | str) -> MemoryStore:
        """The store of ``scope`` (``"private"`` or ``"team"``)."""
        try:
            scope = Scope(scope)
        except ValueError:
            raise InvalidMemory(
                f"unknown scope {scope!r}", hint="use 'private' or 'team'"
            ) from None
        return self.private if scope is Scope.PRIVATE else self.team

    def write(
        self,
        *,
        name: str,
        description: str,
        type: MemoryType | str,
        body: str = "",
        scope: Scope | str = Scope.PRIVATE,
        file: str | None = None,
        expected_version: str | None = None,
        replace: bool = False,
        **fields: Any,
    ) -> WriteResult:
        """Create or update a memory in ``scope`` (see :meth:`MemoryStore.write`).

        ``replace`` lets an explicit ``file`` that holds another memory (or an
        unparseable file) be overwritten, after a copy goes to the trash.
        """
        try:
            kind = MemoryType(type)
        except ValueError:
            raise InvalidMemory(
                f"unknown memory type {type!r}",
                hint="one of user, feedback, project, reference",
            ) from None
        _check_argument_types(
            name=name,
            description=description,
            body=body,
            file=file,
            expected_version=expected_version,
        )
        _check_field_types(fields)
        memory = Memory(name=name, description=description, type=kind, body=body, **fields)
        return self.store(scope).write(
            memory, file=file, expected_version=expected_version, replace=replace
        )

    def get(self, ref: str, *, scope: Scope | str | None = None) -> MemoryRecord:
        """A memory by file or name; without ``scope``, private first, then team."""
        if scope is not None:
            return self.store(scope).get(ref)
        found = self.private.find(ref) or self.team.find(ref)
        if found is None:
            raise self._not_found(ref)
        return found

    def _not_found(self, ref: str) -> MemoryNotFound:
        """Both scopes were searched: say so, and offer the nearest names and files."""
        import difflib

        handles: dict[str, str] = {}  # a name or file, lowered -> the file to pass on
        for record in self.list():
            file = record.file if record.scope is Scope.PRIVATE else f"{record.file} (team)"
            for key in (record.file, record.file.removesuffix(".md"), record.memory.name):
                handles.setdefault(key.lower(), file)
        near = difflib.get_close_matches(ref.lower(), list(handles), n=6, cutoff=0.6)
        files = list(dict.fromkeys(handles[key] for key in near))[:3]
        suggestion = f"; did you mean {' or '.join(files)}?" if files else ""
        return MemoryNotFound(
            f"no memory named {ref!r} in private or team memory{suggestion}",
            path=self.layout.memory_dir,
            hint="run `memdir list` to see the memories and their files",
        )

    def list(self, *, scope: Scope | str | None = None) -> builtins.list[MemoryRecord]:
        """Every memory, private then team (or of one scope)."""
        stores = [self.store(scope)] if scope is not None else [self.private, self.team]
        return [record for store in stores for record in store.list()]

    def delete(self, ref: str, *, scope: Scope | str | None = None) -> Path:
        """Move a memory to the trash; returns where it went."""
        record = self.get(ref, scope=scope)
        return self.store(record.scope).delete(record.file)

    @property
    def enabled(self) -> bool:
        """The enable chain: MEMDIR_DISABLE, then the setting, then on."""
        return memory_enabled(self.env, self.settings.enabled)

    @property
    def team_enabled(self) -> bool:
        """Team memory is on when set, else when the team folder holds memories."""
        if self.settings.team is not None:
            return self.settings.team
        return self.team.index_path.exists() or self.team.has_files()


_TEXT_FIELDS = ("source", "modified")
_OTHER_FIELDS = ("extra",)
_LIST_FIELDS = ("anchors", "supersedes")
_DATE_FIELDS = ("created", "updated", "verified", "review_after")


def _check_argument_types(**arguments: object) -> None:
    """Refuse a name, description, body, file or version that is not text."""
    for key, value in arguments.items():
        if value is None and key in ("file", "expected_version"):
            continue
        if not isinstance(value, str):
            raise InvalidMemory(
                f"{key} must be text, not {type(value).__name__}", hint=f"pass {key} as a str"
            )


def _check_field_types(fields: dict[str, Any]) -> None:
    """Refuse an unknown or wrong-typed optional field with a clear error (not a TypeError)."""
    known = (*_TEXT_FIELDS, *_LIST_FIELDS, *_DATE_FIELDS, *_OTHER_FIELDS)
    for key, value in fields.items():
        if key not in known:
            raise InvalidMemory(
                f"unknown memory field {key!r}",
                hint=f"the fields are {', '.join(sorted(known))}; put any other key in "
                f"extra={{{key!r}: ...}}",
            )
        if value is None:
            continue
        if key == "extra" and not (
            isinstance(value, dict) and all(isinstance(k, str) for k in value)
        ):
            wanted = "a dict with text keys"
        elif key in _TEXT_FIELDS and not isinstance(value, str):
            wanted = "text (a session id or transcript reference)"
        elif key in _LIST_FIELDS and not (
            isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        ):
            wanted = "a list of strings"
            if isinstance(value, list | tuple):  # say which item is not one
                at, odd = next((i, v) for i, v in enumerate(value) if not isinstance(v, str))
                raise InvalidMemory(
                    f"the field {key!r} must be {wanted}: item {at} is "
                    f"{type(odd).__name__} {odd!r}"[:200],
                    hint=f"pass {key} as {wanted}",
                )
        elif key in _DATE_FIELDS and not isinstance(value, dt.date):
            wanted = "a date (datetime.date)"
        else:
            continue
        raise InvalidMemory(
            f"the field {key!r} must be {wanted}, not {type(value).__name__}",
            hint=f"pass {key} as {wanted}",
        )
