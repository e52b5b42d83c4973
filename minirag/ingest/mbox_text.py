"""Mailboxes (.mbox: a Thunderbird folder, a Gmail or Apple Mail export) -> the messages in them.

A mailbox is its messages one after another, each opened by a `From ` line (RFC 4155). A line in a
message's body that began with `From ` was written with a `>` before it (and one that began with
`>From `, with one more, by the writers that quote every such line), so one `>` comes off again. A
separator is a `From ` line at the start of the file or after an empty line: every writer leaves one
between messages, and a body line that opens with `From ` unquoted (an old writer's) then stays in
its message as long as the line above it is not empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from minirag.errors import ConversionFailed

_SEPARATOR = re.compile(rb"(?:\A|(?<=\n\n)|(?<=\n\r\n))From [^\n]*\n")
_QUOTED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)


def mailbox_messages(data: bytes, name: str) -> Iterator[bytes]:
    """Each message of the mailbox `data`, as the bytes of a saved message (.eml)."""
    data = _from_first_line(data)
    if not data.startswith(b"From "):
        raise ConversionFailed(f"{name}: not an mbox mailbox (it does not open with a `From ` line)")
    previous = None
    for separator in _SEPARATOR.finditer(data):
        if previous is not None:
            yield _QUOTED_FROM.sub(rb"\1", data[previous.end():separator.start()])
        previous = separator
    if previous is not None:
        yield _QUOTED_FROM.sub(rb"\1", data[previous.end():])


def count_messages(data: bytes) -> int:
    """How many messages mailbox_messages gives."""
    return sum(1 for _ in _SEPARATOR.finditer(_from_first_line(data)))


def _from_first_line(data: bytes) -> bytes:
    """The mailbox without a byte-order mark or blank lines before its first line, as mail readers skip."""
    return data.removeprefix(b"\xef\xbb\xbf").lstrip(b"\r\n")
