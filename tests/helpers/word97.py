"""Word 97 (.doc) files built in tests: a WordDocument stream holding a FIB and 8-bit text, and a
1Table stream, inside a compound file (compound_files.py); for shapes no word processor writes."""

from __future__ import annotations

import struct

from helpers.compound_files import Node, compound_file

TEXT_AT = 1024  # where the text starts in the WordDocument stream
CLX, PLCF_AND_TXT, PLCF_HDD = 33, 5, 11  # FibRgFcLcb97 pairs
PLCF_FND_REF, PLCF_FND_TXT, PLCF_END_REF, PLCF_END_TXT = 2, 3, 46, 47  # the notes' references and texts
TEXT, FOOTNOTES, HEADERS, COMMENTS, ENDNOTES = 0, 1, 2, 4, 5  # stories, as FibRgLw97 counts their characters


def fib(counts: dict[int, int], pairs: dict[int, tuple[int, int]]) -> bytearray:
    """A FIB (1Table) with each story's character count and each pair's (offset, length), padded
    to TEXT_AT bytes."""
    word = bytearray(TEXT_AT)
    struct.pack_into("<HH", word, 0, 0xA5EC, 0x00C1)
    struct.pack_into("<H", word, 0x0A, 0x0200)  # fWhichTblStm: 1Table
    struct.pack_into("<H", word, 32, 14)  # csw
    struct.pack_into("<H", word, 62, 22)  # cslw
    numbers = [0] * 22
    for story, count in counts.items():
        numbers[3 + story] = count
    struct.pack_into("<22I", word, 64, *numbers)
    struct.pack_into("<H", word, 152, 93)  # cbRgFcLcb
    pair_numbers = [0] * 186
    for index, (offset, length) in pairs.items():
        pair_numbers[2 * index], pair_numbers[2 * index + 1] = offset, length
    struct.pack_into("<186I", word, 154, *pair_numbers)
    return word


def clx(cps: list[int], fcs: list[int]) -> bytes:
    """A piece table of 8-bit pieces: CPs (one more than pieces) and each piece's byte offset."""
    plc = struct.pack(f"<{len(cps)}I", *cps)
    for fc in fcs:
        plc += struct.pack("<HIH", 0, (fc * 2) | 0x40000000, 0)
    return b"\x02" + struct.pack("<I", len(plc)) + plc


def note_references(cps: list[int], numbered: list[bool]) -> bytes:
    """A PlcffndRef or PlcfendRef: each reference's CP in the main text, then the last CP (which
    readers ignore), then each note's FRD: 1 where numbered by Word (its mark 0x02), 0 a custom mark."""
    ends = [*cps, cps[-1] + 1 if cps else 0]
    return struct.pack(f"<{len(ends)}I{len(numbered)}h", *ends, *(int(flag) for flag in numbered))


def notes(texts: list[bytes], numbered: list[bool] | None = None) -> tuple[bytes, list[int]]:
    """A note story as Word writes one: each note its mark (0x02, or its custom mark, the first
    character of its text where `numbered` says False) and its paragraphs, then the story's closing
    paragraph mark; and its PlcffndTxt's CPs (each note's start, its end, the story's end)."""
    numbered = numbered if numbered is not None else [True] * len(texts)
    story, cps = b"", []
    for text, auto in zip(texts, numbered, strict=True):
        cps.append(len(story))
        story += (b"\x02" if auto else b"") + text
    cps += [len(story), len(story) + 1]
    return story + b"\r", cps


def document(stories: dict[int, bytes], plcs: dict[int, list[int]] | None = None,
             tables: dict[int, bytes] | None = None) -> bytes:
    """A .doc of one piece holding `stories` (8-bit text, in story order) and, in its table
    stream after the piece table, each PLC of bare CPs by its pair, and each other structure of
    `tables` (its bytes) by its pair."""
    text = b"".join(stories[story] for story in sorted(stories))
    table = clx([0, len(text)], [TEXT_AT])
    pairs = {CLX: (0, len(table))}
    structures = {pair: struct.pack(f"<{len(cps)}I", *cps) for pair, cps in (plcs or {}).items()}
    for pair, data in {**structures, **(tables or {})}.items():
        pairs[pair] = (len(table), len(data))
        table += data
    word = fib({story: len(data) for story, data in stories.items()}, pairs) + text
    return compound_file([Node("WordDocument", bytes(word)), Node("1Table", table)])
