"""A BERT sentence encoder run with numpy: the bundled model without torch.

A sentence-transformers folder whose transformer is a plain BERT (the bundled
all-MiniLM-L6-v2, and most small English models of that kind) is six or twelve
layers of matrix products, softmax and layer norms: numpy does that as fast
as torch does on a CPU, loads in a tenth of a second instead of seconds, and
installs in megabytes instead of the gigabytes of torch's default Linux wheel.
The weights are read with ``safetensors``, the text is cut into word pieces
with ``tokenizers`` (the folder's own ``tokenizer.json``); the pooling (mean
or first token) and the final normalisation follow the folder's
``modules.json`` and ``1_Pooling/config.json``, so the vectors equal
sentence-transformers' for the same folder (a test holds them to it).

A folder of another architecture is refused with :class:`ConfigError`;
:class:`~memdir.search.vectors.embeddings.LocalEmbedder` hands those to
sentence-transformers instead.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError
from memdir.utils.installs import install_hint

__all__ = ["BertEncoder", "is_bert_folder"]

# Trigger: a batch's activations outgrow the cache as it grows. Outcome: batches of 16
# (texts of similar length run together). On one core, 128 memory texts of 44 tokens on
# average (benchmarks/scale.py --only embed, one run, medians of three rounds, CPU time):
# 42 texts/s (1,842 tokens/s) one by one, 55 (2,393) by 16, 49 (2,126) by 32, 39 (1,694)
# by 64.
BATCH = 16


def is_bert_folder(folder: Path) -> bool:
    """True when ``folder`` holds a sentence-transformers model this encoder runs."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(config, dict)
        and config.get("model_type") == "bert"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and config.get("hidden_act") == "gelu"
        and (folder / "model.safetensors").is_file()
        and (folder / "tokenizer.json").is_file()
    )


class BertEncoder:
    """Normalised (or not, as the folder says) sentence vectors from a BERT folder."""

    def __init__(self, folder: Path, *, batch: int = BATCH) -> None:
        if not is_bert_folder(folder):
            raise ConfigError(
                f"{folder}: not a BERT sentence-transformers folder "
                "(config.json with model_type bert, model.safetensors, tokenizer.json)",
                hint="install sentence-transformers to run other architectures",
            )
        self.folder = folder
        self.batch = batch
        try:
            self._np: Any = importlib.import_module("numpy")
            tokenizers = importlib.import_module("tokenizers")
            st_numpy = importlib.import_module("safetensors.numpy")
        except ImportError as exc:
            raise ConfigError(
                "local embeddings need the embeddings extra",
                hint=install_hint("embeddings"),
            ) from exc
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_length = _max_length(folder, int(config.get("max_position_embeddings", 512)))
        self.pooling, self.normalise = _pooling(folder)
        raw = st_numpy.load_file(str(folder / "model.safetensors"))
        self.w = {name.removeprefix("bert."): value for name, value in raw.items()}
        # Linear layers' weights transposed once, contiguous: a 2-D product with them
        # runs as one BLAS call, some 2.5 times faster than x @ W.T on 3-D x.
        self.wt = {
            name.removesuffix(".weight"): self._np.ascontiguousarray(value.T)
            for name, value in self.w.items()
            if name.endswith(".weight") and value.ndim == 2 and "embeddings" not in name
        }
        self.tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_length)

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; batches of similar length run together."""
        if not texts:
            return []
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch):
            chunk = order[start : start + self.batch]
            vectors = self._forward([encodings[i].ids for i in chunk])
            for i, row in zip(chunk, vectors.tolist(), strict=True):
                out[i] = row
        return out

    def _forward(self, batch: list[list[int]]) -> Any:
        np = self._np
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for n in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{n}.")
        if self.pooling == "cls":
            pooled = x[:, 0, :]
        else:
            pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(
                mask.sum(axis=1, keepdims=True), 1e-9
            )
        if self.normalise:
            pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled

    def _layer(self, x: Any, bias: Any, p: str) -> Any:
        np = self._np
        batch, width, hidden = x.shape
        size = hidden // self.heads

        def heads(name: str) -> Any:
            y = self._linear(x, p + f"attention.self.{name}")
            return y.reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2) / np.float32(size**0.5)
        scores = scores + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, width, hidden)
        x = self._norm(
            x + self._linear(context, p + "attention.output.dense"),
            p + "attention.output.LayerNorm",
        )
        inner = _gelu(np, self._linear(x, p + "intermediate.dense"))
        return self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")

    def _linear(self, x: Any, name: str) -> Any:
        weight = self.wt[name]
        y = x.reshape(-1, x.shape[-1]) @ weight + self.w[name + ".bias"]
        return y.reshape(*x.shape[:-1], weight.shape[1])

    def _norm(self, x: Any, name: str) -> Any:
        np = self._np
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        y = (x - mean) / np.sqrt(var + np.float32(self.eps))
        return y * self.w[name + ".weight"] + self.w[name + ".bias"]


def _gelu(np: Any, x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x), with erf to within 1.5e-7 (numpy has no erf).

    Abramowitz and Stegun 7.1.26, in float32 and in place: the feed-forward layer's
    activations are the largest arrays of the network, and with a temporary per
    operation this took nearly as long as the network's matrix products (a batch of
    32 texts of 50 tokens: 46 ms a layer, 24 in place; one run).
    """
    f = np.float32
    z = np.multiply(x, f(0.7071067811865476))
    a = np.abs(z)
    t = np.multiply(a, f(0.3275911))
    t += f(1.0)
    np.reciprocal(t, out=t)
    poly = np.multiply(t, f(1.061405429))
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += f(coefficient)
        poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # erf(|z|) = 1 - poly
    np.subtract(f(1.0), poly, out=poly)
    np.copysign(poly, z, out=poly)  # erf(z)
    poly += f(1.0)
    poly *= x
    poly *= f(0.5)
    return poly


def _max_length(folder: Path, positions: int) -> int:
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return min(int(config.get("max_seq_length", positions)), positions)
    except (OSError, ValueError, TypeError):
        return positions


def _pooling(folder: Path) -> tuple[str, bool]:
    """The folder's pooling ("mean" or "cls") and whether its vectors are normalised."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "mean", False
    kinds = {str(m.get("type", "")).rsplit(".", 1)[-1]: m for m in modules if isinstance(m, dict)}
    pooling = "mean"
    if "Pooling" in kinds:
        path = folder / str(kinds["Pooling"].get("path", "1_Pooling")) / "config.json"
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            config = {}
        if config.get("pooling_mode_cls_token"):
            pooling = "cls"
        elif not config.get("pooling_mode_mean_tokens", True):
            raise ConfigError(
                f"{path}: only mean or first-token pooling is supported",
                hint="install sentence-transformers to run other poolings",
            )
    return pooling, "Normalize" in kinds
