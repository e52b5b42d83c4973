"""An XML part of a zip-based document, streamed through expat before its parser sees it.

The checks that read a document's own XML (sheet_limits.py, epub_spine.py) read each part
in pieces, never inflated whole, and refuse one that declares entities, as the document
parsers' defusedxml does (billion laughs).
"""

from __future__ import annotations

import zipfile
from xml.parsers import expat

from minirag.errors import ConversionFailed

_PIECE = 256 * 1024


def parser_for(name: str, member: zipfile.ZipInfo, *, namespaces: bool = True) -> expat.XMLParserType:
    """An expat parser whose entity declarations refuse the document `name`; its tags are
    `namespace local` with `namespaces`, else as written (`dc:title`, as minidom names them)."""
    def refuse(*_args) -> None:
        raise ConversionFailed(f"{name}: refused: {member.filename[:100]} declares XML entities")

    parser = expat.ParserCreate(namespace_separator=" ") if namespaces else expat.ParserCreate()
    parser.EntityDeclHandler = refuse
    return parser


def feed(archive: zipfile.ZipFile, member: zipfile.ZipInfo, parser: expat.XMLParserType) -> None:
    """Parse `member` whole with `parser`, a piece at a time."""
    with archive.open(member) as stream:
        while piece := stream.read(_PIECE):
            parser.Parse(piece, False)
        parser.Parse(b"", True)
