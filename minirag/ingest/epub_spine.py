"""An EPUB's spine is checked before its chapters are converted: each may be read once, and
none may be encrypted.

markitdown converts every spine entry it finds in the archive, in order, through its
HTML converter, and nothing stops a spine from naming one chapter thousands of times
(by one manifest id or many ids for the same file), which epubcheck calls an error
(OPF-034, OPF-074). A 25 kB EPUB naming one 20 kB chapter 5,000 times made 100 MB of
HTML to convert; 200,000 entries naming parts the archive lacks, beside 5,000 members
(a 3 MB file), took 45 s of CPU. The spine is resolved here as markitdown resolves it
(META-INF/container.xml's first rootfile, the manifest's hrefs relative to it).

A book under DRM (Adobe ADEPT, Readium LCP) lists its encrypted parts in
META-INF/encryption.xml; markitdown would read their ciphertext as HTML. Fonts are
often obfuscated (IDPF's and Adobe's algorithms), which leaves the text readable.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections import Counter
from urllib.parse import unquote
from xml.parsers import expat

from minirag.errors import ConversionFailed
from minirag.ingest.zip_xml import feed, parser_for

_CIPHER = "http://www.w3.org/2001/04/xmlenc#"
_FONT_OBFUSCATION = frozenset({"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"})
# Bytes repeated spine entries may add to what the chapters hold once: no more than the
# chapters themselves (a sloppy book listing a few twice), or this much for a short book.
REPEAT_ALLOWANCE = 1024 * 1024


def check_spine(archive: zipfile.ZipFile, name: str, max_entries: int) -> None:
    """ConversionFailed when the spine lists more than `max_entries` parts (an archive holds no more
    members: markitdown lists the archive's names again for each entry), reads its chapters over and
    over, or reads any encrypted."""
    reads = _spine(archive, name)
    if len(reads) > max_entries:
        raise ConversionFailed(f"{name}: refused: its spine lists {len(reads):,} entries, more than the "
                               f"{max_entries:,} parts an archive may hold")
    locked = _encrypted(archive, name).intersection(reads)
    if locked:
        more = f" and {len(locked) - 1} more chapters" if len(locked) > 1 else ""
        raise ConversionFailed(f"{name}: encrypted (DRM): {min(locked)[:100]}{more} cannot be read")
    sizes = {member.filename: member.file_size for member in archive.infolist()}
    counts = Counter(part for part in reads if part in sizes)
    once = sum(sizes[part] for part in counts)
    total = sum(sizes[part] * count for part, count in counts.items())
    if total - once > max(once, REPEAT_ALLOWANCE):
        part, count = counts.most_common(1)[0]
        raise ConversionFailed(f"{name}: refused: its spine reads {part[:100]} {count} times ({total:,} bytes of "
                               f"chapters that hold {once:,}); an EPUB reads each chapter once")


def _spine(archive: zipfile.ZipFile, name: str) -> list[str]:
    """The archive members markitdown would read, in spine order; [] where it would fail first."""
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
    return [_resolve(manifest[idref], base, names) for idref in spine if idref in manifest]


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


def _resolve(href: str, base: str, names: set[str]) -> str:
    candidates = [posixpath.normpath(posixpath.join(base, h) if base else h) for h in (unquote(href), href)]
    return next((c for c in candidates if c in names), candidates[0])


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
