"""The default model made light (issue 31): the Python tokenizer (minirag/unigram.py) gives the ids
`tokenizers` gives, and the encoder with its word table split out of the graph and that tokenizer
embeds as the plain model with `tokenizers` does. Skips without the built model, as
test_default_model does."""

from __future__ import annotations

import json
import mmap
import random
import struct
from pathlib import Path

import numpy as np
import pytest
from helpers.models import E5

from minirag import unigram
from minirag.encoder import Encoder
from minirag.models import resolve

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (E5 / "model.onnx").is_file(),
                                 reason=f"no default model at {E5}: run scripts/e5_small/build.sh {E5}")]
ROOT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "Wie stelle ich den Drucker im Netzwerk ein?", "Straße, Maßstab, Größe — „Anführungszeichen“",
    "Comment configurer l'imprimante ? Où est l'œuvre ?", "Как настроить сеть в LibreOffice Calc?",
    "如何在电子表格中插入函数？", "「数学」函数。要打开「函数向导」，请选择「插入 - 函数」。",
    "ファイルを開くには、[ファイル] メニューを選択します。ｶﾀｶﾅ ｶﾞｷﾞ", "한국어 텍스트를 검색합니다", "한국어",
    "البحث في المستندات", "खोज दस्तावेज़", "ค้นหาเอกสาร", "Ελληνικά κείμενα", "עברית", "Tiếng Việt có dấu",
    "ﬁ ligature ㎏ ① ½ ™ …", "ｆｕｌｌｗｉｄｔｈ　ｓｐａｃｅ", "tabs\tand\nnewlines\r\nand\rreturns", "  lead and trail  ",
    "e\u0301 composed by a mark", "zero\u200bwidth\u200dand\ufeffbom", "emoji 🙂👍🏽 👨‍👩‍👧 🇩🇪", "<s>special</s> <mask> <unk>",
    "▁already▁metaspace▁", "x ▁y", "1111111 ---------------- ''' ...... 333.33333", "", " ", "\n\n", "a ",
]


def _texts(count: int) -> list[str]:
    """Real prose (the docs), multilingual sentences, slices and mixes of them, random code points."""
    rng = random.Random(31)
    prose = [p for f in sorted((ROOT / "docs").glob("*.md")) for p in f.read_text(encoding="utf-8").split("\n\n")]
    texts = SENTENCES + prose
    pool = SENTENCES + prose
    while len(texts) < count:
        kind = rng.random()
        if kind < 0.5:
            text = rng.choice(pool)
            start = rng.randrange(len(text) + 1)
            texts.append(text[start:start + rng.randrange(1, 300)])
        elif kind < 0.8:
            texts.append(" ".join(rng.choice(SENTENCES) for _ in range(rng.randrange(1, 6))))
        else:
            texts.append("".join(chr(rng.choice((rng.randrange(0x20, 0x3000), rng.randrange(0x3000, 0xD800),
                                                  rng.randrange(0xE000, 0x10000), rng.randrange(0x10000, 0x20000),
                                                  rng.choice((9, 10, 13, 32, 0xA0, 0x3000, 0x200B, 0x301)))))
                                 for _ in range(rng.randrange(1, 40))))
    return texts


@pytest.fixture(scope="module")
def e5_files(tmp_path_factory):
    return resolve("unused", E5, tmp_path_factory.mktemp("no-hub"))


@pytest.fixture(scope="module")
def small_xlmr_tokenizer(tmp_path_factory) -> Path:
    """The default model's tokenizer.json with its vocabulary cut to 20,000 pieces (<mask> kept last):
    the same pipeline, normalizer and file layout, its tables made in a quarter of the time."""
    spec = json.loads((E5 / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    spec["model"]["vocab"] = vocab[:19_999] + vocab[-1:]
    for added in spec["added_tokens"]:
        if added["id"] == len(vocab) - 1:
            added["id"] = 19_999
    path = tmp_path_factory.mktemp("small-xlmr") / "tokenizer.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return path


def test_python_tokenizer_gives_the_ids_tokenizers_gives(e5_cache):
    from tokenizers import Tokenizer

    ours = unigram.cached(E5 / "tokenizer.json", e5_cache)
    assert ours is not None
    theirs = Tokenizer.from_file(str(E5 / "tokenizer.json"))
    theirs.no_truncation()
    texts = _texts(4000)
    assert [e.ids for e in ours.encode_batch(texts)] == [e.ids for e in theirs.encode_batch(texts)]
    assert ours.get_vocab_size() == theirs.get_vocab_size()
    assert [ours.id_to_token(i) for i in (0, 6, 250001)] == [theirs.id_to_token(i) for i in (0, 6, 250001)]
    plain = [t for t in texts if not ours.needs_tokenizers(t)]
    assert len(plain) > 0.5 * len(texts)  # the Python way is exercised (a mark, CR, joiner: `tokenizers`)


def test_python_tokenizer_tables_are_cached(small_xlmr_tokenizer, tmp_path):
    # (Caching does not depend on the vocabulary's size: the cut one makes its tables in a quarter of the time.)
    first = unigram.cached(small_xlmr_tokenizer, tmp_path)
    made = list((tmp_path / unigram.CACHE_DIR).iterdir())
    assert len(made) == 1 and made[0].suffix == unigram.SUFFIX
    stamp = made[0].stat().st_mtime_ns
    again = unigram.cached(small_xlmr_tokenizer, tmp_path)
    assert list((tmp_path / unigram.CACHE_DIR).iterdir()) == made and made[0].stat().st_mtime_ns == stamp
    assert again.encode(SENTENCES[0]).ids == first.encode(SENTENCES[0]).ids
    assert isinstance(again._tables.mapped, mmap.mmap)  # read in place, not rebuilt as Python objects


def test_a_cache_file_not_whole_or_of_an_older_format_is_made_again(small_xlmr_tokenizer, tmp_path):
    """A truncated or foreign file under the cache's name is replaced; the tables of the format before
    (one JSON file per tokenizer) are removed when the new ones are made. (The file handling does
    not depend on the vocabulary's size: a cut one makes each case's tables in a fraction of the time.)"""
    folder = tmp_path / unigram.CACHE_DIR
    folder.mkdir()
    older = folder / "0123456789abcdef0123456789abcdef.json"
    older.write_text('{"unigram": true, "pieces": "a"}', encoding="utf-8")
    first = unigram.cached(small_xlmr_tokenizer, tmp_path)
    assert first is not None and first.get_vocab_size() == 20_000  # the Python tokenizer's tables, not None
    expected = first.encode(SENTENCES[2]).ids
    assert not older.exists()
    (made,) = folder.iterdir()
    whole = made.read_bytes()
    size = struct.unpack_from("<I", whole, len(unigram.MAGIC) + 4)[0]
    header = json.loads(whole[len(unigram.MAGIC) + 8:len(unigram.MAGIC) + 8 + size])
    scores = -(-(len(unigram.MAGIC) + 8 + size) // 8) * 8  # the arrays start 8-aligned: scores, then offsets
    offsets = scores + 8 * header["pieces"]
    # Each case makes the tables again: cut at an array's start and inside one, empty, and a whole file
    # of the format before.
    cuts = (offsets, len(whole) // 2)
    for broken in (*(whole[:cut] for cut in cuts), b"", whole.replace(
            unigram.MAGIC + struct.pack("<I", unigram.FORMAT), unigram.MAGIC + struct.pack("<I", 2), 1)):
        made.write_bytes(broken)
        assert unigram.cached(small_xlmr_tokenizer, tmp_path).encode(SENTENCES[2]).ids == expected
        assert made.read_bytes() == whole


def test_light_encoder_embeds_as_the_plain_one(e5_files, e5_cache):
    light = Encoder(e5_files, cache_dir=e5_cache)  # the preparation e5_cache made with the same call
    assert light._table is not None and isinstance(light._tokenizer, unigram.UnigramTokenizer)
    plain = Encoder(e5_files)
    texts = SENTENCES[:12] + ["a longer passage about rivers, otters and the fish they eat " * 20]
    for embed in ("embed_documents", "embed_queries"):
        agreement = np.sum(getattr(light, embed)(texts) * getattr(plain, embed)(texts), axis=1)
        assert agreement.min() >= 0.999
    assert light.count_tokens_batch(texts) == plain.count_tokens_batch(texts)
    assert [light.reads(t) for t in SENTENCES[:12]] == [plain.reads(t) for t in SENTENCES[:12]]
