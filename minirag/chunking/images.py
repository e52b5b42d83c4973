"""Inlined pictures: markitdown writes each as a base64 `data:` image; only its alt text is kept."""

from __future__ import annotations

import re

from minirag.chunking.fences import code_line_mask

_DATA_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(\s*data:[^)\s]*(?:\s+\"[^\"\n]*\")?\s*\)")


def strip_data_images(markdown: str) -> str:
    """Replace inlined `data:` images by their alt text, except inside fenced code."""
    if "data:" not in markdown:
        return markdown
    lines = markdown.split("\n")
    mask = code_line_mask(lines)
    return "\n".join(
        line if in_code or "data:" not in line else _DATA_IMAGE.sub(r"\1", line)
        for line, in_code in zip(lines, mask, strict=True)
    )
