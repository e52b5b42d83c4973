"""An XML part of a zip-based document, streamed through expat before its parser sees it.

The checks that read a document's own XML (sheet_limits.py, epub_spine.py) read each part
in pieces, never inflated whole, and refuse one that declares entities, as the document
parsers' defusedxml does (billion laughs). `check_prologs` looks at the prolog alone, where
entities are declared, of every XML part of a document no check reads whole (DOCX);
`check_depths` reads the parts a DOCX's pre-processing parses for how deep they nest.
"""

from __future__ import annotations

import contextlib
import io
import zipfile
import zlib
from xml.parsers import expat

from lxml import etree

from minirag.errors import ConversionFailed

_PIECE = 256 * 1024
# Elements one XML part may nest: libxml2's own limit without XML_PARSE_HUGE, so the lxml-based
# readers refuse a deeper part already. markitdown's DOCX pre-processing (BeautifulSoup's lxml-xml
# builder) looks each end tag's namespace up through every open element: 20,000 deep took 25 s.
MAX_XML_DEPTH = 256


def parser_for(name: str, member: zipfile.ZipInfo, *, namespaces: bool = True) -> expat.XMLParserType:
    """An expat parser whose entity declarations refuse the document `name`; its tags are
    `namespace local` with `namespaces`, else as written (`dc:title`, as minidom names them)."""
    def refuse(*_args) -> None:
        raise ConversionFailed(f"{name}: refused: {member.filename[:100]} declares XML entities")

    parser = expat.ParserCreate(namespace_separator=" ") if namespaces else expat.ParserCreate()
    parser.EntityDeclHandler = refuse
    return parser


def feed(archive: zipfile.ZipFile, member: zipfile.ZipInfo, parser: expat.XMLParserType) -> None:
    """Parse `member` whole with `parser`, a piece at a time; a damaged deflate stream is a
    BadZipFile, as a damaged CRC is (zipfile lets zlib's own error through)."""
    with archive.open(member) as stream:
        while True:
            try:
                piece = stream.read(_PIECE)
            except zlib.error as exc:
                raise zipfile.BadZipFile(f"{member.filename[:100]}: {exc}") from None
            if not piece:
                break
            parser.Parse(piece, False)
        parser.Parse(b"", True)


class _Root(Exception):
    """The root element began: the prolog, the only place for entity declarations, is over."""


def check_prologs(archive: zipfile.ZipFile, name: str) -> None:
    """ConversionFailed when an XML part declares entities (its parser would fail on it, or expand it)."""
    def root(*_args) -> None:
        raise _Root

    for member in archive.infolist():
        if not member.filename.endswith((".xml", ".rels")):
            continue
        parser = parser_for(name, member)
        parser.StartElementHandler = root
        # Past the prolog, or XML or a member that goes wrong: the parser's own reading says what else is.
        with contextlib.suppress(_Root, expat.ExpatError, zipfile.BadZipFile, OSError, ValueError, EOFError):
            feed(archive, member, parser)


class _Deep(Exception):
    """An element began past MAX_XML_DEPTH."""


def check_depths(archive: zipfile.ZipFile, name: str, members: tuple[str, ...]) -> None:
    """ConversionFailed when one of `members` (those present) nests elements past MAX_XML_DEPTH,
    streamed; damage is left to the readers to name."""
    for member in members:
        try:
            info = archive.getinfo(member)
        except KeyError:
            continue
        depth = 0

        def start(*_args) -> None:
            nonlocal depth
            depth += 1
            if depth > MAX_XML_DEPTH:
                raise _Deep

        def end(*_args) -> None:
            nonlocal depth
            depth -= 1

        parser = parser_for(name, info)
        parser.StartElementHandler, parser.EndElementHandler = start, end
        try:
            feed(archive, info, parser)
        except _Deep:
            raise ConversionFailed(f"{name}: refused: {member[:100]} nests its elements more than "
                                   f"{MAX_XML_DEPTH} deep") from None
        except (expat.ExpatError, zipfile.BadZipFile, OSError, ValueError, EOFError):
            pass


def parsed(data: bytes):
    """An XML part parsed by lxml without entities, DTDs or the network."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.fromstring(data, parser)


def xml_part(archive: zipfile.ZipFile, member: str):
    """A part of `archive` parsed as `parsed` does; KeyError where it is absent."""
    return parsed(archive.read(member))


def with_parts(archive: zipfile.ZipFile, rewritten: dict[str, etree._Element]) -> bytes:
    """The archive's bytes with the parsed parts `rewritten` (member name -> root element) in place
    of their own, every other member copied as it is."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as copy:
        for info in archive.infolist():
            root = rewritten.get(info.filename)
            copy.writestr(info.filename, archive.read(info) if root is None else
                          etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))
    return out.getvalue()
