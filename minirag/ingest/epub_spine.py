"""An EPUB's spine is checked before its chapters are read: not too long, and none encrypted.

epub_book.py reads each chapter file once however often the spine names it (epubcheck calls
a repeat an error, OPF-034 and OPF-074; a 25 kB EPUB naming one 20 kB chapter 5,000 times
made markitdown's converter read 100 MB). A spine is still bounded: 200,000 entries naming
parts the archive lacks, beside 5,000 members (a 3 MB file), took 45 s of CPU to resolve.
The spine is resolved as epub_book.py resolves it (META-INF/container.xml's first rootfile,
the manifest's hrefs relative to it).

A book under DRM (Adobe ADEPT, Readium LCP) lists its encrypted parts in
META-INF/encryption.xml; their ciphertext would be read as HTML. Fonts are often obfuscated
(IDPF's and Adobe's algorithms), which leaves the text readable.
"""

from __future__ import annotations

import posixpath
import zipfile
from urllib.parse import unquote
from xml.parsers import expat

from minirag.errors import ConversionFailed
from minirag.ingest.epub_book import member_of
from minirag.ingest.zip_xml import feed, parser_for

_CIPHER = "http://www.w3.org/2001/04/xmlenc#"
_FONT_OBFUSCATION = frozenset({"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"})


def check_spine(archive: zipfile.ZipFile, name: str, max_entries: int) -> None:
    """ConversionFailed when the spine lists more than `max_entries` parts (an archive holds no more
    members) or reads any encrypted."""
    reads = _spine(archive, name)
    if len(reads) > max_entries:
        raise ConversionFailed(f"{name}: refused: its spine lists {len(reads):,} entries, more than the "
                               f"{max_entries:,} parts an archive may hold")
    locked = _encrypted(archive, name).intersection(reads)
    if locked:
        more = f" and {len(locked) - 1} more chapters" if len(locked) > 1 else ""
        raise ConversionFailed(f"{name}: encrypted (DRM): {min(locked)[:100]}{more} cannot be read")


def _spine(archive: zipfile.ZipFile, name: str) -> list[str]:
    """The archive members the spine names, in order; [] where reading the book would fail first."""
    rootfiles = _elements(archive, "META-INF/container.xml", name, {"rootfile"})
    if not rootfiles:
        return []
    package = rootfiles[0][1].get("full-path", "")
    manifest, spine = {}, []
    for tag, attributes in _elements(archive, package, name, {"item", "itemref"}):
        if tag == "item":
            manifest[attributes.get("id", "")] = attributes.get("href", "")
        else:
            spine.append(attributes.get("idref", ""))
    base, names = posixpath.dirname(package), set(archive.namelist())
    return [member_of(manifest[idref], base, names) or manifest[idref] for idref in spine if idref in manifest]


def _encrypted(archive: zipfile.ZipFile, name: str) -> set[str]:
    """The members META-INF/encryption.xml names as encrypted, fonts obfuscated for embedding aside."""
    locked, algorithm = set(), ""
    for tag, attributes in _elements(archive, "META-INF/encryption.xml", name,
                                     {f"{_CIPHER} EncryptionMethod", f"{_CIPHER} CipherReference"}, namespaces=True):
        if tag.endswith("EncryptionMethod"):
            algorithm = attributes.get("Algorithm", "")
        elif algorithm not in _FONT_OBFUSCATION:
            locked.add(posixpath.normpath(unquote(attributes.get("URI", ""))))
    return locked


def _elements(archive: zipfile.ZipFile, part: str, name: str, tags: set[str],
              namespaces: bool = False) -> list[tuple[str, dict[str, str]]]:
    """(tag, attributes) of the elements named `tags` in `part`, in order (tags as zip_xml.parser_for
    names them); [] when it is missing or no XML (markitdown then fails with its own reason)."""
    found: list[tuple[str, dict[str, str]]] = []
    try:
        member = archive.getinfo(part)
    except KeyError:
        return []
    parser = parser_for(name, member, namespaces=namespaces)
    parser.StartElementHandler = lambda tag, attributes: found.append((tag, attributes)) if tag in tags else None
    try:
        feed(archive, member, parser)
    except (expat.ExpatError, zipfile.BadZipFile, OSError, ValueError, EOFError):
        return []
    return found
