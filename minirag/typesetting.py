"""Typesetting that is not part of any word: the soft hyphen (U+00AD, an invisible break hint) and the
Latin ligatures (U+FB00-FB06) PDF text layers hold.

Conversion takes them out of documents (ingest/text_repair.py, ingest/pdf_structure.py); the keyword
text folds them too (keywords.py), so a query pasted from a PDF viewer ("signiﬁcant") matches, and so
do chunks stored before that repair. A module of its own so that the converter workers, which need
only this table, do not import the keyword side (its stemmers, numpy).
"""

TYPESETTING = {0x00AD: None, 0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl",
               0xFB05: "st", 0xFB06: "st"}
