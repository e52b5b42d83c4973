"""A document's title: converter metadata, else an author's H1, else an informative filename.

An H1 steps aside when it is boilerplate, the opening section name that every
document of an office set shares, or holds no words at all (a picture-only
heading); a filename steps aside when a machine chose it.
"""

from __future__ import annotations

import re
from pathlib import Path

from minirag.chunking.blocks import parse_heading
from minirag.chunking.fences import code_line_mask
from minirag.chunking.frontmatter import parse_frontmatter
from minirag.chunking.pages import split_pages
from minirag.ingest.doc_names import stem as name_stem

BOILERPLATE_HEADINGS = frozenset(
    {
        "introduction",
        "table of contents",
        "contents",
        "content",
        "overview",
        "preface",
        "foreword",
        "abstract",
        "summary",
        "general",
        "general provisions",
        "scope",
        "purpose",
        "revision history",
        "document history",
        "change history",
        "change log",
        "changelog",
        "glossary",
        "definitions",
        "terms and definitions",
        "общие положения",
        "общие сведения",
        "лист изменений",
        "лист регистрации изменений",
        "история изменений",
        "содержание",
        "оглавление",
        "введение",
        "назначение",
        "область применения",
        "термины и определения",
        "лист согласования",
        "аннотация",
        "предисловие",
    }
)

GENERIC_STEM_WORDS = frozenset(
    {
        "untitled",
        "document",
        "doc",
        "new",
        "copy",
        "of",
        "scan",
        "scanned",
        "img",
        "image",
        "dsc",
        "dscn",
        "pxl",
        "photo",
        "pic",
        "screenshot",
        "screen",
        "shot",
        "file",
        # Joining words of machine-made names ("Screenshot from 2026-01-02 at 10.11.12").
        "at",
        "from",
        "am",
        "pm",
        "от",
        "копия",
        "документ",
        "документа",
        "новый",
        "новая",
        "скан",
        "изображение",
        "снимок",
        "экрана",
        "файл",
        "безымянный",
        "без",
        "названия",
    }
)

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_IMAGE_ALT = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
# File names a folder's convention chose (`README.md`, `index.md`): a logo's name says more.
_CONVENTIONAL_STEMS = frozenset({"readme", "index", "_index", "home", "default"})
_PICTURE_WORDS = frozenset({"logo", "logotype", "banner", "icon", "image", "header", "picture", "light", "dark",
                            "mode", "wordmark", "badge", "(light)", "(dark)", "-", "–", "|"})
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# Possessive runs: `(?:\d+...)+` alone tries every way to split a run of digits (exponential
# time on `# 1111…1x`, a 46-byte file); `\d++` takes the whole run or nothing.
_NUMBERING = re.compile(r"^(?:(?:\d++|[ivxlc]++)[.)]?+)++\s+|^(?:\d++\.)++\d*+\s*", re.IGNORECASE)
MAX_HEADING_CHARS = 300  # a heading longer than this is prose, not a boilerplate title: not parsed
MAX_TITLE_SOURCE_CHARS = 1000  # of a first heading read for a title; a longer one is cut there
# A title is shown with every hit and embedded with every chunk of its document: a metadata
# <title> of 380 KB made each hit too large for any answer. Longer titles are cut at a word.
MAX_TITLE_CHARS = 300
_LETTER = re.compile(r"[^\W\d_]")


def first_h1(markdown: str) -> str | None:
    """The text of the first level-one ATX heading outside code, or None. A PDF's pages are parted
    by form feeds, which open a line as the chunker reads it (`\f# Usage`: pages.split_pages)."""
    _, body = parse_frontmatter(markdown)
    lines = split_pages(body)[0]
    mask = code_line_mask(lines)
    for line, in_code in zip(lines, mask, strict=True):
        if not in_code:
            heading = parse_heading(line)
            if heading and heading[0] == 1 and heading[1]:
                return heading[1]
    return None


def _heading_words(heading: str) -> str:
    text = _LINK.sub(r"\1", _IMAGE.sub(" ", heading))
    return " ".join(re.sub(r"[*_`]+", " ", text).split())


def _pictured_name(heading: str) -> str:
    """The name a heading of pictures alone shows: a README's logo (`# ![Typer](logo.svg)`) names
    its project in its alt text. The words that say what a picture is (`logo`, `banner`) are left
    out; "" when nothing else is left."""
    alts = " ".join(_IMAGE_ALT.findall(heading))
    name = [word for word in re.sub(r"[*_`]+", " ", alts).split() if word.casefold() not in _PICTURE_WORDS]
    return " ".join(name) if _LETTER.search(" ".join(name)) else ""


def is_boilerplate_heading(heading: str) -> bool:
    if len(heading) > MAX_HEADING_CHARS:
        return False
    text = _heading_words(heading)
    if not _LETTER.search(text):
        return True
    name = _NUMBERING.sub("", text.lower()).strip(" .:;-–—")
    return " ".join(name.split()) in BOILERPLATE_HEADINGS


def is_informative_stem(stem: str) -> bool:
    stem = stem.strip()
    if len(stem) < 4:
        return False
    tokens = [t for t in re.split(r"[\W_]+", stem.lower()) if t and not t.isdigit()]
    return any(t not in GENERIC_STEM_WORDS for t in tokens)


def stem_title(stem: str) -> str:
    return stem.replace("_", " ").strip()


def is_name_title(title: str, source: str) -> bool:
    """Whether `title` is the one choose_title reads off a file's name (`source`), the file having none
    of its own: a title that says where the file is, not what it holds."""
    stem = name_stem(Path(source).name)  # `README.md.gz`'s is `README`, as the pipeline chose it
    return title in (fitted_title(stem_title(stem)), fitted_title(stem))


_NON_SPACE = re.compile(r"\S+")


def fitted_title(title: str) -> str:
    """`title` on one line, within MAX_TITLE_CHARS: cut at a word, and `…` says it was cut."""
    words: list[str] = []
    length = -1
    for word in _NON_SPACE.finditer(title):  # no further than the words shown: a title may be megabytes
        words.append(word.group())
        length += 1 + len(words[-1])
        if length > MAX_TITLE_CHARS:
            break
    title = " ".join(words)
    if len(title) <= MAX_TITLE_CHARS:
        return title
    head = title[: MAX_TITLE_CHARS - 1]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + "…"


def choose_title(markdown: str, *, metadata_title: str | None, stem: str) -> str:
    """Metadata title, else a non-boilerplate H1, else an informative stem, else the name a picture-only
    H1 shows (before a conventional stem such as README), else H1, else stem."""
    if metadata_title and metadata_title.strip():
        return " ".join(metadata_title.split())
    heading = first_h1(markdown)
    heading = heading[:MAX_TITLE_SOURCE_CHARS] if heading else heading  # its regexes are quadratic in length
    words = _heading_words(heading) if heading else ""
    if words and not is_boilerplate_heading(heading or ""):
        return words
    pictured = _pictured_name(heading) if heading and not _LETTER.search(words) else ""
    if is_informative_stem(stem) and not (pictured and stem.strip().casefold() in _CONVENTIONAL_STEMS):
        return stem_title(stem)
    if pictured:
        return pictured
    if words and _LETTER.search(words):
        return words
    return stem
