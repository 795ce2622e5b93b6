"""Recall: the few memories worth putting in front of an agent for one request.

:func:`recall` runs in five steps. It skips queries of a single word (too
vague to choose on) and sessions whose byte budget is spent. It scans the
memories (from the search catalog's metadata when there is one, else the
folders: see :mod:`memdir.recall.listing`) and leaves out those this session
has already seen *before* ranking, so they cannot crowd out the rest. It
ranks the others against the query with the one search engine into a pool of
candidates, the matches first and the newest others after them, and hands
the pool to a :class:`Selector` that names at most ``recall_max_memories``;
memories the chosen ones link to (``[[name]]``) fill what the limit leaves
(:mod:`memdir.recall.links`).
:class:`LexicalSelector` takes the matches in rank order; a model-based
selector implements the same Protocol and sees names, descriptions, types
and ages, never bodies.

Each chosen memory becomes a ``<memory …>`` block (:mod:`memdir.recall.blocks`,
which also holds the items and the result; their names are re-exported here):
its header, notes and body, capped at a line boundary. Blocks stop where the
session budget would be exceeded. What a session has seen and spent is a small
JSON file under its session folder, updated under a file lock, so separate
processes that share a session id never surface one memory twice.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time

from memdir.errors import MemdirError
from memdir.history.used_log import note_recall
from memdir.recall.age import memory_age
from memdir.recall.blocks import (
    Candidate,
    CappedBody,
    RecallItem,
    RecallResult,
    SkipReason,
    cap_body,
    fence_safe,
    frame_length,
    render_block,
)
from memdir.recall.context_budget import text_length
from memdir.recall.freshness import record_recall
from memdir.recall.listing import over_memories, rank_pool
from memdir.recall.meaning import MeaningFloor, choose
from memdir.recall.recall_state import (
    STATE_NAME,
    SessionState,
    load_state,
    read_session_state,
    save_state,
    session_lock,
    session_state_path,
)
from memdir.search.relevance import RelevanceFloor
from memdir.search.terms import bounded_query
from memdir.utils.records import record

# Not typing.TYPE_CHECKING: recall runs before every prompt, in a fresh process, and
# most prompts recall nothing: typing, the drift checker and the memory codec are
# loaded only for the memories actually shown.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Protocol

    from memdir.config import Settings
    from memdir.model import Memory
    from memdir.recall.drift import DriftChecker
    from memdir.recall.listing import CatalogChoice, Memories
    from memdir.recall.memory_files import ManifestEntry, MemdirLike
    from memdir.search.vectors.embeddings import Embedder
else:
    Protocol = object

__all__ = [
    "STATE_NAME",
    "Candidate",
    "CappedBody",
    "LexicalSelector",
    "RecallItem",
    "RecallResult",
    "Selector",
    "SessionState",
    "SkipReason",
    "cap_body",
    "fence_safe",
    "read_session_state",
    "recall",
    "render_block",
    "session_state_path",
]

# A block cut below this many body bytes to fit the budget says too little to be worth it.
_MIN_BODY_BYTES = 256


_REASONS = {
    SkipReason.DISABLED: "memory is disabled",
    SkipReason.SINGLE_WORD: "the query is a single word: too vague to choose memories on",
    SkipReason.BUDGET_SPENT: "this session's recall budget is spent",
    SkipReason.NO_MEMORIES: "there are no memories this session has not seen yet",
    SkipReason.NO_MATCH: "no memory matches the query",
    SkipReason.NONE_SELECTED: "no memory was selected as helpful for the query",
    SkipReason.UNREADABLE: "the memories that match the query cannot be read (broken "
    "frontmatter, or removed): `memdir doctor` names them",
}


# --- selection ------------------------------------------------------------------------


class Selector(Protocol):
    """Chooses at most ``limit`` candidates that will help with ``query``.

    Candidates come best-ranked first. Return their refs, most useful first;
    an empty list is a fine answer. Unknown refs are ignored.
    """

    def select(self, query: str, candidates: Sequence[Candidate], limit: int) -> list[str]: ...


class LexicalSelector:
    """Without a model: the candidates that matched the query, in rank order.

    Only matches that pass ``floor`` are candidates at all (see
    :mod:`memdir.search.relevance`: a match on generic or common words, or on
    a small share of what the query asks, is no match), so a prompt nothing
    in the store is about gets nothing. A match scoring under ``min_share`` of
    the best one is a passing mention (one common query word in a long body)
    and is left out: an agent is better served by two memories that fit than
    by five that merely share a word.
    """

    def __init__(self, *, min_share: float = 0.3, floor: RelevanceFloor | None = None) -> None:
        self.min_share = min_share
        self.floor = floor or RelevanceFloor()

    def select(self, query: str, candidates: Sequence[Candidate], limit: int) -> list[str]:
        """The first ``limit`` matches scoring at least ``min_share`` of the best."""
        best = max((c.score for c in candidates), default=0.0)
        if best <= 0:
            return []
        floor = best * self.min_share
        return [c.ref for c in candidates if c.score > 0 and c.score >= floor][:limit]


# --- recall ---------------------------------------------------------------------------


@record
class _Context:
    memdir: MemdirLike
    query: str
    selector: Selector
    today: dt.date
    catalog: CatalogChoice
    checker: DriftChecker | None  # None: one over the project root, made when needed
    session: str | None
    enabled: bool
    pool: int
    max_chars: int | None
    embedder: Embedder | None  # None: words only
    meaning: MeaningFloor


def _pool_size(selector: Selector, settings: Settings) -> int:
    """How many candidates to rank and list for ``selector``.

    The lexical selector takes the best matches in rank order, so the top
    ``recall_max_memories`` hold every memory it could choose: a bigger pool
    would only cost entries built and dropped. Other selectors (a model) see
    the full manifest-sized pool.
    """
    if type(selector) is LexicalSelector:
        return settings.recall_max_memories
    return settings.manifest_max_entries


def recall(
    memdir: MemdirLike,
    query: str,
    *,
    session: str | None = None,
    selector: Selector | None = None,
    today: dt.date | None = None,
    catalog: CatalogChoice = "auto",
    checker: DriftChecker | None = None,
    enabled: bool | None = None,
    max_chars: int | None = None,
    embedder: Embedder | None = None,
    meaning: MeaningFloor | None = None,
) -> RecallResult:
    """The memories that may help with ``query`` (at most ``recall_max_memories``).

    With ``session``, memories that session already saw are left out and the
    bytes returned count against its budget (``recall_session_budget``); the
    record persists across processes. ``selector`` defaults to
    :class:`LexicalSelector`; ``catalog`` to the project's catalog when one
    exists; ``checker`` to a drift checker over the project root. ``enabled``
    is the outcome of the enable chain, which composition roots work out
    (:func:`memdir.recall.prompt.memory_enabled`); ``None`` reads ``settings.enabled``.
    ``max_chars`` bounds what :meth:`RecallResult.render` returns (UTF-16 code units,
    as a hook's context is measured): blocks give up body lines, then whole blocks,
    and only what fits counts as seen. Nothing found is a result with ``skipped`` set,
    not an exception. With ``embedder`` the memories are also judged by meaning
    (:mod:`memdir.recall.meaning`, under ``meaning`` or its default floor): a memory
    that says what the prompt asks in other words is recalled, and one that only
    shares a word with it may not be.
    """
    chooser = selector or LexicalSelector()
    ctx = _Context(
        memdir=memdir,
        query=bounded_query(query),  # a huge prompt is ranked on its two ends
        selector=chooser,
        today=today or dt.date.today(),
        catalog=catalog,
        checker=checker,
        session=session,
        enabled=memdir.settings.enabled is not False if enabled is None else enabled,
        pool=_pool_size(chooser, memdir.settings),
        max_chars=max_chars,
        embedder=embedder,
        meaning=meaning or MeaningFloor(),
    )
    if session is None:
        result, _ = _recall(ctx, SessionState())
    elif not ctx.enabled or len(query.split()) < 2:
        result, _ = _recall(ctx, load_state(session_state_path(memdir.layout, session)))
    else:
        path = session_state_path(memdir.layout, session)
        with session_lock(path.with_name("recall.lock"), timeout=memdir.settings.lock_timeout):
            before = load_state(path)
            result, state = _recall(ctx, before)
            # A full disk: what was recalled still reaches the agent; this session may
            # be shown it again, as one without saved state would.
            if result.items:
                with contextlib.suppress(OSError):
                    save_state(path, state, since=before)
    with contextlib.suppress(OSError):  # the freshness record is derived state
        record_recall(memdir.layout.state_dir, result.items, now=time.time())
    note_recall(memdir.layout, session, result)  # the session's use log (memdir used)
    return result


def _skip(ctx: _Context, reason: SkipReason, state: SessionState) -> RecallResult:
    budget = ctx.memdir.settings.recall_session_budget
    return RecallResult(
        query=ctx.query,
        items=(),
        skipped=reason,
        reason=_REASONS[reason],
        budget_used=state.bytes_used,
        budget_left=max(budget - state.bytes_used, 0),
        session=ctx.session,
    )


def _recall(ctx: _Context, state: SessionState) -> tuple[RecallResult, SessionState]:
    settings = ctx.memdir.settings
    if not ctx.enabled:
        return _skip(ctx, SkipReason.DISABLED, state), state
    if len(ctx.query.split()) < 2:
        return _skip(ctx, SkipReason.SINGLE_WORD, state), state
    remaining = settings.recall_session_budget - state.bytes_used
    if remaining <= 0:
        return _skip(ctx, SkipReason.BUDGET_SPENT, state), state
    seen = frozenset(state.surfaced)
    candidates = over_memories(
        ctx.memdir, ctx.catalog, lambda m: _candidates(ctx, m, seen), embedder=ctx.embedder
    )
    if not candidates:
        return _skip(ctx, SkipReason.NO_MEMORIES, state), state
    chosen = _validated(
        ctx.selector.select(ctx.query, candidates, settings.recall_max_memories),
        candidates,
        settings.recall_max_memories,
    )
    if not chosen:
        matched = any(c.score > 0 for c in candidates)
        return _skip(
            ctx, SkipReason.NONE_SELECTED if matched else SkipReason.NO_MATCH, state
        ), state
    chosen += _linked(ctx, chosen, seen)
    items, readable = _items(ctx, chosen, remaining)
    if not items:
        # Nothing to show: because none of them could be read, or because what is
        # left of the budget holds none of them (then it is spent for this session).
        why = SkipReason.BUDGET_SPENT if readable else SkipReason.UNREADABLE
        return _skip(ctx, why, state), state
    spent = state.bytes_used + sum(item.bytes for item in items)
    state = SessionState(surfaced=(*state.surfaced, *(i.ref for i in items)), bytes_used=spent)
    result = RecallResult(
        query=ctx.query,
        items=tuple(items),
        skipped=None,
        reason=None,
        budget_used=spent,
        budget_left=max(settings.recall_session_budget - spent, 0),
        session=ctx.session,
    )
    return result, state


def _candidates(ctx: _Context, memories: Memories, seen: frozenset[str]) -> list[Candidate]:
    """The pool a selector chooses from: matches best first, then the newest others.

    What the session has seen is left out before ranking, so it cannot crowd out the rest.
    A match the selector's ``floor`` (else the default one) does not admit counts as none;
    with an embedding model, matches are judged by meaning as well (:func:`_by_meaning`).
    """
    floor = getattr(ctx.selector, "floor", None)
    floor = floor if isinstance(floor, RelevanceFloor) else RelevanceFloor()
    pool = rank_pool(memories, ctx.query, limit=ctx.pool, exclude=seen, floor=floor)
    if ctx.embedder is not None:
        pool = _by_meaning(ctx, memories, pool, seen)
    return [_candidate(entry, score, ctx.today) for entry, score in pool]


def _by_meaning(
    ctx: _Context,
    memories: Memories,
    pool: list[tuple[ManifestEntry, float]],
    seen: frozenset[str],
) -> list[tuple[ManifestEntry, float]]:
    """``pool`` judged again by meaning: the memories near the query, then the newest others.

    Trigger: an index that keeps no vectors (or a model that fails). Why: recall must
    answer on every prompt. Outcome: the pool the words alone chose.
    """
    assert ctx.embedder is not None
    budget = ctx.memdir.settings.recall_embed_budget
    try:
        cosines = memories.near(ctx.query, ctx.embedder, exclude=seen, budget=budget)
    except (MemdirError, OSError, ValueError, RuntimeError):
        cosines = None
    if cosines is None:
        return pool
    words = {entry.ref: entry for entry, score in pool if score > 0}
    chosen = choose(cosines, words, ctx.meaning)[: ctx.pool]
    found = {
        entry.ref: entry for entry in memories.entries([r for r, _ in chosen if r not in words])
    }
    found.update(words)
    near = [(found[ref], score) for ref, score in chosen if ref in found]
    taken = seen | {entry.ref for entry, _ in near}
    others = memories.newest(ctx.pool - len(near), exclude=taken)
    return [*near, *((entry, 0.0) for entry in others)]


def _candidate(entry: ManifestEntry, score: float, today: dt.date) -> Candidate:
    age = memory_age(today=today, mtime=entry.mtime, verified=entry.verified, updated=entry.updated)
    return Candidate(entry=entry, age=age, score=score)


def _linked(ctx: _Context, chosen: Sequence[Candidate], seen: frozenset[str]) -> list[Candidate]:
    """The memories the chosen ones link to, where the limit leaves room."""
    from memdir.recall.links import linked_entries

    room = ctx.memdir.settings.recall_max_memories - len(chosen)
    entries = [c.entry for c in chosen]
    linked = linked_entries(ctx.memdir, ctx.catalog, entries, exclude=seen, room=room)
    return [_candidate(entry, 0.0, ctx.today) for entry in linked]


def _validated(refs: Sequence[str], candidates: Sequence[Candidate], limit: int) -> list[Candidate]:
    by_ref = {c.ref: c for c in candidates}
    return [by_ref[r] for r in dict.fromkeys(refs) if r in by_ref][:limit]


def _items(
    ctx: _Context, chosen: Sequence[Candidate], remaining: int
) -> tuple[list[RecallItem], int]:
    """The blocks that fit, and how many of the chosen memories could be read."""
    items: list[RecallItem] = []
    readable = 0
    # What one answer may hold (a hook's context is cut past its limit, and what is cut
    # never reaches the model): the frame of the rendered text, and each block's separator.
    room = None if ctx.max_chars is None else ctx.max_chars - frame_length()
    checker = ctx.checker  # None: one over the project root, made for the first memory read
    for candidate in chosen:
        memory = _read_memory(candidate.entry.path)
        if memory is None:
            continue  # unreadable or removed since it was listed: nothing to show
        readable += 1
        separator = 2 if items else 0  # the blank line between two blocks
        if checker is None:
            from memdir.recall.drift import DriftChecker

            checker = DriftChecker(ctx.memdir.layout.project_root)
        item = _item(
            ctx,
            checker,
            candidate,
            memory,
            remaining,
            None if room is None else room - separator,
            # Past the first block, one that would be cut to fit this answer waits for the
            # next one whole (it is not counted as seen), rather than arriving in part.
            cut_to_fit=not items,
        )
        if item is None:
            break  # the budget cannot hold another block
        items.append(item)
        remaining -= item.bytes
        if room is not None:
            room -= text_length(item.text) + separator
    return items, readable


def _read_memory(path: Path) -> Memory | None:
    from memdir.storage import sidecar

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        return sidecar.load_memory(text, path=path)
    except (MemdirError, OSError):
        return None


def _item(
    ctx: _Context,
    checker: DriftChecker,
    candidate: Candidate,
    memory: Memory,
    remaining: int,
    room: int | None,
    *,
    cut_to_fit: bool = True,
) -> RecallItem | None:
    settings = ctx.memdir.settings
    entry = candidate.entry
    drift = tuple(checker.check_memory(memory))
    changed: tuple[str, ...] = ()
    if memory.anchors:
        day_after = candidate.age.date + dt.timedelta(days=1)
        since = dt.datetime.combine(day_after, dt.time()).timestamp()
        changed = tuple(checker.changed_since(memory, since))
    max_bytes = settings.recall_max_bytes
    while True:
        body = cap_body(memory.body, max_lines=settings.recall_max_lines, max_bytes=max_bytes)
        text = render_block(
            ref=entry.ref,
            file=entry.file,
            scope=entry.scope,
            path=entry.path,
            memory=memory,
            age=candidate.age,
            drift=drift,
            body=body,
            changed=changed,
        )
        size = len(text.encode("utf-8"))
        over_room = 0 if room is None else text_length(text) - room
        over = max(size - remaining, over_room)
        if over <= 0:
            break
        if over_room > 0 and not cut_to_fit:
            return None
        # Too big for what is left of the budget: show less of the body, if that helps.
        # (A code unit is at most 3 bytes of UTF-8, so cutting `over` bytes is enough
        # for the bytes and at least a start for the characters; the loop checks again.)
        max_bytes = body.shown_bytes - over
        if max_bytes < _MIN_BODY_BYTES:
            return None
    return RecallItem(
        candidate=candidate,
        text=text,
        bytes=size,
        truncated=body.truncated,
        drift=drift,
        changed=changed,
        cites=bool(memory.anchors),
    )
