"""The keyword scheme's version, apart from keywords.py (its stemmers and word tables), so that opening an
index, which compares it with the one the FTS table was written with, imports none of them."""

#: Bumped whenever `keywords.terms` changes for the same input: the FTS table is then
#: rebuilt from the stored chunks the next time the index is opened for writing.
KEYWORD_SCHEME = 18  # 18: a link whose text holds brackets (`[[2]](os.html#x)`) is its text too
