"""The most text one document may give, after conversion: far more than any book, far less than
what stalls the chunker (docs/documents.md#what-the-limits-were-measured-against). convert.py
refuses a document past it; readers whose text can be multiplied by references (a shared
string cited by every cell, a slide or a story listed many times) stop as soon as they pass it.
"""

MAX_TEXT_CHARS = 32 * 1024 * 1024
