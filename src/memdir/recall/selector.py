"""Model-based relevant-memory selection, behind recall's :class:`Selector` Protocol.

:class:`ModelSelector` shows the model a manifest of the candidates (ref,
type, scope, age, name, description: never bodies) and asks, through
:func:`~memdir.llm.complete_json` with a schema, for at most ``limit`` refs it
is sure will help; an empty list is a fine answer. Recall hands candidates
pre-ranked (search matches first), so when there are more than fit, the first
``max_candidates`` (and no more than ``max_manifest_tokens`` of manifest) are
shown. Refs the model invents are dropped. Any failure (provider, budget,
invalid JSON) falls back to the lexical selector, so recall always answers;
with a ``deadline`` so does a model that has not answered within it (a prompt's
hook cannot wait for a slow model: the pre-ranked choice, by words and meaning,
goes out instead, and the late answer is dropped).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from memdir.errors import MemdirError
from memdir.llm.base import Message, Provider, Request
from memdir.llm.schema import complete_json
from memdir.recall.relevant import Candidate, LexicalSelector, Selector
from memdir.transcripts.turns import estimate_tokens

__all__ = ["ModelSelector", "manifest_lines"]

log = logging.getLogger("memdir.recall.selector")

DEFAULT_MAX_CANDIDATES = 200
DEFAULT_MAX_MANIFEST_TOKENS = 8_000

SYSTEM_PROMPT = """\
You choose which saved memories an AI agent should read before it handles a user's \
request. You see one line per memory: its ref, type, scope, age, name and description. \
Pick only memories you are certain will help with this request; when unsure, leave a \
memory out. Choosing none is a fine answer. Do not pick memories about tools or APIs the \
request merely mentions, unless they record warnings or known problems with them. \
Answer with the refs exactly as listed."""


def manifest_lines(candidates: Sequence[Candidate]) -> list[str]:
    """One line per candidate, as the model sees it."""
    return [_manifest_line(c) for c in candidates]


def _manifest_line(c: Candidate) -> str:
    return (
        f"- {c.ref} [{c.type.value if c.type else 'untyped'}, {c.scope.value}, "
        f"{c.age_label}] {c.name}: {c.description}"
    )


class ModelSelector:
    """Ask a model to pick the helpful memories; fall back to ``fallback`` on any error."""

    def __init__(
        self,
        provider: Provider,
        *,
        fallback: Selector | None = None,
        max_candidates: int = DEFAULT_MAX_CANDIDATES,
        max_manifest_tokens: int = DEFAULT_MAX_MANIFEST_TOKENS,
        max_tokens: int = 512,
        deadline: float | None = None,
    ) -> None:
        self.provider = provider
        self.deadline = deadline  # seconds the model may take; None: as long as it takes
        self.fallback: Selector = fallback or LexicalSelector()
        self.max_candidates = max_candidates
        self.max_manifest_tokens = max_manifest_tokens
        self.max_tokens = max_tokens
        self.fallbacks = 0  # how many selections fell back (for reports and tests)

    def select(self, query: str, candidates: Sequence[Candidate], limit: int) -> list[str]:
        """At most ``limit`` refs of ``candidates``, most useful first."""
        if not candidates or limit < 1:
            return []
        shown, lines = self._fit(candidates)
        request = self._request(query, lines, limit)
        try:
            answer = _within(self.deadline, lambda: complete_json(self.provider, request, _SCHEMA))
        except (MemdirError, ValueError, TimeoutError) as exc:
            # Trigger: the model failed, ran out of budget or would not answer in shape.
            # Why: recall must still answer. Outcome: the lexical choice.
            log.warning("model selection failed, using the lexical selector: %s", exc)
            self.fallbacks += 1
            return self.fallback.select(query, candidates, limit)
        known = {c.ref for c in shown}
        by_name = {c.name.casefold(): c.ref for c in shown}
        picked = (_resolve(str(item), known, by_name) for item in answer["selected"])
        return list(dict.fromkeys(ref for ref in picked if ref is not None))[:limit]

    def _fit(self, candidates: Sequence[Candidate]) -> tuple[list[Candidate], list[str]]:
        """The candidates shown and their lines: the first that fit both caps."""
        shown: list[Candidate] = []
        lines: list[str] = []
        used = 0
        for candidate in candidates:
            if len(shown) >= self.max_candidates:
                break
            line = _manifest_line(candidate)
            cost = estimate_tokens(line)
            if shown and used + cost > self.max_manifest_tokens:
                break
            shown.append(candidate)
            lines.append(line)
            used += cost
        return shown, lines

    def _request(self, query: str, lines: Sequence[str], limit: int) -> Request:
        manifest = "\n".join(lines)
        prompt = (
            f"The user's request:\n<request>\n{query}\n</request>\n\n"
            f"Memories:\n{manifest}\n\n"
            f'Reply with {{"selected": [refs]}}: at most {limit}, most useful first.'
        )
        return Request(
            system=SYSTEM_PROMPT, messages=(Message.user(prompt),), max_tokens=self.max_tokens
        )


def _within(deadline: float | None, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``call()``'s answer, or :class:`TimeoutError` when it takes over ``deadline`` seconds.

    The call runs on in a daemon thread and its late answer is dropped: a model
    request cannot be cancelled halfway, and the caller must not wait for it.
    """
    if deadline is None:
        return call()
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["answer"] = call()
        except BaseException as exc:  # handed to the caller below
            done["error"] = exc

    worker = threading.Thread(target=run, name="memdir-select", daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive():
        raise TimeoutError(f"the model took over {deadline:g} s")
    if "error" in done:
        raise done["error"]
    answer: dict[str, Any] = done["answer"]
    return answer


# No maxItems: a model that names six is trimmed, not sent back to try again.
_SCHEMA = {
    "type": "object",
    "properties": {"selected": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected"],
}


def _resolve(item: str, known: set[str], by_name: dict[str, str]) -> str | None:
    """The ref a model's answer names: the ref itself, or (leniently) a memory's name."""
    item = item.strip().removeprefix("- ")
    if item in known:
        return item
    return by_name.get(item.casefold())
