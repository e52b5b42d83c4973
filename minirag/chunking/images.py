"""Inlined pictures: markitdown writes each as a base64 `data:` image; only its alt text is kept."""

from __future__ import annotations

import re

from minirag.chunking.fences import sub_outside_code

# Neither the alt text nor the data holds a bracket, so an attempt from a `![` stops at the next
# one: linear in the line (a data run that could cross later pictures made `![a](data:` * n
# quadratic; see links.py). A base64 or percent-encoded address holds no bracket.
_DATA_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\(\s*data:[^)\s\[\]]*+(?:\s+\"[^\"\n]*\")?\s*\)")


def strip_data_images(markdown: str) -> str:
    """Replace inlined `data:` images by their alt text, except inside fenced code."""
    return sub_outside_code(markdown, "data:", _DATA_IMAGE, r"\1")
