"""Where a Word 97-2003 document (.doc) cites each footnote and endnote, and which part of the note
story is that note's text ([MS-DOC] PlcffndRef and PlcffndTxt for footnotes, PlcfendRef and
PlcfendTxt for endnotes), so that doc_text.py reads each note where it is cited, as the ODT, RTF
and DOCX readers do (note_text.cited).

A reference PLC holds one CP in the main text per note (then a last CP, ignored) and a 2-byte FRD
each: 0 where the note is cited by a custom mark (the character at that CP), else numbered by Word
(its mark 0x02). The text PLC's CPs part the note story: note i is from its CP i to CP i + 1. The
tables come from the file, so each is checked whole: references that do not rise, or fall outside
the main text, or note texts outside their story, and the kind's notes are not placed at all (the
reader then keeps them after the body, as it did before).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from minirag.ingest.doc_format import Fib

PLCF_FND_REF, PLCF_FND_TXT, PLCF_END_REF, PLCF_END_TXT = 2, 3, 46, 47  # FibRgFcLcb97's pairs
# Each kind of note: its story (doc_format.STORIES) and the pairs of its reference and text PLCs.
KINDS = (("footnotes", PLCF_FND_REF, PLCF_FND_TXT), ("endnotes", PLCF_END_REF, PLCF_END_TXT))
_FRD = 2


@dataclass(frozen=True)
class Note:
    cp: int  # its reference's CP in the main text
    start: int  # its text's CPs in its story
    end: int
    custom: bool  # cited by a custom mark (the character at `cp`), not Word's number


def notes(table: bytes, fib: Fib, references_pair: int, texts_pair: int, body: int, story: int) -> list[Note] | None:
    """The notes of one kind, by the PLCs at `references_pair` and `texts_pair`, in the order they
    are cited; None where the PLCs do not fit a main text of `body` CPs and a story of `story`."""
    offset, length = fib.pair(references_pair)
    references = table[offset:offset + length]
    offset, length = fib.pair(texts_pair)
    texts = table[offset:offset + length]
    if len(references) < 4 + _FRD or (len(references) - 4) % (4 + _FRD) or len(texts) % 4:
        return None
    count = (len(references) - 4) // (4 + _FRD)
    if len(texts) // 4 < count + 1:
        return None
    cps = struct.unpack_from(f"<{count}I", references)
    kinds = struct.unpack_from(f"<{count}h", references, 4 * (count + 1))
    bounds = struct.unpack_from(f"<{count + 1}I", texts)
    found: list[Note] = []
    for index in range(count):
        cp, start, end = cps[index], bounds[index], bounds[index + 1]
        if cp >= body or (found and cp <= found[-1].cp) or not start <= end <= story:
            return None
        found.append(Note(cp, start, end, kinds[index] == 0))
    return found
