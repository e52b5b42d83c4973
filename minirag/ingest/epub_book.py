"""An EPUB's chapters in reading order (its spine), for minirag's own HTML conversion.

markitdown's converter put each chapter through its generic HTML path, which keeps a page's
chrome: the Ubuntu Packaging Guide (a Sphinx EPUB) carried its navigation bar twice and its
copyright footer once in every one of its 17 chapters, 34 `Навигация` blocks in all, and a
block of metadata (`**Description:** unknown`) above the first. Each chapter here goes
through html_markdown.py as any HTML page does, so its chrome is left out the same way.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from collections.abc import Set
from dataclasses import dataclass
from functools import partial
from urllib.parse import unquote

from lxml import etree

from minirag.errors import ConversionFailed
from minirag.ingest.epub_contents import is_contents
from minirag.ingest.epub_metadata import book_metadata
from minirag.ingest.zip_damage import damage_words
from minirag.ingest.zip_prefix import inflated_prefix

_CONTAINER = "META-INF/container.xml"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CONTAINER_NS = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html"})


@dataclass(frozen=True)
class Chapter:
    name: str
    data: bytes


@dataclass(frozen=True)
class Book:
    title: str | None
    chapters: tuple[Chapter, ...]
    about: tuple[str, ...] = ()  # "Author: ...", "Publisher: ...": what the package says of the book
    damaged: tuple[tuple[str, str], ...] = ()  # (chapter, what is wrong with it) of those left unread


# What a damaged member raises as it is read (UnicodeDecodeError: its local header claims a UTF-8 name wrongly).
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, UnicodeDecodeError)


def _read(archive: zipfile.ZipFile, package: bytes, member: str) -> bytes:
    """The member's bytes; ConversionFailed saying what is wrong with it where it is damaged."""
    try:
        return archive.read(member)
    except _DAMAGED as exc:
        prefix = inflated_prefix(package, archive.getinfo(member))
        raise _Damaged(prefix.why if prefix else damage_words(exc)) from None


class _Damaged(Exception):
    """A member that cannot be read whole; the message says why, in words."""


def _xml(archive: zipfile.ZipFile, package_bytes: bytes, member: str):
    # No DTDs, no entities, no network: a package document is data, never instructions to fetch.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True)
    try:
        root = etree.fromstring(_read(archive, package_bytes, member), parser)
    except (KeyError, etree.XMLSyntaxError) as exc:
        raise ConversionFailed(f"not a valid EPUB ({member}: {exc})") from None
    except _Damaged as exc:
        raise ConversionFailed(f"cannot read the .epub file: {member[:100]} is damaged ({exc})") from None
    if root is None:
        raise ConversionFailed(f"not a valid EPUB ({member} is empty)")
    return root


def read_book(archive: zipfile.ZipFile, data: bytes) -> Book:
    """The book's title and its spine's (X)HTML documents in order; the EPUB 3 navigation document
    and any other page that reads as a table of contents (which repeats the headings) are left out.
    A damaged chapter costs only itself (`Book.damaged`); every one damaged, the book is unreadable."""
    names = set(archive.namelist())
    folder = _book_folder(names)
    rootfile = _xml(archive, data, folder + _CONTAINER).find(f".//{_CONTAINER_NS}rootfile")
    if rootfile is None or not rootfile.get("full-path"):
        raise ConversionFailed(f"not a valid EPUB ({_CONTAINER} names no package document)")
    opf_path = folder + rootfile.get("full-path", "")
    package = _xml(archive, data, opf_path)
    base = posixpath.dirname(opf_path)
    manifest = {item.get("id"): item for item in package.iter(f"{_OPF}item")}
    chapters, read, damaged = [], set(), []
    for itemref in package.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in _CHAPTER_TYPES:
            continue
        if "nav" in (item.get("properties") or "").split():
            continue
        member = member_of(item.get("href") or "", base, names)
        if member is not None and member not in read:  # items may name places inside one file
            read.add(member)
            try:
                chapters.append(Chapter(name=member, data=_read(archive, data, member)))
            except _Damaged as exc:
                damaged.append((member, str(exc)))
    if damaged and not chapters:
        member, why = damaged[0]
        raise ConversionFailed(f"cannot read the .epub file: {member[:100]} is damaged ({why})"
                               + (f", and {len(damaged) - 1:,} more of its chapters" if len(damaged) > 1 else ""))
    chapters = _without_contents(chapters)
    title = next((" ".join(t.text.split()) for t in package.iter(f"{_DC}title") if t.text and t.text.strip()), None)
    return Book(title=title, chapters=tuple(chapters), about=book_metadata(package), damaged=tuple(damaged))


def _book_folder(names: Set[str]) -> str:
    """Where the book's own root stands in the archive: "" for the root itself, as EPUB has it, or
    the one folder holding the container document where the root holds none (Debian's
    debian-edu-doc EPUBs zip their `epub/` folder itself; Calibre reads them)."""
    if _CONTAINER in names:
        return ""
    folders = [name[:-len(_CONTAINER)] for name in names
               if name.endswith("/" + _CONTAINER) and name.count("/") == _CONTAINER.count("/") + 1]
    return folders[0] if len(folders) == 1 else ""


def _without_contents(chapters: list[Chapter]) -> list[Chapter]:
    """The chapters but those that read as a table of contents of the others (epub_contents.py)."""
    names = frozenset(chapter.name for chapter in chapters)
    return [chapter for chapter in chapters
            if not is_contents(chapter.data, partial(_names_another, chapter.name, names))]


def _names_another(name: str, names: frozenset[str], href: str) -> bool:
    """Whether `href`, in the document `name`, names another of the documents `names`."""
    return member_of(href, posixpath.dirname(name), names) not in (None, name)


def member_of(href: str, base: str, names: Set[str]) -> str | None:
    """The zip member a manifest href names: hrefs are URI references relative to the package
    document (`Text/ch%201.xhtml`), members are stored by name."""
    for candidate in (unquote(href.split("#", 1)[0]), href):
        member = posixpath.normpath(posixpath.join(base, candidate)) if base else posixpath.normpath(candidate)
        if member in names:
            return member
    return None
