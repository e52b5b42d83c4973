from pathlib import Path

import numpy as np
import pytest

from minirag.encoder import Encoder
from minirag.errors import ModelUnavailable
from minirag.models import ModelFiles
from minirag.models import resolve as resolve_model


def cosine(a, b):
    return float(np.dot(a, b))


@pytest.mark.slow
@pytest.mark.minilm
def test_similar_sentences_are_closer_than_unrelated_ones(encoder):
    a, b, c = encoder.embed_documents(
        ["The cat sat on the mat.", "A kitten was sitting on the rug.", "Quarterly tax filing deadlines for corporations."]
    )
    assert cosine(a, b) > cosine(a, c) + 0.2


def test_vectors_are_unit_length(encoder):
    vectors = encoder.embed_documents(["one", "a much longer sentence about something else entirely"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_batching_and_sorting_do_not_change_vectors(encoder):
    texts = [("word " * n).strip() for n in (50, 3, 20, 1, 80)]
    together = encoder.embed_documents(texts)
    alone = np.stack([encoder.embed_documents([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_token_counting_is_not_truncated_past_128(encoder):
    text = "tokenization " * 300
    assert encoder.count_tokens(text) > 300


def test_query_longer_than_the_model_limit_is_still_embedded(encoder):
    vector = encoder.embed_queries(["long " * 2000])[0]
    assert vector.shape == (encoder.dimension,)


def test_local_directory_settings_are_read(minilm_model_dir):
    files = resolve_model("ignored", minilm_model_dir, Path("/nonexistent"))
    assert files.origin == "MODEL_PATH"
    assert files.spec.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert files.spec.max_length == 256


def test_model_path_without_model_files_is_a_clear_error(tmp_path):
    with pytest.raises(ModelUnavailable, match="model.onnx"):
        resolve_model("x", tmp_path, tmp_path)


def test_an_uncached_model_with_no_hub_says_to_set_model_path(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match="not cached and the hub is unreachable; set MODEL_PATH|set MODEL_PATH"):
        resolve_model("intfloat/multilingual-e5-small", None, tmp_path / "cache")


def test_an_uncached_model_names_the_model_installed_with_minirag_when_there_is_one(tmp_path, monkeypatch):
    from minirag import models

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if models.packaged_minilm() is None:
        pytest.skip("the offline-model extra is not installed")
    with pytest.raises(ModelUnavailable, match="no download needed: --model-name all-MiniLM-L6-v2"):
        resolve_model("intfloat/multilingual-e5-small", None, tmp_path / "cache")
    monkeypatch.setattr(models, "packaged_minilm", lambda: None)  # without it, nothing to name
    with pytest.raises(ModelUnavailable) as refused:
        resolve_model("intfloat/multilingual-e5-small", None, tmp_path / "cache")
    assert "all-MiniLM" not in str(refused.value)


def test_a_corrupt_onnx_file_is_a_clear_error(tmp_path, model_dir):
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not an onnx file")
    spec = resolve_model("x", model_dir, tmp_path).spec
    with pytest.raises(ModelUnavailable, match="cannot load ONNX model"):
        Encoder(ModelFiles(spec, bad, model_dir / "tokenizer.json", "test"))


@pytest.mark.parametrize("text", ["notjson", "{}"])
def test_a_broken_tokenizer_file_is_a_clear_error(tmp_path, model_dir, text):
    (tmp_path / "model.onnx").write_bytes((model_dir / "model.onnx").read_bytes())
    (tmp_path / "tokenizer.json").write_text(text)
    with pytest.raises(ModelUnavailable, match=f"cannot load the tokenizer {tmp_path}/tokenizer.json"):
        Encoder(resolve_model("x", tmp_path, tmp_path / "cache"))


@pytest.mark.parametrize(("settings", "says"), [
    ('{"max_length": "abc"}', "max_length must be a whole number of tokens from 16 to 32,768, got 'abc'"),
    ('{"chunk_budget": 0}', "chunk_budget must be a whole number of tokens from 16 to 8,192, got 0"),
    ('{"max_length": 8}', "max_length must be a whole number of tokens from 16 to 32,768, got 8"),
    ('{"chunk_budget": 15}', "chunk_budget must be a whole number of tokens from 16 to 8,192, got 15"),
    ('{"model_id": 3}', "model_id must be a string, got 3"),
    ("[1, 2]", "must be a JSON object of settings"),
    ("{max_length: 512}", "is not JSON"),
    ('{"pooling": 3}', "pooling must be a string"),
])
def test_a_broken_minirag_model_json_is_a_clear_error_not_a_silent_default(tmp_path, model_dir, settings, says):
    for name in ("model.onnx", "tokenizer.json"):
        (tmp_path / name).write_bytes((model_dir / name).read_bytes())
    (tmp_path / "minirag-model.json").write_text(settings)
    with pytest.raises(ModelUnavailable, match=says):
        resolve_model("x", tmp_path, tmp_path / "cache")


def test_a_sentence_transformers_length_past_the_most_is_cut_to_it_not_refused(tmp_path, model_dir):
    """A folder whose sentence_bert_config.json says max_seq_length 40960 was refused as 'max_length
    must be …': the key was another, and the file is sentence-transformers', not the user's."""
    from minirag.models import MAX_MODEL_TOKENS, spec_from_directory

    (tmp_path / "sentence_bert_config.json").write_text('{"max_seq_length": 40960}')
    assert spec_from_directory(tmp_path, "local:x").max_length == MAX_MODEL_TOKENS
    (tmp_path / "sentence_bert_config.json").write_text('{"max_seq_length": 8}')
    with pytest.raises(ModelUnavailable, match="sentence_bert_config.json: max_seq_length must be"):
        spec_from_directory(tmp_path, "local:x")


@pytest.mark.parametrize("name", ["https://huggingface.co/intfloat/multilingual-e5-small", "a/b/c", "org/model name"])
def test_a_model_name_that_is_no_hub_id_is_refused_before_the_hub_is_asked(tmp_path, monkeypatch, name):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailable, match="is not a model id: give the hub's `org/name`"):
        resolve_model(name, None, tmp_path / "cache")


@pytest.mark.slow
def test_the_script_gate_comes_from_the_tokenizer_even_for_an_unknown_model_directory(minilm_model_dir, tmp_path):
    # No minirag-model.json, so nothing says which model this is: the vocabulary decides.
    for name in ("model.onnx", "tokenizer.json"):
        (tmp_path / name).write_bytes((minilm_model_dir / name).read_bytes())
    files = resolve_model("ignored", tmp_path, Path("/nonexistent"))
    assert files.spec.model_id.startswith("local:")
    encoder = Encoder(files)
    assert encoder.reads("database tables and indexes")
    assert not encoder.reads("таблицы базы данных")  # MiniLM spells Cyrillic letter by letter
    assert encoder.reads("SQL")
    assert not encoder.reads("функции SQL и таблицы")  # mostly Cyrillic letters


@pytest.mark.parametrize(("settings", "env", "expected"), [
    ({"model_id": "intfloat/multilingual-e5-small"}, {}, 256),  # e5's own, measured
    ({"model_id": "intfloat/multilingual-e5-small"}, {"CHUNK_TOKEN_BUDGET": "110"}, 110),  # the setting wins
    ({"model_id": "sentence-transformers/all-MiniLM-L6-v2"}, {}, 110),  # the seed's limit for a 128/256 model
    ({"model_id": "someone/new-model", "chunk_budget": 300}, {}, 300),  # a folder can say its own
    ({"model_id": "someone/new-model"}, {}, 110),
])
def test_the_chunk_budget_is_the_models_own_unless_set(model_dir, tmp_path, settings, env, expected):
    import json

    from minirag.binding import checked_budget
    from minirag.config import load_config

    for name in ("model.onnx", "tokenizer.json"):
        (tmp_path / name).write_bytes((model_dir / name).read_bytes())
    (tmp_path / "minirag-model.json").write_text(json.dumps({**settings, "max_length": 512}))
    encoder = Encoder(resolve_model("ignored", tmp_path, Path("/nonexistent")))
    config = load_config(env=env, base_dirs=[str(tmp_path)], db_path=str(tmp_path / "i.db"), model_path=str(tmp_path))
    assert checked_budget(config, encoder.spec) == expected


@pytest.mark.parametrize(("settings", "expected"), [
    ({"model_id": "sentence-transformers/all-MiniLM-L6-v2"}, ("en",)),  # the catalogue's, inherited
    ({"model_id": "someone/new-model"}, ()),  # not known: every language
    ({"model_id": "someone/new-model", "languages": ["EN", "de"]}, ("en", "de")),
    ({"model_id": "someone/new-model", "languages": "en"}, ()),  # not a list: ignored
    ({"model_id": "sentence-transformers/all-MiniLM-L6-v2", "languages": []}, ()),  # a folder can widen it
])
def test_a_model_folder_may_name_the_languages_its_model_was_trained_on(tmp_path, settings, expected):
    import json

    from minirag.models import spec_from_directory

    (tmp_path / "minirag-model.json").write_text(json.dumps(settings))
    assert spec_from_directory(tmp_path, "local:x").languages == expected


ONE_SHOT_TEXTS = ["Sea otters hold hands while they sleep.", "how do I parse a toml file",
                  "Wie stelle ich den Drucker ein?", "word " * 80]


@pytest.mark.parametrize("model", ["tiny", pytest.param("minilm", marks=pytest.mark.minilm)])
def test_a_one_shot_session_embeds_as_the_optimized_one(model, request, tmp_path):
    """A CLI query's session is made without graph optimizations or pre-packing (quick to make);
    its vectors stay within 1e-6 of the optimized session's, so its hits and scores do too."""
    import onnxruntime as ort

    directory = request.getfixturevalue(f"{model}_model_dir")
    files = resolve_model("unused", directory, Path("/nonexistent"))
    optimized = Encoder(files, cache_dir=tmp_path / "cache")
    quick = Encoder(files, cache_dir=tmp_path / "cache", one_shot=True)
    options = quick._session.get_session_options()
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert optimized._session.get_session_options().graph_optimization_level != options.graph_optimization_level
    for embed in ("embed_queries", "embed_documents"):
        ours, theirs = getattr(quick, embed)(ONE_SHOT_TEXTS), getattr(optimized, embed)(ONE_SHOT_TEXTS)
        assert np.abs(ours - theirs).max() < 1e-6


# Embeds 6,000 chunk-sized texts in a fresh process; prints how far its peak resident memory rose.
EMBED_PEAK = """
import random, resource, sys
from pathlib import Path
from minirag.encoder import Encoder
from minirag.models import resolve
encoder = Encoder(resolve("unused", Path(sys.argv[1]), Path("/nonexistent-cache")))
encoder.embed_documents(["warm up the session"])
words = ["".join(random.choice("abcdefghij") for _ in range(6)) for _ in range(3000)]
texts = [" ".join(random.choice(words) for _ in range(60)) for _ in range(6_000)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
encoder.embed_documents(texts)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


@pytest.mark.slow  # a process of its own
def test_embedding_a_large_documents_chunks_holds_their_token_ids_not_every_encoding(model_dir):
    """A 10 MB text is 58,000 chunks; `tokenizers` keeps tokens, offsets and masks with each one's ids:
    holding every encoding rose 233 MB for these 6,000 texts (460 for 12,000), their ids, vectors and
    the session's buffers 61 (80 for 12,000; the tiny model, 2026-12-07)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", EMBED_PEAK, str(model_dir)], capture_output=True, text=True,
                          check=True, timeout=300)
    assert int(done.stdout) < 150, f"{done.stdout.strip()} MB more to embed 6,000 texts"
