"""A PDF's text as Markdown whose headings are the document's own.

pdfminer gives a PDF's text line by line; nothing in it is Markdown. So:

- A line that starts with `#` is text (a shell comment, a crontab line, an IRC
  channel): it is escaped, never read as a heading. developers-reference.pdf's
  `# ask for weekly reports of bugs in my packages` had become its H1.
- Headings come from the outline (bookmarks), which is the document's own table
  of contents with its levels: each entry marks the first line after the
  previous heading that reads as its title, with or without its section number
  (`5.8.1 Monitoring bugs`, and the word before it some books set: `Appendix A References`
  for the bookmark `A References`), on the page the entry points at or the next. An entry
  whose destination names no page is looked for anywhere after the heading before, and so
  are all of a document's entries when fewer of them are found on their pages than in order
  anywhere (destinations that point wrong). A PDF without an outline gets no headings. Title and line are
  compared as a reader reads them: Unicode's compatibility forms (`ﬁ`, a no-break space) as their
  plain letters, dashes as `-`, quotation marks and apostrophes left out (a bookmark writes
  `doesn't` or `The ... argument` where the page sets `doesn’t` and `The ‘...’ argument`), spaces
  and line breaks as one space. A title the page wraps is found on up to MAX_HEADING_LINES lines
  that hold it and nothing else (R-FAQ.pdf's `7.32 How can I capture or ignore errors in a long` /
  `simulation?`); a line that holds more (a cross-reference, a sentence) is never its heading.
- Tables of contents are left out: they repeat the headings, with page numbers, as
  noise. One is a page set with dot leaders (`2.1 Getting started . . . 5`), or one
  whose lines are the outline's titles and page numbers and little else: there, each
  title had been taken for its heading, and the document's text fell under the last.
  Text above or below the entries on the same page (a title page's abstract) stays.
- Running headers and footers are kept once: a line at a page's edge (among its first or
  last two lines) that recurs at the edge of three pages or more, read without the page
  number beside it (`Chapter 3: Objects, their modes and attributes 15`), is dropped from
  every page after the first that has it (and from that one too where a sentence runs on through it,
  R-intro's `FAT filesys-` / `tems`), where it runs on from page to page (not a chapter's
  label, `Chapter 2`, found only where a chapter opens, its chapter's pages apart). R-intro.pdf repeated its chapter's name on 86
  of its 113 pages, in the middle of sentences that run on over the page break. A page
  number alone on its line (`15`, `xii`, `Page 3 of 9`) is dropped everywhere.
"""

from __future__ import annotations

import bisect
import io
import itertools
import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from minirag._compat.pdfminer import octal_overflow_ignored
from minirag.ingest.pdf_tables import CELL
from minirag.ingest.text_repair import escape_headings, is_page_number
from minirag.typesetting import TYPESETTING

log = logging.getLogger(__name__)

_LEADER = re.compile(r"(?:\.\s?){3,}\s*(?:\d+|[ivxlc]+)?\s*$")
_DOTS_ONLY = re.compile(r"^[\s.]*(?:\d+|[ivxlc]+)?\s*$")
_LONG_LEADER = re.compile(r"(?:\.\s?){5,}\s*(?:\d+|[ivxlc]+)?\s*$")  # a contents entry's, not `Loading...`
# A section's number, after the word some books set before it where their bookmarks leave it out
# (Texinfo's `Appendix A References` for the bookmark `A References`).
_LABEL = r"(?i:appendix|annex|chapter|part|anhang|kapitel|teil|annexe|chapitre|partie|appendice|capitolo|"\
         r"parte|apéndice|anexo|capítulo|приложение|глава|часть)"
_NUMBERING = re.compile(rf"^(?:{_LABEL}\s+)?(?P<number>\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*\.?|[IVXLC]+\.)\s+")
_SPACE = re.compile(r"\s+")
# Quotation marks and apostrophes, which bookmarks and pages set each in their own way, or not at all.
_QUOTES = re.compile("[\"'`\u00ab\u00bb\u2018-\u201f\u2032-\u2037\u2039\u203a]")
_DASHES = re.compile("[\u2010-\u2015\u2212]")
# A page is a table of contents when this many of its lines end in dot leaders,
MIN_LEADER_LINES = 5
# and they, with the lines of dots alone that layout analysis splits off them, are this share of its lines;
MIN_LEADER_SHARE = 0.3
# or when as many of its lines are the outline's titles, and they with page numbers are this share.
MIN_LISTED_SHARE = 0.6
# A contents page's own text around its entries stays when it holds this many letters (a title page's
# abstract, a licence; not the word "Contents").
MIN_PAGE_TEXT_LETTERS = 80
# On a page of text, contents entries are one block while no more than this many other lines stand
# between two of them (a part's title set without leaders, a line wrapped).
MAX_CONTENTS_GAP = 3
# Contents pages stay when leaving them out would keep less than this share of the text's letters.
MIN_KEPT_SHARE = 0.5
MAX_HEADING_WORDS = 20
# A heading the page wraps is looked for on this many lines (R-FAQ.pdf's longest question takes 3),
# with an empty line between each two at most, as pdfminer parts the pieces of a wrapped block.
MAX_HEADING_LINES = 3
EDGE_LINES = 2
# Where those lines are all running lines, a page's head or foot goes on past them while the lines
# after them are running lines too (a slide's footline: the author, the title, the date, "3 / 20").
MAX_EDGE_LINES = 6
# A block of this many paragraphs in a row, each found on this share of the pages, is a deck's
# navigation, kept on the first page only.
MIN_BLOCK_PARAGRAPHS = 4
REPEATED_SHARE = 0.5
MIN_RUNNING_PAGES = 3
# and, between the pages it is found on, at most this many pages apart for half of them (a two-sided
# book's head is on every other page).
MAX_RUNNING_GAP = 2
_FOLIO = re.compile(r"^\d+\s+|\s+\d+$")  # the page number beside a running head
_DIGITS = re.compile(r"\d+")
_FOLIO_KEY = "#"
MAX_OUTLINE_ENTRIES = 5000


@dataclass(frozen=True)
class OutlineEntry:
    """One bookmark: its level (1-6), its title, and the page (from 0) it points at, None where its
    destination names no page of the document."""

    level: int
    title: str
    page: int | None = None


def outline(data: bytes) -> list[OutlineEntry]:
    """Each outline entry in order; [] when the PDF has none or it cannot be read."""
    try:
        from pdfminer.pdfdocument import PDFDocument, PDFNoOutlines
        from pdfminer.pdfpage import PDFPage
        from pdfminer.pdfparser import PDFParser

        octal_overflow_ignored()
        document = PDFDocument(PDFParser(io.BytesIO(data)))
        if "Outlines" not in document.catalog:
            raise PDFNoOutlines
        pages = {page.pageid: number for number, page in enumerate(PDFPage.create_pages(document))}
        entries = []
        for level, title, item in _outline_items(document.catalog["Outlines"]):
            if isinstance(title, str) and title.strip():
                entries.append(OutlineEntry(max(1, min(6, int(level))), _SPACE.sub(" ", title).strip(),
                                            _page_of(document, item, pages)))
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                break
        return entries
    except PDFNoOutlines:
        return []
    except Exception as exc:  # noqa: BLE001 - a broken outline costs the headings, never the text
        log.debug("no outline read: %s: %s", type(exc).__name__, exc)
        return []


def _outline_items(root: object) -> Iterator[tuple[int, object, dict]]:
    """(level, title, item) of each titled outline item, depth first as pdfminer's get_outlines reads
    them, but each object once: items that name the same child or sibling (a lattice of 60 makes 2^60
    paths for get_outlines to walk) or a cycle cost one visit per object."""
    from pdfminer.pdftypes import PDFObjRef, dict_value, str_value
    from pdfminer.utils import decode_text

    stack, seen = [(root, 0)], set()
    while stack:
        node, level = stack.pop()
        if isinstance(node, PDFObjRef):
            if node.objid in seen:
                continue
            seen.add(node.objid)
        entry = dict_value(node)
        if "Title" in entry and ("A" in entry or "Dest" in entry):
            yield level, decode_text(str_value(entry["Title"])), entry
        if "Next" in entry:
            stack.append((entry["Next"], level))
        if "First" in entry and "Last" in entry:
            stack.append((entry["First"], level + 1))


def _page_of(document, item: dict, pages: dict[object, int]) -> int | None:
    """The page an outline item's destination shows: its `Dest`, or its GoTo action's `D`; either an
    array starting with the page, a name looked up in the document's destinations, or a dictionary
    holding the array under `D`. None for anything else (a link to another file, a JavaScript action)."""
    from pdfminer.pdftypes import PDFObjRef, resolve1

    dest = item.get("Dest")
    if dest is None:
        action = resolve1(item.get("A"))
        dest = action.get("D") if isinstance(action, dict) and _is_goto(action.get("S")) else None
    for _ in range(3):  # a name resolves to an array or to a dictionary that holds one
        dest = resolve1(dest)
        if isinstance(dest, bytes | str) or (dest is not None and hasattr(dest, "name")):
            try:
                dest = document.get_dest(dest if isinstance(dest, bytes | str) else dest.name)
            except Exception:  # noqa: BLE001 - a name the document does not hold: no page
                return None
        elif isinstance(dest, dict):
            dest = dest.get("D")
        else:
            break
    if isinstance(dest, list) and dest and isinstance(dest[0], PDFObjRef):
        return pages.get(dest[0].objid)
    return None


def _is_goto(kind: object) -> bool:
    return getattr(kind, "name", None) == "GoTo"


def structured(text: str, entries: list[OutlineEntry]) -> str:
    """pdfminer's text (pages parted by form feeds) as Markdown: `#` lines escaped, table-of-contents
    pages emptied (their form feeds kept, so page numbers stay true), outline entries as headings."""
    titles = {_key(entry.title) for entry in entries}
    pages = [_without_contents(page, titles) for page in text.split("\f")]
    if _letters("".join(pages)) < MIN_KEPT_SHARE * _letters(text):
        pages = text.split("\f")  # a text layer mostly contents (the rest drawn as shapes): kept
    text = escape_headings("\f".join(pages))
    return _rejoined(without_running_lines(_without_repeated_blocks(_headings(text, entries) if entries else text)))


_BLANK_LINES = re.compile(r"\n[ \t]*\n")


def _without_repeated_blocks(text: str) -> str:
    """The text with a block that recurs page after page kept on the first page that has it only:
    a slide deck's navigation (beamer's sidebar: the title, the author, every section's and
    subsection's name, 20 lines on each of a lecture's 33 slides, above or below its text). A block is
    MIN_BLOCK_PARAGRAPHS paragraphs or more in a row, each found on REPEATED_SHARE of the pages or
    more (MIN_RUNNING_PAGES at least); of it, what a block on a page before held goes. A heading
    among them (`# Was ist Syntax?`, where the outline's entry found its title) stays, and so does a
    paragraph found on fewer pages."""
    pages = [_BLANK_LINES.split(page) for page in text.split("\f")]
    found: dict[str, int] = {}
    for paragraphs in pages:
        for key in {_SPACE.sub(" ", paragraph).strip().casefold() for paragraph in paragraphs}:
            found[key] = found.get(key, 0) + 1
    least = max(MIN_RUNNING_PAGES, REPEATED_SHARE * len(pages))
    recurring = {key for key, count in found.items() if count >= least and key and not key.startswith("#")}
    if len(recurring) < MIN_BLOCK_PARAGRAPHS:
        return text
    seen: set[str] = set()  # what the blocks of the pages before held, their headings' titles too
    kept = []
    for paragraphs in pages:
        keys = [_SPACE.sub(" ", paragraph).strip().casefold() for paragraph in paragraphs]
        dropped: set[int] = set()
        run: list[int] = []
        titles: list[str] = []
        for index, key in enumerate([*keys, ""]):
            if key in recurring:
                run.append(index)
            elif key.startswith("#") and run:
                titles.append(key.lstrip("#").strip())  # a heading inside the block stays, and the block goes on
            else:
                if len(run) >= MIN_BLOCK_PARAGRAPHS:
                    dropped.update(at for at in run if keys[at] in seen)
                    seen.update([*(keys[at] for at in run), *titles])
                run, titles = [], []
        kept.append("\n\n".join(paragraph for index, paragraph in enumerate(paragraphs) if index not in dropped))
    return "\f".join(kept)


# An empty line between a line ending in a lowercase letter or a comma and one opening in lowercase.
_PARTED_SENTENCE = re.compile(r"(?<=[^\W\d_]|,)[ \t]*\n[ \t]*\n(?=[ \t]*[^\W\d_])")
_NEXT_WORD = re.compile(r"[ \t]*(\S)")  # the first letter after the empty line (the lookahead found one)


def _rejoined(text: str) -> str:
    """pdfminer parts a block whose lines it sets apart (a bullet's first line and the rest, a
    line indented otherwise) with an empty line, as it parts paragraphs: where the sentence plainly
    runs on (a lowercase word or a comma before, a lowercase word after) the empty line goes, so the
    paragraph is one and no chunk ends inside it. Pages stay apart, and headings (an R manual's
    are lowercase names)."""

    def join(match: re.Match) -> str:
        before, after = text[match.start() - 1], _NEXT_WORD.match(text, match.end()).group(1)  # type: ignore[union-attr]
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()].lstrip("\f")
        following = text[match.end() : text.find("\n", match.end()) % (len(text) + 1)]
        if line.startswith("#") or " | " in line or " | " in following:  # a heading, a table's row
            return match.group()
        return "\n" if (before == "," or before.islower()) and after.islower() else match.group()

    return _PARTED_SENTENCE.sub(join, text)


def without_running_lines(text: str) -> str:
    """Text of pages parted by form feeds without the header and footer lines its pages repeat (a
    PDF's pages; plain text paged by form feeds, convert.py): each is kept once, where it first
    stands outside a sentence running on over it (a page number never); the form feeds stay."""
    pages = [page.split("\n") for page in text.split("\f")]
    running = _running(pages, [_edges(lines) for lines in pages])
    if not running:
        return text
    # Past a page's edge lines where they are all running lines: a footline's other lines (a number
    # there is content: a page has one page number).
    past = _running(pages, [_past_edges(lines, running) for lines in pages]) - {_FOLIO_KEY}
    beyond = [_running_past_edges(lines, running, past) for lines in pages]
    seen: set[str] = set()
    kept: list[str] = []
    for number, (lines, further) in enumerate(zip(pages, beyond, strict=True)):
        dropped: set[int] = set()
        for index in sorted(_edges(lines) | further):
            key = _running_key(lines[index])
            if key not in (past if index in further else running):
                continue
            if key != _FOLIO_KEY and key not in seen and not _inside_a_sentence(
                    _last_text([kept[-1]] if kept else [], lines[:index], dropped),
                    _first_text(lines[index + 1:], pages[number + 1: number + 2], running | past)):
                seen.add(key)
            else:
                dropped.add(index)
        kept.append("\n".join(line for index, line in enumerate(lines) if index not in dropped))
    return "\f".join(kept)


def _inside_a_sentence(before: str, after: str) -> bool:
    """Whether a line between `before` and `after` stands inside a sentence that runs on over it (a
    lowercase letter, a comma or a hyphen before, a lowercase letter after): a running header kept
    there parted R-intro's "FAT filesys-" from "tems" over a page break."""
    end, start = before.rstrip()[-1:], after.lstrip()[:1]
    return (end.islower() or end in (",", "-")) and start.islower()


def _last_text(previous: list[str], above: list[str], dropped: set[int]) -> str:
    """The last line with text before a page's edge line: above it on its page, else the page before."""
    for index in range(len(above) - 1, -1, -1):
        if index not in dropped and above[index].strip():
            return above[index]
    lines = previous[0].split("\n") if previous else []
    return next((line for line in reversed(lines) if line.strip()), "")


def _first_text(below: list[str], following: list[list[str]], running: set[str]) -> str:
    """The first line with text after a page's edge line that is no running line: below it on its
    page, else on the page after."""
    for line in itertools.chain(below, *following):
        if line.strip() and _running_key(line) not in running:
            return line
    return ""


def _runs_on(pages: list[int]) -> bool:
    """Whether a line found on these pages runs on from page to page, as a running head does (on
    every page, or every other in a two-sided book), rather than opening each chapter (`Chapter 2`,
    `Kapitel 3`: its chapters' pages apart)."""
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(pages))
    return gaps[len(gaps) // 2] <= MAX_RUNNING_GAP


def _running(pages: list[list[str]], edges: list[set[int]]) -> set[str]:
    """What the lines at `edges` (each page's) say that runs on from page to page, on enough pages."""
    pages_of: dict[str, list[int]] = {}
    for number, (lines, at) in enumerate(zip(pages, edges, strict=True)):
        for key in {key for i in at if (key := _running_key(lines[i]))}:
            pages_of.setdefault(key, []).append(number)
    return {key for key, found in pages_of.items() if len(found) >= MIN_RUNNING_PAGES and _runs_on(found)}


def _edges(lines: list[str]) -> set[int]:
    filled = [index for index, line in enumerate(lines) if line.strip()]
    return set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])


def _past_edges(lines: list[str], running: set[str]) -> set[int]:
    """The lines past a page's edge lines, up to MAX_EDGE_LINES from its top or foot, where those edge
    lines are all running lines."""
    filled = [index for index, line in enumerate(lines) if line.strip()]
    past: set[int] = set()
    for inward in (filled[:MAX_EDGE_LINES], filled[::-1][:MAX_EDGE_LINES]):
        if len(inward) > EDGE_LINES and all(_running_key(lines[at]) in running for at in inward[:EDGE_LINES]):
            past.update(inward[EDGE_LINES:])
    return past


def _running_past_edges(lines: list[str], running: set[str], past: set[str]) -> set[int]:
    """Of `_past_edges`, the lines whose keys are in `past` that follow on from the edge lines
    inwards, one after another."""
    filled = [index for index, line in enumerate(lines) if line.strip()]
    candidates = _past_edges(lines, running)
    found: set[int] = set()
    for inward in (filled[EDGE_LINES:MAX_EDGE_LINES], filled[::-1][EDGE_LINES:MAX_EDGE_LINES]):
        found.update(itertools.takewhile(lambda at: at in candidates and _running_key(lines[at]) in past, inward))
    return found


def _running_key(line: str) -> str | None:
    """What a running header or footer line says whatever page it is on; None for a heading or a
    line without letters (a lone `}` closing code on many pages is code)."""
    plain = _SPACE.sub(" ", line).strip().casefold()
    if plain.startswith("#"):
        return None
    if is_page_number(plain):
        return _FOLIO_KEY
    plain = _DIGITS.sub("#", _FOLIO.sub("", plain))
    return plain if any(c.isalpha() for c in plain) else None


def _letters(text: str) -> int:
    return sum(1 for ch in text if ch.isalnum())


def _without_contents(page: str, titles: set[str]) -> str:
    """The page without its table of contents: lines with dot leaders, or lines that are the outline's
    titles (with their numbers) and page numbers and little else, make a page one. Its entries are
    one block, the lines of a title that wraps among them; what stands before the first and after the
    last is the page's own text (a title page's abstract, a licence below), kept where it holds
    MIN_PAGE_TEXT_LETTERS or more."""
    lines = [line for line in page.split("\n") if line.strip()]
    leader = [bool(_LEADER.search(line)) and "." in line for line in lines]
    dots = [bool(_DOTS_ONLY.match(line)) and "." in line for line in lines]
    titled = [_title_of_row(line) for line in lines]
    listed = [_key(line) in titles or _key(_NUMBERING.sub("", line.strip(), count=1)) in titles for line in titled]
    number = [is_page_number(line.strip()) for line in lines]
    if not ((sum(leader) >= MIN_LEADER_LINES and sum(leader) + sum(dots) >= MIN_LEADER_SHARE * len(lines))
            or (sum(listed) >= MIN_LEADER_LINES and sum(listed) + sum(number) >= MIN_LISTED_SHARE * len(lines))):
        return _without_contents_block(page, titles) if sum(leader) >= MIN_LEADER_LINES else page
    entries = [index for index, flags in enumerate(zip(leader, dots, listed, number, strict=True)) if any(flags)]
    own = lines[:entries[0]] + lines[entries[-1] + 1:]
    end = "\n" if page.endswith("\n") else ""
    return "\n".join(own) + end if _letters("".join(own)) >= MIN_PAGE_TEXT_LETTERS else end


def _without_contents_block(page: str, titles: set[str]) -> str:
    """The page without the block of contents entries it holds beside its own text: a contents that
    runs on to the page a document's text starts on (mathtools.pdf's page 2: thirteen entries, their
    page numbers in a column of their own, then `1 Introduction`). A block is MIN_LEADER_LINES lines
    or more with long dot leaders, with the lines between them (a part's title set without leaders,
    a column of page numbers, lines of dots) no more than MAX_CONTENTS_GAP apart. Of the lines between
    its first and last entry, those that are no entry's (`_is_entry`) stay, and so do the page's
    other lines."""
    lines = page.split("\n")
    cut: list[tuple[int, int]] = []
    start = end = -1
    leaders = gap = 0
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if _LONG_LEADER.search(line):
            start, leaders = (start, leaders + 1) if start >= 0 else (index, 1)
        elif start < 0 or not (is_page_number(line.strip()) or (_DOTS_ONLY.match(line) and "." in line)):
            gap += 1
            if start >= 0 and gap <= MAX_CONTENTS_GAP:
                continue
            if leaders >= MIN_LEADER_LINES:
                cut.append((start, end))
            start, leaders = -1, 0
            continue
        end, gap = index, 0
    if start >= 0 and leaders >= MIN_LEADER_LINES:
        cut.append((start, end))
    if not cut:
        return page
    # Between its entries, an outline's title (a part's, set without leaders) and the entries' own
    # lines go; any other line stays (ragged2e.pdf's footnotes stood between its entries and their
    # column of page numbers).
    dropped = {index for first, last in cut for index in range(first, last + 1)
               if not lines[index].strip() or _is_entry(lines[index], titles)}
    return "\n".join(line for index, line in enumerate(lines) if index not in dropped)


def _is_entry(line: str, titles: set[str]) -> bool:
    """Whether `line` is a contents entry's: dot leaders, dots or a page number alone, or an outline's
    title, with its number or without."""
    plain = line.strip()
    return bool(_LONG_LEADER.search(line) or is_page_number(plain) or (_DOTS_ONLY.match(line) and "." in line)
                or _key(plain) in titles or _key(_NUMBERING.sub("", plain, count=1)) in titles)


def _title_of_row(line: str) -> str:
    """A contents entry read as a table's row (`1 Foo | 2`: pdf_tables.py) without its page number;
    any other line as it is."""
    cells = line.split(CELL)
    return CELL.join(cells[:-1]) if len(cells) > 1 and is_page_number(cells[-1].strip()) else line


def _key(line: str) -> str:
    plain = _DASHES.sub("-", _QUOTES.sub("", unicodedata.normalize("NFKC", line.replace("\f", ""))))
    return _SPACE.sub(" ", plain.translate(TYPESETTING)).strip().casefold()


def _numbered(line: str) -> tuple[str, str] | None:
    """A numbered title's number (without a final dot) and its words' key; None for a line without one."""
    match = _NUMBERING.match(line)
    return (match["number"].rstrip("."), _key(line[match.end():])) if match else None


def _headings(text: str, entries: list[OutlineEntry]) -> str:
    lines = text.split("\n")
    wanted = {_key(entry.title) for entry in entries}
    wanted_numbered = {number for entry in entries if (number := _numbered(entry.title.strip()))}
    where: dict[str, list[tuple[int, int]]] = {}  # a title's key -> (first line, last line) holding it
    numbered: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (its number, the rest): set with a number
    for index, line in enumerate(lines):
        if line.strip() and len(line.split()) <= MAX_HEADING_WORDS:
            for last, plain, bare in _spans(lines, index):
                for key in {_key(plain), _key(bare)} & wanted:
                    where.setdefault(key, []).append((index, last))
                if (number := _numbered(plain)) in wanted_numbered:
                    numbered.setdefault(number, []).append((index, last))
    # The bookmark as the page sets it, else its number and words however the page writes them
    # (`1 Introduction` over `1. INTRODUCTION`).
    found = [where.get(_key(entry.title)) or numbered.get(_numbered(entry.title.strip()) or ("", ""), [])
             for entry in entries]
    page_of_line = list(itertools.accumulate(line.count("\f") for line in lines))
    on_its_page = _placed(entries, found, page_of_line)
    anywhere = _placed(entries, found, None)
    absorbed: set[int] = set()
    for level, index, last in on_its_page if len(on_its_page) >= len(anywhere) else anywhere:
        held = " ".join(lines[i] for i in range(index, last + 1) if lines[i].strip())
        page_breaks = "\f" * lines[index].count("\f")  # each one: a blank page before the heading's counts too
        lines[index] = f"{page_breaks}{'#' * level} {_SPACE.sub(' ', held.replace(chr(12), '')).strip()}"
        absorbed.update(range(index + 1, last + 1))
    return "\n".join(line for index, line in enumerate(lines) if index not in absorbed)


def _placed(entries: list[OutlineEntry], found: list[list[tuple[int, int]]],
            page_of_line: list[int] | None) -> list[tuple[int, int, int]]:
    """(level, first line, last line) of each entry given a heading: the first of its lines found after
    the heading before, on the page its bookmark points at or the next (its title can open the page
    after a destination set at the foot of one), or, without `page_of_line` or a page, anywhere after
    it. Anywhere, a title that is also a common line (a function's name in a reference manual's
    `See Also`) can take the heading pages after its own, where the page sets the title with more on
    its line, and every bookmark in between then finds no heading after it."""
    placed = []
    position = 0
    for entry, spans in zip(entries, found, strict=True):
        at = bisect.bisect_left(spans, (position, -1))
        if page_of_line is not None and entry.page is not None:
            while at < len(spans) and page_of_line[spans[at][0]] < entry.page:
                at += 1
            if at < len(spans) and page_of_line[spans[at][0]] > entry.page + 1:
                continue
        if at == len(spans):
            continue  # not on lines of its own (or not in the text layer): no heading for it
        index, last = spans[at]
        placed.append((entry.level, index, last))
        position = last + 1
    return placed


def _spans(lines: list[str], index: int) -> Iterator[tuple[int, str, str]]:
    """(last line, their text, the text without the first line's number) of the line at `index`
    alone, then with each next line of its page up to MAX_HEADING_LINES, an empty line between each
    two at most. The number is the first line's own: a page number alone above a title is no
    heading's number (`1` over `1 R Internal Structures` had read as the title)."""
    held = lines[index].replace("\f", "").strip()
    bare, last = _NUMBERING.sub("", held, count=1), index
    yield last, held, bare
    for _ in range(MAX_HEADING_LINES - 1):
        following = last + 1 + (last + 1 < len(lines) and lines[last + 1].strip() == "" and "\f" not in lines[last + 1])
        if following >= len(lines) or not lines[following].strip() or "\f" in lines[following]:
            return
        piece, last = lines[following].strip(), following
        held, bare = f"{held} {piece}", f"{bare} {piece}"
        yield last, held, bare
