"""What a spreadsheet's number format shows of a value, as far as the readers need to know it."""

from __future__ import annotations

import re

_SECTION_BREAK = re.compile(r'"[^"]*"|\\.|;')  # a quoted literal and an escaped character hold no break


def hidden_by_format(value, number_format: str) -> bool:
    """Whether the number format's section for the value is empty, so Excel shows nothing: `;;;`
    is Excel's own way to hide a cell's contents (`0;;` hides the negative numbers and zeros).
    A format's sections are for positive, negative and zero numbers and for text; with two, the
    first is for zero too; one is for every number; text has its own only in a fourth."""
    if ";" not in number_format:
        return False
    sections, start = [], 0
    for part in _SECTION_BREAK.finditer(number_format):
        if part.group() == ";":
            sections.append(number_format[start:part.start()])
            start = part.end()
    sections.append(number_format[start:])
    if isinstance(value, str):
        return len(sections) >= 4 and not sections[3].strip()
    if isinstance(value, (int, float)):
        if len(sections) == 1 or value > 0 or (value == 0 and len(sections) == 2):
            section = sections[0]
        else:
            section = sections[1] if value < 0 else sections[2]
        return not section.strip()
    return len(sections) >= 3 and not sections[0].strip() and not sections[1].strip() and not sections[2].strip()
