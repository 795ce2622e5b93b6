"""The Memdir facade: one object that opens a project's memory.

``Memdir.open(project=".")`` is a composition root: it reads the settings,
works out the project's layout, claims the project folder, creates the
memory directories (so agents never spend a turn on ``mkdir``), and wires the
private and team stores. Everything else in memdir receives what it needs
from here.

The model verbs (:meth:`Memdir.extract`, :meth:`Memdir.consolidate`,
:meth:`Memdir.host`, :meth:`Memdir.notes`) are thin: each hands this object (a
:class:`~memdir.history.project.ProjectMemory`) and the caller's provider to
the agent that does the work, so a library user needs one object and the
agents never import the facade. The provider is always the caller's: memdir
never picks a model behind a library call.

The verbs are written in groups by capability (:mod:`memdir.facade`: search,
history, forgetting, the model verbs), which :class:`Memdir` inherits; this module
opens the project and holds the verbs that compose the rest (prompt, recall,
manifest, logs, private sync).
"""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memdir.config import Settings, load_settings
from memdir.errors import StorageError
from memdir.facade.forgetting import ForgetVerbs
from memdir.facade.guarded import guarded
from memdir.facade.history_verbs import HistoryVerbs
from memdir.facade.model_verbs import ModelVerbs
from memdir.storage.failures import translated
from memdir.storage.journal import JOURNAL_NAME, journal_or_warning
from memdir.storage.paths import ROOT_RECORD, Layout, make_layout
from memdir.storage.store import WriteGuard

# The layers above storage load on first use: `import memdir` and every CLI
# start stay free of the catalog, the model layer and numpy.
if TYPE_CHECKING:
    from memdir.recall.drift import DriftChecker
    from memdir.recall.manifest import Manifest
    from memdir.recall.prompt import PromptMode, PromptTools
    from memdir.recall.relevant import RecallResult, Selector
    from memdir.search.catalog import Catalog
    from memdir.search.vectors.embeddings import Embedder
    from memdir.sync.run import PrivateInit, PrivateStatus, PrivateSyncReport

__all__ = ["Memdir"]


class Memdir(ModelVerbs, HistoryVerbs, ForgetVerbs):
    """A project's memory, and every verb memdir has for it.

    The stores and routing verbs (``write``, ``get``, ``list``, ``delete``)
    come from :class:`~memdir.history.project.ProjectMemory`; this class adds
    what composes the layers above storage: prompt, recall, search, logs,
    extraction, consolidation and the in-process host (their groups in
    :mod:`memdir.facade`).
    """

    def _after_init(self) -> None:
        super()._after_init()
        self._drift_checker: DriftChecker | None = None
        # One open catalog per thread (SQLite connections stay in their thread).
        self._catalogs: dict[int, Catalog] = {}
        self._search_embedder: Embedder | None = None  # made at the first hybrid search
        self._embedding: threading.Thread | None = None  # embed_in_background's
        self._embedding_stop = threading.Event()  # set: that thread stops after its batch

    @classmethod
    def open(
        cls,
        project: str | Path = ".",
        *,
        home: str | Path | None = None,
        profile: str | None = None,
        env: Mapping[str, str] | None = None,
        check_root: bool = True,
        **settings: Any,
    ) -> Memdir:
        """Open (creating its folders) the memory of the project containing ``project``.

        ``check_root=False`` opens it even when its folder's root record
        (``.memdir-root``) is damaged: for doctor, which reports and repairs it.
        A storage failure (a full disk) is a :class:`~memdir.errors.StorageError`.
        """
        env = os.environ if env is None else env
        loaded = load_settings(env, home=home, profile=profile, **settings)
        layout = make_layout(loaded.home, project, profile=loaded.profile, env=env)
        with translated(layout.project_dir):
            return cls._opened(layout, loaded, env, check_root=check_root)

    @classmethod
    def _opened(
        cls, layout: Layout, loaded: Settings, env: Mapping[str, str], *, check_root: bool
    ) -> Memdir:
        try:
            layout.claim()
        except StorageError as exc:
            # Only a damaged root record is passed over (doctor repairs it).
            if check_root or exc.path != str(layout.project_dir / ROOT_RECORD):
                raise
        memdir = cls(
            layout=layout,
            settings=loaded,
            env=env,
            team_guard=_team_guard(),
            private_guard=_private_guard(),
        )
        memdir.private.ensure()
        memdir.team.ensure()
        return memdir

    @guarded
    def prompt(
        self,
        *,
        mode: PromptMode | Literal["auto"] = "auto",
        skip_index: bool = False,
        tools: PromptTools = "files",
        extra_guidelines: Sequence[str] = (),
        today: dt.date | None = None,
        host_paths: bool = True,
    ) -> str | None:
        """The memory section of an agent's system prompt, or None when memory is off.

        ``host_paths=False`` (with ``tools='memdir'``) names no path of this machine.
        """
        if not self.enabled:
            return None
        from memdir.recall.freshness import recheck_note
        from memdir.recall.prompt import load_prompt, resolve_mode

        resolved = resolve_mode(
            mode, team_enabled=self.team_enabled, daily_log_active=self.settings.daily_log
        )
        recheck = recheck_note(
            self.layout.state_dir, now=time.time(), max_age_days=self.settings.freshness_days
        )
        return load_prompt(
            mode=resolved,
            memory_dir=self.layout.memory_dir,
            team_dir=self.layout.team_dir if resolved == "combined" else None,
            skip_index=skip_index,
            extra_guidelines=(*extra_guidelines, *self.settings.extra_guidelines),
            tools=tools,
            today=today,
            max_index_lines=self.settings.max_index_lines,
            max_index_chars=self.settings.max_index_chars,
            host_paths=host_paths,
            recheck=recheck,
        )

    @guarded
    def recall(
        self,
        query: str,
        *,
        session: str | None = None,
        selector: Selector | None = None,
        today: dt.date | None = None,
    ) -> RecallResult:
        """The few memories that may help with ``query`` (see ``memdir.recall.relevant.recall``)."""
        from memdir.recall.drift import DriftChecker
        from memdir.recall.relevant import recall

        if self._drift_checker is None:
            # One scan of the project's files per Memdir, shared by every recall.
            self._drift_checker = DriftChecker(self.layout.project_root)
        result = recall(
            self,
            query,
            session=session,
            selector=selector,
            today=today,
            enabled=self.enabled,
            checker=self._drift_checker,
            embedder=self._embedder(),
        )
        return result

    @guarded
    def manifest(self, *, query: str | None = None, limit: int | None = None) -> Manifest:
        """One line per memory: newest first, or ranked for ``query``."""
        from memdir.recall.manifest import build_manifest

        return build_manifest(self, query=query, limit=limit)

    def log(self, text: str, *, now: dt.datetime | None = None) -> Path:
        """Append a timestamped entry to today's daily log; returns the log file.

        An agent's entry (MCP's log tool) is screened first and refused when flagged
        (:func:`memdir.history.review.check_log_entry`)."""
        from memdir.history.provenance import current
        from memdir.history.review import check_log_entry
        from memdir.storage.dailylog import append_log

        check_log_entry(self.settings, current(), text)
        with translated(self.layout.logs_dir):
            path = append_log(self.layout.logs_dir, text, now=now, lock_dir=self.layout.lock_dir)
        journal_or_warning(self.layout.state_dir / JOURNAL_NAME, [path])  # derived: never fails
        return path

    @guarded
    def init_private_sync(self, remote: str, *, allow_secrets: bool = False) -> PrivateInit:
        """Sync private memory through ``remote``, a git repository only its owner uses.

        The first machine publishes its memories, the next ones merge theirs with
        what is there; a remote that is the team's is refused (:mod:`memdir.sync`).
        """
        from memdir.sync.run import init_private

        return init_private(self, remote, allow_secrets=allow_secrets)

    @guarded
    def sync_private(self, *, allow_secrets: bool = False) -> PrivateSyncReport:
        """Commit private memory here, merge the remote's, push; conflicts become copies.

        A likely secret stops the sync before anything leaves the machine unless
        ``allow_secrets`` (for this sync only).
        """
        from memdir.sync.run import sync_private

        return sync_private(self, allow_secrets=allow_secrets)

    @guarded
    def private_sync_status(self, *, fetch: bool = True) -> PrivateStatus:
        """Where private memory stands against its remote: ahead, behind, copies to settle."""
        from memdir.sync.run import private_status

        return private_status(self, fetch=fetch)


def _team_guard() -> WriteGuard:
    def refuse_secrets(text: str, file: str) -> list[str]:
        from memdir.team.secrets import ensure_no_secrets

        ensure_no_secrets(text, path=f"team/{file}")
        return []

    return refuse_secrets


def _private_guard() -> WriteGuard:
    def warn_on_secrets(text: str, file: str) -> list[str]:
        from memdir.team.secrets import scan_text

        return [
            f"{file}:{f.line}: likely {f.label} ({f.rule_id}); private memory stays on this "
            "machine, but a secret is better kept in a secret manager"
            for f in scan_text(text)
        ]

    return warn_on_secrets
