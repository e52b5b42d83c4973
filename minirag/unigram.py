"""An XLM-R style Unigram tokenizer in Python, giving exactly the ids `tokenizers` gives.

multilingual-e5-small's tokenizer.json (250,002 pieces) costs `tokenizers`
~1.1 s of CPU and ~290 MB of memory to load (its Unigram trie): more than the
ONNX session. This module writes the same file's pipeline once into a cache
file that is memory-mapped (`Tables`: nothing is rebuilt as Python objects at
load, and the pieces are found by hash) and repeats it step by step, so a
cold query pays ~5 ms and ~5-10 MB:

1. the Precompiled normalizer, one code point at a time (`str.translate`);
2. Replace(" {2,}" -> " "), then Metaspace: spaces become "▁", a "▁" is put in
   front, and the text is split before every "▁";
3. each word is cut by the same Viterbi search as `tokenizers`' Unigram (f64
   scores, candidates in the same order, the first best kept, unknown
   characters scored min - 10 and consecutive ones fused); as its trie does,
   a candidate that begins no piece ends the candidates from its start;
4. the template's special tokens around them.

`tokenizers` normalizes a grapheme cluster of several code points as one unit
(and a text may spell a special token such as `<s>`): a text holding any
character that can extend a cluster (combining marks, joiners, Hangul jamo,
CR ...) or an unassigned one, or a special token's text, is handed to
`tokenizers` itself, loaded on first need. tests/test_default_model.py checks
the ids against `tokenizers` on thousands of multilingual texts.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import mmap
import re
import struct
import sys
import threading
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from zlib import crc32

from minirag.store.partials import open_made, write_atomically

log = logging.getLogger(__name__)

#: Bumped when the cache file changes shape (or the rules that make it), so older ones are made again.
FORMAT = 4
CACHE_DIR = "minirag-tokenizer"
SUFFIX = ".bin"
MAGIC = b"minirag-unigram\n"
UNK_PENALTY = 10.0  # tokenizers' (and sentencepiece's) score of an unknown character: min score - 10
WORDS_CACHED = 100_000
# Bits of the prefix set per distinct prefix, at least: one candidate in ~16 that begins no piece
# passes as one that may, and goes on to the next (longer) candidate for nothing.
PREFIX_BITS_PER_PREFIX = 16
_WORDS = re.compile("▁[^▁]*|[^▁]+")
_SPACES = re.compile(" {2,}")


@dataclass(frozen=True)
class Encoding:
    ids: list[int]


class UnigramTokenizer:
    """The part of `tokenizers.Tokenizer` the encoder uses: encode(_batch), the vocabulary."""

    pre_tokenizer = "Metaspace"  # what vocabulary_words() asks (not byte-level)
    decoder = "Metaspace"

    def __init__(self, tables: Tables, source: Path):
        header = tables.header
        self._tables = tables
        self._count = header["pieces"]
        self._mask = header["slots"] - 1
        self._prefix_mask = header["prefix_bits"] - 1
        self._unk = header["unk_id"]
        self._unk_score = header["unk_score"]
        self._first, self._last = header["first"], header["last"]
        self._table = {int(k): v for k, v in header["table"].items()}
        # Two classes: re checks a class of BMP code points against a bitmap, one with astral ones range by range.
        self._clustering = re.compile(f"[{header['unsafe_bmp']}]")
        self._clustering_astral: re.Pattern[str] | None = None  # made for the first text with an astral code point
        self._specials = header["specials"]
        self._source = source
        self._fallback = None
        self._fallback_lock = threading.Lock()
        self._words: dict[str, list[int]] = {}

    def no_truncation(self) -> None:
        pass

    def no_padding(self) -> None:
        pass

    def get_vocab_size(self) -> int:
        return self._count

    def id_to_token(self, token_id: int) -> str | None:
        if not 0 <= token_id < self._count:
            return None
        offsets = self._tables.offsets
        return self._tables.mapped[offsets[token_id]:offsets[token_id + 1]].decode("utf-8")

    def encode(self, text: str) -> Encoding:
        if self.needs_tokenizers(text):
            return Encoding(self._tokenizers().encode(text).ids)
        return Encoding(self._ids_of(text))

    def needs_tokenizers(self, text: str) -> bool:
        """Whether `text` spells a special token or holds a code point that may join a grapheme cluster."""
        if any(special in text for special in self._specials) or self._clustering.search(text) is not None:
            return True
        if text.isascii() or max(text) <= "\uffff":
            return False
        if self._clustering_astral is None:
            self._clustering_astral = re.compile(f"[{self._tables.header['unsafe_astral']}]")
        return self._clustering_astral.search(text) is not None

    def encode_batch(self, texts: Sequence[str]) -> list[Encoding]:
        return [self.encode(text) for text in texts]

    def _tokenizers(self):
        with self._fallback_lock:
            if self._fallback is None:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._source))
                tokenizer.no_truncation()
                tokenizer.no_padding()
                self._fallback = tokenizer
        return self._fallback

    def _ids_of(self, text: str) -> list[int]:
        normalized = _SPACES.sub(" ", text.translate(self._table)).replace(" ", "▁")
        ids = list(self._first)
        if normalized:
            if not normalized.startswith("▁"):
                normalized = "▁" + normalized
            words = self._words
            for word in _WORDS.findall(normalized):
                cut = words.get(word)
                if cut is None:
                    cut = self._viterbi(word)
                    if len(words) >= WORDS_CACHED:
                        words.clear()
                    words[word] = cut
                ids.extend(cut)
        ids.extend(self._last)
        return ids

    def _viterbi(self, word: str) -> list[int]:
        """tokenizers' Unigram encode_optimized, on code points instead of bytes (the same cuts).
        Each candidate is looked up by the CRC-32 of its UTF-8 bytes (see Tables)."""
        size = len(word)
        best = [0.0] * (size + 1)
        starts: list[int] = [-1] * (size + 1)
        token: list[int] = [0] * (size + 1)
        tables = self._tables
        scores, longest, slots, hashes, offsets, mapped, prefixes = (
            tables.scores, tables.longest, tables.slots, tables.hashes, tables.offsets, tables.mapped, tables.prefixes)
        mask, prefix_mask, unk, unk_score = self._mask, self._prefix_mask, self._unk, self._unk_score
        encoded = word.encode("utf-8", "surrogatepass")  # a lone surrogate's bytes match no piece
        at_byte: Sequence[int] = range(size + 1)
        if len(encoded) != size:
            at_byte = [0] * (size + 1)
            for i, char in enumerate(word):
                at_byte[i + 1] = at_byte[i] + (1 if char < "\x80" else 2 if char < "\u0800" else 3
                                               if char < "\U00010000" else 4)
        for start in range(size):
            here = best[start]
            single = False
            begin = at_byte[start]
            for end in range(start + 1, min(size, start + longest[ord(word[start])]) + 1):
                piece = encoded[begin:at_byte[end]]
                crc = crc32(piece)
                bit = crc & prefix_mask
                if not prefixes[bit >> 3] & (1 << (bit & 7)):
                    break  # no piece begins with this candidate, so none with a longer one
                slot = crc & mask
                while found := slots[slot]:
                    found -= 1
                    if hashes[slot] == crc and mapped[offsets[found]:offsets[found + 1]] == piece:
                        break
                    slot = (slot + 1) & mask
                else:
                    continue
                score = scores[found] + here
                if starts[end] < 0 or score > best[end]:
                    best[end], starts[end], token[end] = score, start, found
                if end == start + 1:
                    single = True
            if not single:
                score = unk_score + here
                if starts[start + 1] < 0 or score > best[start + 1]:
                    best[start + 1], starts[start + 1], token[start + 1] = score, start, unk
        cut: list[int] = []
        end = size
        while end > 0:
            if token[end] != unk or not cut or cut[-1] != unk:  # consecutive unknowns fuse into one
                cut.append(token[end])
            end = starts[end]
        cut.reverse()
        return cut


@dataclass(frozen=True)
class Tables:
    """A cache file mapped into memory: its header (the small tables, as JSON) and typed views of its
    arrays, so that loading reads no more than the header and a lookup reads only the pages it
    touches (shared between processes).

    The file: MAGIC, then FORMAT and the header's length (u32 each), the header, zeros up to a
    multiple of 8, then the arrays of ARRAYS in that order, little-endian, then every piece's UTF-8
    bytes in id order. A piece is found by the CRC-32 of its bytes: slot `crc & (slots - 1)`, or the
    next ones (linear probing) up to an empty one. `prefixes` is a bit set: bit `crc & (prefix_bits - 1)`
    is set for the CRC-32 of every piece's every prefix (whole code points, the piece itself included),
    so a clear bit proves that no piece begins with those bytes. A pipeline this module does not
    repeat is a header {"unigram": false} alone."""

    header: dict
    scores: memoryview  # f64 per piece
    offsets: memoryview  # u32 per piece + 1: piece i's bytes are mapped[offsets[i]:offsets[i + 1]]
    slots: memoryview  # u32 per slot: piece id + 1, or 0 when empty
    hashes: memoryview  # u32 per slot: the CRC-32 of the slot's piece
    longest: memoryview  # u8 per code point: the longest piece it begins, in code points
    prefixes: memoryview  # u8 per 8 bits of the prefix bit set
    mapped: mmap.mmap


#: (name, struct code) of each array after the header; the counts are the header's.
ARRAYS = (("scores", "d"), ("offsets", "I"), ("slots", "I"), ("hashes", "I"), ("longest", "B"), ("prefixes", "B"))
CODE_POINTS = 0x110000
_PREFIX = struct.Struct("<II")
_U32 = struct.Struct("<I")


def _counts(header: dict) -> tuple[int, ...]:
    pieces, slots = header["pieces"], header["slots"]
    return pieces, pieces + 1, slots, slots, CODE_POINTS, header["prefix_bits"] // 8


def _aligned(at: int) -> int:
    return -(-at // 8) * 8


def cached(tokenizer_path: Path, cache_dir: Path) -> UnigramTokenizer | None:
    """The Python tokenizer for this tokenizer.json, its tables made once into `cache_dir`; None
    when the file's pipeline is another one (or the cache cannot be written): use `tokenizers`."""
    try:
        stat = tokenizer_path.stat()
    except OSError:
        return None
    identity = (f"{FORMAT}\0{unicodedata.unidata_version}\0{tokenizer_path.resolve()}\0{stat.st_size}\0"
                f"{stat.st_mtime_ns}")
    target = cache_dir / CACHE_DIR / (hashlib.sha256(identity.encode()).hexdigest()[:32] + SUFFIX)
    try:
        tables = mapped(target)
    except (OSError, ValueError, KeyError, TypeError, struct.error):  # none yet, or not whole: made (again)
        try:
            made = encoded(_tables(json.loads(tokenizer_path.read_text(encoding="utf-8"))))
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, lambda file: file.write(made))
            _drop_older(target.parent)
            tables = mapped(target)
        except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
            log.info("tokenizer %s kept for `tokenizers` (%s)", tokenizer_path, exc)
            return None
    if tables is None:
        return None
    return UnigramTokenizer(tables, tokenizer_path)


def _drop_older(folder: Path) -> None:
    """Remove the tables of format 2 and before (one JSON file each), which this code never reads."""
    for older in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            older.unlink()


def mapped(path: Path) -> Tables | None:
    """The tables in the cache file `path`, memory-mapped; None for a pipeline kept for `tokenizers`.
    ValueError for a file that is not a whole cache file of this FORMAT (unmapped again)."""
    with open_made(path) as file:
        whole = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)  # ValueError when empty
    try:
        header, at = _checked(whole)
    except (ValueError, KeyError, TypeError, struct.error):
        whole.close()  # a mapped file cannot be replaced on Windows
        raise
    if header is None:
        whole.close()
        return None
    view = memoryview(whole)
    arrays: dict[str, memoryview] = {}
    for (name, code), count in zip(ARRAYS, _counts(header), strict=True):
        end = at + count * struct.calcsize(code)
        arrays[name] = view[at:end].cast(code)  # type: ignore[call-overload]  # one of ARRAYS' codes
        at = end
    return Tables(header, mapped=whole, **arrays)


def _checked(whole: mmap.mmap) -> tuple[dict | None, int]:
    """The header of a cache file and where its arrays start; the header None for a pipeline kept for
    `tokenizers`. ValueError unless the file is whole: its pieces' bytes end where the file does."""
    if whole[:len(MAGIC)] != MAGIC:
        raise ValueError("not a tokenizer cache file")
    version, size = _PREFIX.unpack_from(whole, len(MAGIC))
    if version != FORMAT:
        raise ValueError(f"tokenizer cache format {version}, not {FORMAT}")
    at = len(MAGIC) + _PREFIX.size
    header = json.loads(whole[at:at + size].decode("utf-8"))
    if not header.get("unigram"):
        return None, at
    at = _aligned(at + size)
    counts = _counts(header)
    blob = at + sum(count * struct.calcsize(code) for (_, code), count in zip(ARRAYS, counts, strict=True))
    offsets = at + counts[0] * struct.calcsize("d")  # the offsets follow the scores
    if len(whole) < blob or _U32.unpack_from(whole, offsets)[0] != blob or _U32.unpack_from(
            whole, offsets + 4 * header["pieces"])[0] != len(whole):
        raise ValueError("a truncated tokenizer cache file")
    return header, at


def encoded(tables: dict) -> bytes:
    """The cache file holding `tables` (what _tables returns)."""
    header = {k: v for k, v in tables.items() if k not in ("pieces", "scores", "longest")}
    if not tables["unigram"]:
        return _prefixed(header)
    pieces = [piece.encode("utf-8") for piece in tables["pieces"]]
    slots = 1 << max(1, (2 * len(pieces) - 1).bit_length())  # at most half full
    piece_prefixes = {piece[:end] for piece in tables["pieces"] for end in range(1, len(piece) + 1)}
    prefix_bits = 1 << max(3, (PREFIX_BITS_PER_PREFIX * len(piece_prefixes) - 1).bit_length())
    header |= {"pieces": len(pieces), "slots": slots, "prefix_bits": prefix_bits}
    prefix = _prefixed(header)
    at = len(prefix) + sum(count * struct.calcsize(code) for (_, code), count in zip(ARRAYS, _counts(header),
                                                                                      strict=True))
    offsets = array("I", [at])
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    filled, hashes = array("I", bytes(4 * slots)), array("I", bytes(4 * slots))
    for i, piece in enumerate(pieces):
        crc = crc32(piece)
        slot = crc & (slots - 1)
        while filled[slot]:
            slot = (slot + 1) & (slots - 1)
        filled[slot], hashes[slot] = i + 1, crc
    longest = bytearray(CODE_POINTS)
    for first, length in tables["longest"].items():
        longest[ord(first)] = length
    prefixes = bytearray(prefix_bits // 8)
    for piece_prefix in piece_prefixes:
        bit = crc32(piece_prefix.encode("utf-8")) & (prefix_bits - 1)
        prefixes[bit >> 3] |= 1 << (bit & 7)
    parts = [prefix, array("d", tables["scores"]).tobytes(), offsets.tobytes(), filled.tobytes(), hashes.tobytes(),
             bytes(longest), bytes(prefixes), *pieces]
    return b"".join(parts)


def _prefixed(header: dict) -> bytes:
    text = json.dumps(header, ensure_ascii=False).encode("utf-8")
    prefix = MAGIC + _PREFIX.pack(FORMAT, len(text)) + text
    return prefix + bytes(_aligned(len(prefix)) - len(prefix))


def _tables(spec: dict) -> dict:
    """What UnigramTokenizer needs from a tokenizer.json, or {"unigram": False} for any pipeline
    this module does not repeat exactly."""
    model, normalizer, pre, post = (spec.get(k) or {} for k in ("model", "normalizer", "pre_tokenizer",
                                                                 "post_processor"))
    steps = normalizer.get("normalizers", []) if normalizer.get("type") == "Sequence" else [normalizer]
    expected_steps = [s.get("type") for s in steps] == ["Precompiled", "Replace"] and steps[1] == {
        "type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    template = post.get("single", []) if post.get("type") == "TemplateProcessing" else []
    added = spec.get("added_tokens", [])
    if not (model.get("type") == "Unigram" and not model.get("byte_fallback") and model.get("unk_id") is not None
            and expected_steps and pre.get("type") == "Metaspace" and pre.get("replacement") == "▁"
            and pre.get("prepend_scheme") == "always" and pre.get("split") is True
            and [next(iter(t)) for t in template] == ["SpecialToken", "Sequence", "SpecialToken"]
            and all(a.get("special") and not a.get("normalized") for a in added)):
        return {"unigram": False}
    pieces = [piece for piece, _ in model["vocab"]]
    ids = {piece: i for i, piece in enumerate(pieces)}
    if len(ids) != len(pieces) or sys.byteorder != "little":
        return {"unigram": False}
    specials = post.get("special_tokens", {})
    first, last = (specials[t["SpecialToken"]["id"]]["ids"] for t in (template[0], template[2]))
    if any(i not in range(len(pieces)) for i in first + last) or any(ids.get(a["content"]) != a["id"] for a in added):
        return {"unigram": False}
    longest: dict[str, int] = {}
    for piece in pieces:
        if piece and len(piece) > longest.get(piece[0], 0):
            longest[piece[0]] = len(piece)
    if any(length > 0xFF or 0xD800 <= ord(first_char) <= 0xDFFF for first_char, length in longest.items()):
        return {"unigram": False}
    scores = [float(score) for _, score in model["vocab"]]
    return {
        "unigram": True, "pieces": pieces, "scores": scores, "unk_id": model["unk_id"],
        "unk_score": min(scores) - UNK_PENALTY, "first": first, "last": last, "longest": longest,
        "table": _one_point_table(base64.b64decode(steps[0]["precompiled_charsmap"])),
        "unsafe_bmp": _cluster_class(0, 0x10000), "unsafe_astral": _cluster_class(0x10000, 0x110000),
        "specials": [a["content"] for a in added],
    }


def _one_point_table(charsmap: bytes) -> dict[str, str]:
    """{code point: replacement} of every single-code-point key of sentencepiece's precompiled
    charsmap: a darts-clone double array (u32 units) after its u32 byte size, then the
    replacements, NUL-terminated."""
    (size,) = struct.unpack_from("<I", charsmap, 0)
    units = struct.unpack_from(f"<{size // 4}I", charsmap, 4)
    replacements = charsmap[4 + size:]

    def offset(unit: int) -> int:
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    def child(base: int, byte: int) -> int | None:
        at = base ^ byte
        return at if at < len(units) and units[at] & ((1 << 31) | 0xFF) == byte else None

    table: dict[str, str] = {}
    root = offset(units[0])
    # Walk the UTF-8 encodings only: a lead byte, then as many continuation bytes as it announces.
    stack = [(lead, 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4, bytes([lead]))
             for lead in (*range(0x01, 0x80), *range(0xC2, 0xF5))]
    bases: dict[bytes, int] = {}
    while stack:
        byte, need, key = stack.pop()
        parent = root if len(key) == 1 else bases[key[:-1]]
        at = child(parent, byte)
        if at is None:
            continue
        unit = units[at]
        base = at ^ offset(unit)
        if len(key) == need:
            if (unit >> 8) & 1:  # a leaf: the key is complete
                start = units[base] & ((1 << 31) - 1)
                end = replacements.index(b"\0", start)
                table[str(ord(key.decode("utf-8")))] = replacements[start:end].decode("utf-8")
            continue
        bases[key] = base
        stack.extend((cont, need, key + bytes([cont])) for cont in range(0x80, 0xC0))
    return table


def _cluster_class(low: int, high: int) -> str:
    """A regex class of the code points that can join the one before into a grapheme cluster
    (UAX #29: Extend, ZWJ, SpacingMark, Prepend, Hangul jamo, regional indicators, CR) or are
    unassigned in this Python's Unicode, from `low` up to `high`; a text holding one goes to `tokenizers`."""
    ranges = [(0x0D, 0x0D), (0x200C, 0x200D), (0xFF9E, 0xFF9F), (0x0E33, 0x0E33), (0x0EB3, 0x0EB3),
              (0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2),
              (0x0D4E, 0x0D4E), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x111C2, 0x111C3), (0x1193F, 0x1193F),
              (0x11941, 0x11941), (0x11A3A, 0x11A3A), (0x11A84, 0x11A89), (0x11D46, 0x11D46), (0x11F02, 0x11F02),
              (0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF), (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF),
              (0xE0000, 0xE0FFF)]
    marked = [cp for cp in range(low, high) if not 0xD800 <= cp <= 0xDFFF
              and unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me", "Cn")]
    points = sorted({cp for a, b in ranges for cp in range(max(a, low), min(b + 1, high))} | set(marked))
    spans: list[list[int]] = []
    for cp in points:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in spans)
