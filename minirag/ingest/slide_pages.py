"""A presentation's slides as its pages: each slide's text on the page of its number.

The slide readers (markitdown's PPTX, ppt_text.py, odf_text.py) mark each slide with
`<!-- Slide number: N -->`. A PDF's pages are told apart by form feeds (chunking/pages.py), and
every hit, neighbour and paged read names the pages it holds; a form feed before each slide's
marker makes a slide's number its page, so a hit in a deck says which slide to open (a slide is
printed as a page). A deck whose markers do not rise (none such is known) is left as it is.
"""

from __future__ import annotations

import re

MAX_SKIPPED = 1000  # slide numbers a deck's markers may pass over (slides without text)
_MARKER = re.compile(r"^[ \t]*<!--[ \t]*Slide number:[ \t]*(\d{1,9})[ \t]*-->[ \t]*$", re.MULTILINE | re.IGNORECASE)


def slides_as_pages(markdown: str) -> str:
    """`markdown` with form feeds before its slide markers, as many as put slide N on page N."""
    if "\f" in markdown:
        return markdown  # paged already
    markers = list(_MARKER.finditer(markdown))
    numbers = [int(marker.group(1)) for marker in markers]
    if not markers or numbers[0] < 1 or any(b <= a for a, b in zip(numbers, numbers[1:], strict=False)):
        return markdown
    if numbers[-1] > len(numbers) + MAX_SKIPPED:
        return markdown  # numbers far past the slides there are: not that many blank pages
    parts: list[str] = []
    page, at = 1, 0
    for marker, number in zip(markers, numbers, strict=True):
        parts.append(markdown[at:marker.start()])
        parts.append("\f" * (number - page))
        page, at = number, marker.start()
    parts.append(markdown[at:])
    return "".join(parts)
