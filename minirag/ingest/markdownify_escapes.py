"""markdownify's escapes that CommonMark reads as text anyway, taken back out.

markdownify escapes every underscore of the text it is given; one between two letters or digits
(`parse_float`, `max_wal_size`) opens no emphasis in CommonMark, so its backslash is only noise
in hits, neighbours and read_file. One that starts or ends a word, or is doubled, could open
emphasis and stays escaped.
"""

from __future__ import annotations

import re

_INNER_UNDERSCORE = re.compile(r"(?<=[^\W_])\\_(?=[^\W_])")


def inner_underscores_as_written(markdown: str) -> str:
    """`markdown` with each `\\_` between two letters or digits written as `_`."""
    return _INNER_UNDERSCORE.sub("_", markdown)
