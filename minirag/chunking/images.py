"""Inlined pictures: markitdown writes each as a base64 `data:` image; only its alt text is kept."""

from __future__ import annotations

import re

from minirag.chunking.fences import sub_outside_code

# The alt text holds no `[` and the data runs possessively: linear in the line (see links.py).
_DATA_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\(\s*data:[^)\s]*+(?:\s+\"[^\"\n]*\")?\s*\)")


def strip_data_images(markdown: str) -> str:
    """Replace inlined `data:` images by their alt text, except inside fenced code."""
    return sub_outside_code(markdown, "data:", _DATA_IMAGE, r"\1")
