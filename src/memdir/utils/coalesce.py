"""Calls from many threads of one batch function, made into one call.

A :class:`Coalescer` wraps a function from a list of items to a list of
results (one per item, in order). A thread that calls it while another's
batch runs waits; when that batch ends, the first of the waiting threads runs
every item that queued meanwhile in one call, and hands each thread its own
results. For an embedding model that is most of the saving a warm server can
make: a forward pass over a few short texts reads the model's weights once
instead of once per text (a batch of several queries costs about twice one).
A failure of the batch is raised in every thread whose items were in it.

Nothing here starts a thread: the callers run the batches themselves, so an
idle process holds nothing, and one caller alone runs its call at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["Coalescer"]

_In = TypeVar("_In")
_Out = TypeVar("_Out")


class _Ask(Generic[_In, _Out]):
    """One caller's items, and what became of them."""

    __slots__ = ("done", "error", "items", "results")

    def __init__(self, items: Sequence[_In]) -> None:
        self.items = items
        self.results: list[_Out] = []
        self.error: BaseException | None = None
        self.done = False


class Coalescer(Generic[_In, _Out]):
    """``batch`` (items -> one result each) shared by the threads that call :meth:`__call__`."""

    def __init__(self, batch: Callable[[list[_In]], list[_Out]]) -> None:
        self._batch = batch
        self._turn = threading.Condition()
        self._queued: list[_Ask[_In, _Out]] = []
        self._running = False
        self.batches = 0  # batches run: fewer than the calls when calls overlapped

    def __call__(self, items: Sequence[_In]) -> list[_Out]:
        """The results for ``items``, computed alone or with other threads' items."""
        ask: _Ask[_In, _Out] = _Ask(items)
        with self._turn:
            self._queued.append(ask)
            while self._running and not ask.done:
                self._turn.wait()
            if not ask.done:  # no batch runs, and ours was not in the last: run one
                asks, self._queued = self._queued, []
                self._running = True
        if not ask.done:
            self._run(asks)
        if ask.error is not None:
            raise ask.error
        return ask.results

    def _run(self, asks: list[_Ask[_In, _Out]]) -> None:
        try:
            results = self._batch([item for a in asks for item in a.items])
            if len(results) != sum(len(a.items) for a in asks):
                raise ValueError("a batch gave another count of results than of items")
            at = 0
            for a in asks:
                a.results = list(results[at : at + len(a.items)])
                at += len(a.items)
        except BaseException as exc:
            for a in asks:
                a.error = exc
        finally:
            with self._turn:
                for a in asks:
                    a.done = True
                self._running = False
                self.batches += 1
                self._turn.notify_all()
