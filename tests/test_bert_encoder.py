"""The numpy BERT encoder: the bundled model's vectors without torch."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from embedutil import hide_modules, needs_embeddings_extra, needs_sentence_transformers
from memdir.errors import ConfigError
from memdir.search.vectors import embeddings
from memdir.search.vectors.embeddings import LocalEmbedder

pytestmark = needs_embeddings_extra

HIDDEN, HEADS, LAYERS, INNER = 16, 4, 2, 32
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "dog", "beach", "tax", "##es", "loves", "my"]


def tiny_bert(folder: Path, *, pooling: str = "mean", normalise: bool = True) -> Path:
    """A random two-layer BERT folder in sentence-transformers' layout."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)

    def t(*shape: int) -> Any:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": t(len(WORDS), HIDDEN),
        "embeddings.position_embeddings.weight": t(64, HIDDEN),
        "embeddings.token_type_embeddings.weight": t(2, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + t(HIDDEN),
        "embeddings.LayerNorm.bias": t(HIDDEN),
    }
    for n in range(LAYERS):
        p = f"encoder.layer.{n}."
        for name in ("query", "key", "value"):
            w[p + f"attention.self.{name}.weight"] = t(HIDDEN, HIDDEN)
            w[p + f"attention.self.{name}.bias"] = t(HIDDEN)
        w[p + "attention.output.dense.weight"] = t(HIDDEN, HIDDEN)
        w[p + "attention.output.dense.bias"] = t(HIDDEN)
        w[p + "intermediate.dense.weight"] = t(INNER, HIDDEN)
        w[p + "intermediate.dense.bias"] = t(INNER)
        w[p + "output.dense.weight"] = t(HIDDEN, INNER)
        w[p + "output.dense.bias"] = t(HIDDEN)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = 1 + t(HIDDEN)
            w[p + norm + ".bias"] = t(HIDDEN)
    save_file({"bert." + k: v for k, v in w.items()}, str(folder / "model.safetensors"))
    config = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INNER,
        "max_position_embeddings": 64,
        "layer_norm_eps": 1e-12,
    }
    (folder / "config.json").write_text(json.dumps(config))
    vocab = {word: i for i, word in enumerate(WORDS)}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
    ]
    if normalise:
        modules.append(
            {
                "idx": 2,
                "name": "2",
                "path": "2_Normalize",
                "type": "sentence_transformers.models.Normalize",
            }
        )
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps(
            {
                "word_embedding_dimension": HIDDEN,
                "pooling_mode_cls_token": pooling == "cls",
                "pooling_mode_mean_tokens": pooling == "mean",
            }
        )
    )
    return folder


def reference(folder: Path, text: str, *, pooling: str = "mean") -> list[float]:
    """The same network written out per token in plain Python floats, one text at a time."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    w = {
        k.removeprefix("bert."): v.tolist()
        for k, v in load_file(str(folder / "model.safetensors")).items()
    }
    ids = Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids

    def linear(x: list[float], name: str) -> list[float]:
        weight, bias = w[name + ".weight"], w[name + ".bias"]
        return [
            sum(a * b for a, b in zip(row, x, strict=True)) + c
            for row, c in zip(weight, bias, strict=True)
        ]

    def norm(x: list[float], name: str) -> list[float]:
        mean = sum(x) / len(x)
        var = sum((v - mean) ** 2 for v in x) / len(x)
        return [
            (v - mean) / math.sqrt(var + 1e-12) * g + b
            for v, g, b in zip(x, w[name + ".weight"], w[name + ".bias"], strict=True)
        ]

    xs = [
        norm(
            [
                a + b + c
                for a, b, c in zip(
                    w["embeddings.word_embeddings.weight"][i],
                    w["embeddings.position_embeddings.weight"][pos],
                    w["embeddings.token_type_embeddings.weight"][0],
                    strict=True,
                )
            ],
            "embeddings.LayerNorm",
        )
        for pos, i in enumerate(ids)
    ]
    size = HIDDEN // HEADS
    for n in range(LAYERS):
        p = f"encoder.layer.{n}."
        q = [linear(x, p + "attention.self.query") for x in xs]
        k = [linear(x, p + "attention.self.key") for x in xs]
        v = [linear(x, p + "attention.self.value") for x in xs]
        out = []
        for i in range(len(xs)):
            context: list[float] = []
            for h in range(HEADS):
                s = slice(h * size, (h + 1) * size)
                logits = [
                    sum(a * b for a, b in zip(q[i][s], k[j][s], strict=True)) / math.sqrt(size)
                    for j in range(len(xs))
                ]
                top = max(logits)
                e = [math.exp(x - top) for x in logits]
                total = sum(e)
                context += [
                    sum(e[j] / total * v[j][s][d] for j in range(len(xs))) for d in range(size)
                ]
            a = norm(
                [
                    x + y
                    for x, y in zip(
                        xs[i], linear(context, p + "attention.output.dense"), strict=True
                    )
                ],
                p + "attention.output.LayerNorm",
            )
            inner = [
                x * 0.5 * (1 + math.erf(x / math.sqrt(2)))
                for x in linear(a, p + "intermediate.dense")
            ]
            out.append(
                norm(
                    [x + y for x, y in zip(a, linear(inner, p + "output.dense"), strict=True)],
                    p + "output.LayerNorm",
                )
            )
        xs = out
    pooled = xs[0] if pooling == "cls" else [sum(col) / len(xs) for col in zip(*xs, strict=True)]
    length = math.sqrt(sum(x * x for x in pooled))
    return [x / length for x in pooled]


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_the_encoder_computes_what_bert_computes(tmp_path: Path, pooling: str) -> None:
    folder = tiny_bert(tmp_path / "m", pooling=pooling)
    texts = ["my dog loves the beach", "taxes", "dog dog dog beach my loves unknownword"]
    vectors = LocalEmbedder(folder).embed(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(reference(folder, text, pooling=pooling), abs=2e-5)


def test_a_texts_vector_is_the_same_alone_and_in_a_padded_batch(tmp_path: Path) -> None:
    embedder = LocalEmbedder(tiny_bert(tmp_path / "m"))
    long = "my dog loves the beach " * 5
    together = embedder.embed(["dog", long, "taxes beach"])
    apart = [embedder.embed([text])[0] for text in ("dog", long, "taxes beach")]
    for a, b in zip(together, apart, strict=True):
        assert a == pytest.approx(b, abs=1e-5)


def test_the_batch_size_does_not_change_a_texts_vector(tmp_path: Path) -> None:
    from memdir.search.vectors.bert_encoder import BATCH, BertEncoder

    folder = tiny_bert(tmp_path / "m")
    texts = [" ".join(["my dog loves the beach"] * (i % 7 + 1)) for i in range(40)]
    one_by_one = BertEncoder(folder, batch=1).encode(texts)
    for batch in (BATCH, 64):
        for a, b in zip(BertEncoder(folder, batch=batch).encode(texts), one_by_one, strict=True):
            assert a == pytest.approx(b, abs=1e-5)


def test_a_folder_without_normalize_keeps_the_length(tmp_path: Path) -> None:
    (vector,) = LocalEmbedder(tiny_bert(tmp_path / "m", normalise=False)).embed(["my dog"])
    assert math.sqrt(sum(x * x for x in vector)) > 1.5  # mean of layer-normed 16-dim rows


def test_the_exact_gelu_within_its_bound() -> None:
    import numpy as np

    from memdir.search.vectors.bert_encoder import _gelu

    xs = np.linspace(-8, 8, 4001, dtype=np.float32)
    want = [x * 0.5 * (1 + math.erf(x / math.sqrt(2))) for x in xs.tolist()]
    assert _gelu(np, xs).tolist() == pytest.approx(want, abs=1e-6)


def test_another_architecture_needs_sentence_transformers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tiny_bert(tmp_path / "m")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    hide_modules(monkeypatch, "sentence_transformers", "torch")
    with pytest.raises(ConfigError, match="not a plain BERT") as caught:
        LocalEmbedder(folder).embed(["dog"])
    assert str(folder) in str(caught.value)


def test_an_unknown_pooling_is_refused_naming_the_file(tmp_path: Path) -> None:
    folder = tiny_bert(tmp_path / "m")
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": True})
    )
    with pytest.raises(ConfigError, match="1_Pooling") as caught:
        LocalEmbedder(folder).embed(["dog"])
    assert "pooling" in str(caught.value)


@pytest.mark.slow
def test_the_bundled_model_loads_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from memdir.search.vectors.embeddings import LocalEmbedder;"
        "v = LocalEmbedder().embed(['my dog loves the beach']);"
        "assert len(v[0]) == 384;"
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["False", "False"]


@needs_sentence_transformers
@pytest.mark.slow
def test_the_bundled_models_vectors_equal_sentence_transformers() -> None:
    import importlib

    import numpy as np

    st = importlib.import_module("sentence_transformers")
    folder = embeddings._resolve_model(embeddings.BUNDLED_MODEL)
    texts = [
        "Caroline: I went to the LGBTQ support group yesterday.",
        "short",
        "Who owns the notifier now? " * 60,  # past the 256-piece cut
        "Ünïcode àccents and 中文 text",
    ]
    ours = np.array(LocalEmbedder().embed(texts))
    theirs = st.SentenceTransformer(folder, device="cpu").encode(texts, normalize_embeddings=True)
    assert np.abs(ours - theirs).max() < 1e-5
