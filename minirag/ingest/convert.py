"""Bytes -> Markdown plus a title: markitdown's per-format converters, our own for HTML and PDF.

Every input arrives as bytes already read (files through security.read_inside_roots,
pages through fetch.py), so nothing here opens a path by name. A file's format
comes from its extension; a fetched body's from sniffing its bytes (the
Content-Type only breaks ties), so a zip served as text/plain still meets the
archive check.
"""

from __future__ import annotations

import bisect
import codecs
import io
import logging
import re
import zipfile
import zlib
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path

from minirag._compat.pdfminer import UNMAPPED_GLYPH
from minirag.config import DEFAULT_MAX_FILE_SIZE
from minirag.errors import ConversionFailed, MessageTooLong, described
from minirag.ingest import asciidoc_text, latex_text, ocr, rst_text
from minirag.ingest.asciidoc_text import asciidoc_to_markdown
from minirag.ingest.attachments import MAX_NESTED_MESSAGES, AttachedFiles, ReadFile, joined_pages
from minirag.ingest.bidi_order import in_drawn_order, turned
from minirag.ingest.cfb import CompoundFile, CompoundFileError
from minirag.ingest.compressed import SIGNATURES, Inflated, inflated
from minirag.ingest.conversion_progress import advanced
from minirag.ingest.converted import Converted
from minirag.ingest.csv_table import csv_to_sheet
from minirag.ingest.doc_names import (
    BINARY_WORKBOOK,
    COMPRESSIONS,
    DOCUMENT_EXTENSIONS,
    HEAD_BYTES,
    MANUAL,
    PLAIN_TEXT,
    is_manual_section,
    is_roff_head,
    named_as,
    split_suffix,
    supported_extensions,
)
from minirag.ingest.doc_text import doc_to_markdown
from minirag.ingest.docx_margins import read_margins
from minirag.ingest.docx_tables import docx_converter
from minirag.ingest.docx_visible import Visibility, shown_docx
from minirag.ingest.email_text import MAX_WARNINGS, ReadMessage, eml_to_markdown, said
from minirag.ingest.empty_cells import without_empty_rows
from minirag.ingest.epub_spine import check_spine
from minirag.ingest.latex_text import latex_to_markdown
from minirag.ingest.latex_tokens import inputenc_charset
from minirag.ingest.markdown_html import rendered_html
from minirag.ingest.mbox_text import count_messages, mailbox_messages
from minirag.ingest.msg_text import msg_to_markdown
from minirag.ingest.odf_text import MIMETYPES as ODF_MIMETYPES
from minirag.ingest.odf_text import odf_to_markdown
from minirag.ingest.ooxml_names import consistent
from minirag.ingest.ooxml_strict import transitional
from minirag.ingest.org_text import org_to_markdown
from minirag.ingest.pdf_fields import page_fields, with_fields
from minirag.ingest.pdf_inflate import inflate_budget
from minirag.ingest.pdf_structure import outline, structured, without_running_lines
from minirag.ingest.pdf_tables import CELL
from minirag.ingest.pdf_title import pdf_title
from minirag.ingest.ppt_text import ppt_to_markdown
from minirag.ingest.pptx_charts import pptx_converter
from minirag.ingest.pptx_visible import shown_pptx
from minirag.ingest.quiet import converting
from minirag.ingest.roff_text import roff_to_markdown
from minirag.ingest.rst_text import rst_to_markdown
from minirag.ingest.rtf_text import rtf_to_markdown
from minirag.ingest.sheet_limits import check_sheets
from minirag.ingest.sheet_text import SheetText
from minirag.ingest.slide_pages import slides_as_pages
from minirag.ingest.text_decoding import (
    SNIFF,
    controls_out,
    decode_text,
    html_declared_charset,
    without_controls,
)
from minirag.ingest.text_headings import mark_headings
from minirag.ingest.text_limit import MAX_TEXT_CHARS
from minirag.ingest.text_repair import escape_headings, repair
from minirag.ingest.zip_damage import damage_words, damaged_members, mended
from minirag.ingest.zip_names import names_read_as_cp437
from minirag.ingest.zip_xml import check_depths, check_prologs

log = logging.getLogger(__name__)

# Other kinds of the same files, each read as its sibling is: Office's macro-enabled ones (the macro
# project is never run or read), templates and slide shows (not `.dot` or `.pot`: those are Graphviz
# graphs and gettext templates as often as Word and PowerPoint ones); XHTML and server-side-include
# pages; Quarto and R Markdown documents and Markdown's rarer names.
_SIBLINGS = {".docm": ".docx", ".dotx": ".docx", ".dotm": ".docx", ".xlsm": ".xlsx", ".xltx": ".xlsx",
             ".xltm": ".xlsx", ".pptm": ".pptx", ".ppsx": ".pptx", ".ppsm": ".pptx", ".xlt": ".xls", ".pps": ".ppt",
             ".xhtml": ".html", ".xht": ".html", ".shtml": ".html",
             ".qmd": ".md", ".rmd": ".md", ".mkd": ".md", ".mkdn": ".md", ".mdown": ".md", ".mdwn": ".md"}
SUPPORTED_EXTENSIONS = supported_extensions()
_PRESENTATIONS = {".pptx", ".ppt", ".odp"}  # their slides are their pages (slide_pages.py)
_PLAIN_TEXT = {".md", ".markdown", ".mdx", ".txt"}
_HTML = {".html", ".htm"}
_LATEX = {".tex", ".latex", ".ltx"}
# One markitdown converter per extension, never its guess-and-fall-back chain: a
# corrupt PDF must fail, not be indexed as its raw bytes by the plain-text converter.
_MARKITDOWN = {
    ".docx": "DocxConverter", ".pptx": "PptxConverter",
}
# DOCX: a paragraph in Word's "Title" style is the document's title, so it becomes its
# H1; paragraphs in a code style (pandoc's "Source Code", LibreOffice's "Preformatted Text",
# Word's "HTML Preformatted") are one code block, line for line; underlining (how a link is
# shown) is no markup; a table's first row becomes the Markdown header row, not an empty one above it.
_CODE_STYLES = ("Source Code", "Preformatted Text", "HTML Preformatted", "Macro Text", "Plain Text", "Code",
                "Code Block")
_DOCX_STYLES = "\n".join(["p[style-name='Title'] => h1:fresh", "u =>",
                          *(f"p[style-name='{style}'] => pre:separator('\\n')" for style in _CODE_STYLES)])
_MARKITDOWN_OPTIONS = {
    ".docx": {"style_map": _DOCX_STYLES, "table_infer_header": True},
}
# A fenced block as markitdown writes one; a line break inside it comes out as a Markdown hard break.
_FENCED = re.compile(r"^```[^\n]*\n.*?^```$", re.MULTILINE | re.DOTALL)
_ZIP_FORMATS = {".docx", ".pptx", ".xlsx", ".epub", *ODF_MIMETYPES}
# A zip-based document is refused, from its central directory alone and before any
# parser inflates it, when it would unpack past these (a zip bomb).
MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024
MAX_ZIP_RATIO = 200
MAX_ZIP_MEMBERS = 10_000
# Each member on its own too: a stored block of random bytes pulls the archive's overall
# ratio down while one XML part still inflates far past it. Real document XML deflates 5-30x.
# (The files behind these limits: docs/documents.md#what-the-limits-were-measured-against.)
MAX_MEMBER_RATIO = 100
MEMBER_RATIO_FROM_BYTES = 1024 * 1024  # members this small are never refused for their ratio alone...
# ... but together they are: what all members past MAX_MEMBER_RATIO inflate to may not pass
# MEMBER_RATIO_FROM_BYTES.
_COMPOUND_FILE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an OLE compound file's signature
_ENCRYPTED = 0x1  # a zip member's general-purpose flag bit
# A PDF table's row whose every cell held glyphs without a character: its separators alone.
_EMPTIED_ROW = re.compile(rf"^ *(?:{re.escape(CELL.strip())} *)+(?:\n|\Z)", re.MULTILINE)


# --- the formats ------------------------------------------------------------------------


def check_zip(data: bytes, name: str, kind: str) -> zipfile.ZipFile:
    """The archive, once its central directory shows it is no zip bomb and nothing in it encrypted."""
    if data.startswith(_COMPOUND_FILE):  # what Office saves a password-protected file as, and its old formats
        if "EncryptedPackage".encode("utf-16-le") in data:
            raise ConversionFailed(f"{name}: encrypted (password required)")
        raise ConversionFailed(f"{name}: an older binary Office file (.doc, .xls or .ppt), not a {kind} file; "
                               f"save it as {kind}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ConversionFailed(f"{name}: not a valid {kind} file (corrupt or truncated zip: {exc})") from None
    _check_claims(members, len(data), name, kind)
    if (twice := _named_twice(members)) is not None:
        raise ConversionFailed(f"{name}: refused: two members of the {kind} file are named {twice[:100]!r}, and "
                               "programs differ on which one they show (a valid package names each part once)")
    for member in members:
        if member.flag_bits & _ENCRYPTED:
            raise ConversionFailed(f"{name}: encrypted (password required); {member.filename[:100]} cannot be "
                                   "read without it")
    unpacked = sum(m.file_size for m in members)
    packed = max(1, sum(m.compress_size for m in members))
    if (len(members) > MAX_ZIP_MEMBERS or unpacked > MAX_UNZIPPED_BYTES
            or (unpacked > 50 * 1024 * 1024 and unpacked / packed > MAX_ZIP_RATIO)):
        raise ConversionFailed(f"{name}: refused: {len(members)} members would inflate to {unpacked} bytes "
                               f"from {packed} (zip bomb?)")
    dense = 0  # bytes inflated by members past MAX_MEMBER_RATIO, however small each is
    for member in members:
        if member.file_size / max(1, member.compress_size) <= MAX_MEMBER_RATIO:
            continue
        if member.file_size > MEMBER_RATIO_FROM_BYTES:
            raise ConversionFailed(f"{name}: refused: {member.filename[:100]} would inflate to {member.file_size} "
                                   f"bytes from {member.compress_size} (zip bomb?)")
        dense += member.file_size
        if dense > MEMBER_RATIO_FROM_BYTES:
            raise ConversionFailed(f"{name}: refused: members compressed over {MAX_MEMBER_RATIO}:1 would inflate "
                                   f"to more than {MEMBER_RATIO_FROM_BYTES} bytes together (zip bomb?)")
    return archive


def _named_twice(members: list[zipfile.ZipInfo]) -> str | None:
    """The first name two files of the archive share, or None. zipfile reads the last of them, other
    readers may show the first (a zip names its members in two places, and neither is ruled the one): text
    nobody opening the file sees would be indexed, and what they see not."""
    seen: set[str] = set()
    for member in members:
        if member.filename in seen and not member.is_dir():
            return member.filename
        seen.add(member.filename)
    return None


def _check_claims(members: list[zipfile.ZipInfo], size: int, name: str, kind: str) -> None:
    """Refuse a member whose compressed size, as the central directory gives it, is more than the
    bytes between its local header and the next: readers inflate by that claim, so an inflated
    one makes a bomb's ratio look honest."""
    starts = sorted({member.header_offset for member in members})
    if starts and (starts[0] < 0 or starts[-1] >= size):  # bytes cut from the middle, or a bad offset
        raise ConversionFailed(f"{name}: not a valid {kind} file (corrupt or truncated zip: a member's data lies "
                               "outside the archive)")
    for member in members:
        at = bisect.bisect_right(starts, member.header_offset)
        room = (starts[at] if at < len(starts) else size) - member.header_offset
        if member.compress_size > room:
            raise ConversionFailed(f"{name}: refused: {member.filename[:100]} claims {member.compress_size} "
                                   f"compressed bytes where the archive holds {max(0, room)} (corrupt, or a zip bomb in disguise)")


def _convert_pdf(data: bytes, name: str) -> Converted:
    """pdfminer text with a form feed after every page, so chunks can cite page numbers, two columns
    read one after the other (pdf_columns.py), and each page's filled-in form fields and notes after
    its text."""
    try:
        from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

        from minirag.ingest.pdf_columns import pdf_text
    except ImportError as exc:  # pragma: no cover - markitdown[pdf] installs it
        raise ConversionFailed(f"{name}: PDF support is not installed ({exc})") from None
    try:
        with converting(name), inflate_budget(name) as drawings:
            text = pdf_text(data)
            undrawn = drawings.warning(name)  # (now: the title's reading processes the first page again)
            entries = outline(data)
            fields = page_fields(data)
            # Right-to-left text pdfminer gave in drawn order, the pages' own text only: form fields,
            # notes and the Info title are typed text, in reading order. A title's few words are too
            # few to tell: the pages tell for it.
            drawn = in_drawn_order(text)
            title = pdf_title(data, drawn_order=drawn)
    except (PDFPasswordIncorrect, PDFEncryptionError):
        raise ConversionFailed(f"{name}: encrypted PDF (password required)") from None
    except ConversionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many unrelated types on bad input
        raise ConversionFailed(f"{name}: cannot read PDF ({described(exc)})") from None
    # A glyph without a character most often stands for a letter inside a word, or for a symbol
    # set apart by spaces: it goes, and nothing takes its place.
    text, unmapped = UNMAPPED_GLYPH.subn("", text)
    if unmapped:  # a table's row of such glyphs alone (pdf_tables.py) is left its separators only
        text = _EMPTIED_ROW.sub("", text)
    text = turned(text) if drawn else text
    said = tuple(warning for warning in (
        f"{name}: {unmapped} glyphs without a character (cid:NN) taken out of the text" if unmapped else None,
        undrawn) if warning)
    text, note = ocr.fill_scanned_pages(data, name, text)
    return Converted(markdown=structured(with_fields(text, fields), entries), metadata_title=title, note=note,
                     warnings=said)


def _only_includes(text: str, markdown: str, include: re.Pattern[str], how: str) -> str:
    """The note for a file whose text is nothing but files it includes (a LaTeX main file of
    chapters, a Sphinx page of one `.. include::`): said so, not "empty"; "" for any other."""
    if markdown.strip() or include.search(text) is None:
        return ""
    return (f"no text of its own: it only includes other files ({how}), which are not followed; "
            "an included document under a root is indexed as a file of its own")


def _saved_page(data: bytes, name: str) -> Converted:
    from minirag.ingest.saved_page import Html, placed, saved_page

    def read(html: Html) -> Converted:
        page = _html(html.html, name, html.warnings)
        frames = [read(frame) for frame in html.frames]  # (as deep as saved_page follows frames)
        said = tuple(warning for converted in (page, *frames) for warning in converted.warnings)
        if html.frameset and frames:  # what its frames show, under its own title
            return replace(page, markdown="\n\n".join(frame.markdown for frame in frames if frame.markdown.strip()),
                           warnings=said)
        return replace(page, markdown=placed(page.markdown, [frame.markdown for frame in frames], saved.mark),
                       warnings=said)

    saved = saved_page(data, name)
    page = read(saved.page)
    return replace(page, metadata_title=page.metadata_title or saved.subject or None)


def _html(text: str, name: str, warnings: tuple[str, ...] = ()) -> Converted:
    from minirag.ingest.html_markdown import html_to_markdown

    try:
        markdown, title = html_to_markdown(text)
    except ConversionFailed as exc:
        raise ConversionFailed(f"{name}: {exc}") from None
    return Converted(markdown=markdown, metadata_title=title, warnings=warnings)


def _markitdown(data: bytes, suffix: str, name: str) -> Converted:
    from markitdown import StreamInfo

    converter = docx_converter() if suffix == ".docx" else pptx_converter()
    info = StreamInfo(extension=suffix, filename=Path(name).name)
    try:
        with converting(name):
            result = converter.convert(io.BytesIO(data), info, **_MARKITDOWN_OPTIONS.get(suffix, {}))
    except Exception as exc:  # noqa: BLE001 - parsers raise anything on hostile input
        raise ConversionFailed(f"{name}: cannot convert ({described(exc)})") from None
    markdown = _FENCED.sub(lambda block: block.group().replace("  \n", "\n"), result.markdown or "")
    return Converted(markdown=without_empty_rows(markdown), metadata_title=(result.title or "").strip() or None)


def _book(archive: zipfile.ZipFile, data: bytes, name: str) -> Converted:
    from minirag.ingest.epub_book import read_book
    from minirag.ingest.epub_links import Marked, anchor_texts, linked_into_book
    from minirag.ingest.epub_title_pages import with_title_pages_folded

    try:
        book = read_book(archive, data)
    except ConversionFailed as exc:
        raise ConversionFailed(f"{name}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a damaged archive or package document, however it shows
        raise ConversionFailed(f"{name}: cannot convert ({described(exc)})") from None
    parts: list[str] = []
    anchors: list[dict[str, Marked]] = []
    warnings = [f"{name}: {member[:100]} is damaged ({why}); its text is lost" for member, why in book.damaged]
    for chapter in book.chapters:
        text, said = decode_text(chapter.data, f"{name}: {chapter.name}", declared=html_declared_charset(chapter.data))
        converted = _html(text, f"{name}: {chapter.name}")
        parts.append(converted.markdown.strip())
        anchors.append(anchor_texts(chapter.data))
        warnings.extend(said)
        advanced()
    parts = linked_into_book(parts, [chapter.name for chapter in book.chapters], anchors, name)
    parts = with_title_pages_folded([part for part in parts if part], book.title)
    return Converted(markdown="\n\n".join(part for part in (*book.about, *parts) if part), metadata_title=book.title,
                     warnings=tuple(warnings))


def _workbook(data: bytes, name: str) -> Converted:
    from minirag.ingest.xlsx_tables import workbook_to_markdown

    try:
        with converting(name):
            workbook = workbook_to_markdown(data)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises anything on hostile input
        raise ConversionFailed(f"{name}: cannot convert ({described(exc)})") from None
    return Converted(markdown=workbook.markdown, metadata_title=workbook.title,
                     warnings=tuple(f"{name}: {said}" for said in workbook.warnings), rows=workbook.rows)


def _notebook(data: bytes, name: str, declared: str | None = None) -> Converted:
    from minirag.ingest.notebook import notebook_to_markdown

    text, warnings = decode_text(data, name, declared=declared)
    try:
        notebook = notebook_to_markdown(text)
    except ConversionFailed as exc:
        raise ConversionFailed(f"{name}: {exc}") from None
    return Converted(markdown=notebook.markdown, metadata_title=notebook.title, warnings=warnings)



def _rtf(data: bytes, name: str) -> Converted:
    """An RTF file; one that Word saved in another format and named .rtf is read as what it is."""
    if data.startswith((b"PK\x03\x04", _COMPOUND_FILE)):
        return _as_what_it_is(data, ".rtf", name)
    markdown, title = rtf_to_markdown(data.removeprefix(codecs.BOM_UTF8), name)
    return Converted(markdown=markdown, metadata_title=title)


def _doc(data: bytes, name: str) -> Converted:
    """A Word 97-2003 file; what Word also saves as .doc (RTF, DOCX) is read as what it is, and a
    .doc of plain text (many a project's documentation) as text."""
    if data.startswith(_COMPOUND_FILE) and _compound_kind(data) in (".doc", None):
        markdown, title = doc_to_markdown(data, name)
        return Converted(markdown=markdown, metadata_title=title)
    if data.startswith((b"PK\x03\x04", _COMPOUND_FILE)) or _text_kind(data, name):
        return _as_what_it_is(data, ".doc", name)
    text, warnings = decode_text(data, name)
    return Converted(markdown=escape_headings(text), warnings=warnings, frontmatter=True)


# A Word 2003 XML document's marks, in its opening.
_WORD_XML = (b'progid="Word.Document"', b"<w:wordDocument")


def _text_kind(data: bytes, name: str) -> str | None:
    """What else Word and the programs that export "Word" files save as .doc, by its opening (a
    UTF-8 mark before it or not): RTF, a web page (HTML), a single-file web page (MHTML, a MIME
    message: read as an e-mail is); None for plain text. A Word 2003 XML document is refused."""
    head = data[:SNIFF].removeprefix(codecs.BOM_UTF8).lstrip()
    lowered = head[:1024].lower()
    if head.startswith(b"{\\rtf"):
        return ".rtf"
    if lowered.startswith((b"<!doctype html", b"<html")):
        return ".html"
    if lowered.startswith(b"mime-version:"):
        return ".eml"
    if lowered.startswith(b"<?xml") and any(mark in head for mark in _WORD_XML):
        raise ConversionFailed(f"{name}: a Word 2003 XML document, which is not read; save it as DOCX")
    return None


def _legacy_office(data: bytes, suffix: str, name: str) -> Converted:
    """An Excel or PowerPoint 97-2003 file; one saved in another format and given its name is
    read as what it is (an XLSX named .xls, a Word file named .ppt)."""
    from minirag.ingest.xls_biff import (  # openpyxl, numpy: 0.17 s a worker start
        is_old_worksheet,
        xls_to_sheets,
    )

    old_worksheet = suffix == ".xls" and is_old_worksheet(data)
    if not old_worksheet and (not data.startswith(_COMPOUND_FILE) or _compound_kind(data) not in (suffix, None)):
        if suffix == ".xls" and not data.startswith((b"PK\x03\x04", _COMPOUND_FILE)) and not _text_kind(data, name):
            return _exported_sheet(data, name)
        return _as_what_it_is(data, suffix, name)
    if suffix == ".xls":
        sheets = xls_to_sheets(data, name)
        return Converted(markdown=sheets.markdown, rows=sheets.rows)
    return Converted(markdown=ppt_to_markdown(data, name))


# An Excel 2003 XML spreadsheet (SpreadsheetML) says so in its opening.
_EXCEL_XML = b"urn:schemas-microsoft-com:office:spreadsheet"


def _exported_sheet(data: bytes, name: str) -> Converted:
    """What reporting tools and web applications export as "Excel" under .xls and Excel opens
    (warning that the format differs from the name): text with a delimiter, comma- or
    tab-separated, read as CSV; an Excel 2003 XML spreadsheet is refused saying what it is. A
    web page's table is read as HTML before this (_text_kind); bytes that are not text are no
    .xls at all."""
    head = data[:SNIFF].removeprefix(codecs.BOM_UTF8).lstrip()
    if head[:5].lower() == b"<?xml" and _EXCEL_XML in head:
        raise ConversionFailed(f"{name}: an Excel 2003 XML spreadsheet, which is not read; save it as XLSX")
    try:
        text, warnings = decode_text(data, name)
    except ConversionFailed:  # binary, or damaged: what the name says it is not
        raise ConversionFailed(f"{name}: not a valid .xls file") from None
    sheet = csv_to_sheet(text, name)
    return Converted(markdown=sheet.markdown, rows=sheet.rows,
                     warnings=(f"{name}: a .csv file named .xls; read as .csv", *warnings))


def _msg(data: bytes, name: str) -> Converted:
    """An Outlook message; a .msg that is another Office file is read as that, and one of plain text
    (a program's messages) as text."""
    if not data.startswith(_COMPOUND_FILE):
        text, warnings = decode_text(data, name)
        return Converted(markdown=escape_headings(text), warnings=warnings, frontmatter=True)
    if _compound_kind(data) not in (".msg", None):
        return _as_what_it_is(data, ".msg", name)
    return _read_message(msg_to_markdown(data, name, _AttachedFiles(name, _message_depth.get())))


def _mailbox(data: bytes, name: str) -> Converted:
    """A mailbox's messages one after another, each under its subject (`(no subject)` where it has
    none) with its attachments read; those past MAX_MAILBOX_MESSAGES, or past what one document may
    give, are left, and its note says how many."""
    budget = _TextBudget()
    pages: list[SheetText] = []
    warnings: list[str] = []
    unsaid = 0  # warnings past the first MAX_WARNINGS, only counted

    def warn(lines: Iterable[str]) -> None:
        nonlocal unsaid
        for line in lines:
            if len(warnings) < MAX_WARNINGS:
                warnings.append(line)
            else:
                unsaid += 1

    past = ""
    for number, message in enumerate(mailbox_messages(data, name), 1):
        label = f"{name} › message {number}"
        before = budget.left
        try:
            if number > MAX_MAILBOX_MESSAGES:
                past = f"{MAX_MAILBOX_MESSAGES:,} messages"
                break
            read = eml_to_markdown(message, label, _AttachedFiles(label, _message_depth.get(), budget))
            page = (SheetText(read.markdown, read.rows) if read.title else
                    joined_pages([SheetText("# (no subject)", None), SheetText(read.markdown, read.rows)]))
            budget.left = before - len(page.markdown) - 2  # as joined (its attachments' text is in it)
            if budget.left < 0:
                raise MessageTooLong(label)
        except MessageTooLong:
            past = f"the {MAX_TEXT_CHARS:,} characters one document may give"
            break
        except ConversionFailed as exc:
            warn([str(exc)])
            continue
        pages.append(page)
        warn(read.warnings)
    if not pages:
        raise ConversionFailed(f"{name}: refused: its first message passes {past}" if past
                               else f"{name}: no message in the mailbox could be read; the first: {warnings[0]}"
                               if warnings else f"{name}: no message in the mailbox could be read")
    total = count_messages(data)
    note = f"the last {total - number + 1:,} of {total:,} messages were left, past {past}" if past else ""
    box = joined_pages(pages)
    return Converted(markdown=box.markdown, metadata_title=_stem(name), warnings=said(warnings, unsaid),
                     note=note, rows=box.rows)


def _stem(name: str) -> str:
    """A file's name without its folders or suffix (`Inbox` of `mail/Inbox.mbox`)."""
    return Path(name.rsplit(" › ", 1)[-1].replace("\\", "/")).stem


def _read_message(read: ReadMessage) -> Converted:
    return Converted(markdown=read.markdown, metadata_title=read.title, warnings=read.warnings, rows=read.rows)


# A mailbox's messages read, at the standard library parser's ~0.1 ms for the least of them.
MAX_MAILBOX_MESSAGES = 100_000
# How many messages enclose the one being read: an attachment is converted as a document of its own,
# and a message attached to it must know how deep it is.
_message_depth: ContextVar[int] = ContextVar("message_depth", default=0)


class _Inflation:
    """What the compressed streams of one document (its own, its attachments') may still inflate to,
    together: MAX_FILE_SIZE holds for them as for one file (each alone, a message of many small
    streams inflated to many times it)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total


_inflation: ContextVar[_Inflation | None] = ContextVar("inflation", default=None)


class _TextBudget:
    """What a message's attachments may still give, shared by the messages forwarded in it: the
    page they make is held to what one document may give, read or not."""

    def __init__(self) -> None:
        self.left = MAX_TEXT_CHARS


@dataclass(frozen=True)
class _AttachedFiles:
    """A message's attachments, each converted as the document it is (attachments.AttachedFiles)."""

    name: str  # the message's, for what is said about its attachments
    depth: int  # messages enclosing this one
    budget: _TextBudget = field(default_factory=_TextBudget)

    def read(self, data: bytes, filename: str, content_type: str,
             charset: str | None = None) -> ReadFile | None:
        suffix = attached_suffix(filename, content_type, data)
        message = suffix is not None and split_suffix(suffix)[0] in (".eml", ".msg", ".mbox")  # (x.eml.gz too)
        messages_past = self.depth >= MAX_NESTED_MESSAGES if message else self.depth > MAX_NESTED_MESSAGES
        if suffix is None or messages_past:  # (past it: a message that was named as another file)
            return None
        token = _message_depth.set(self.depth + 1)
        name = f"{self.name} › {' '.join((filename or content_type).split())}"
        try:  # (a compressed one inflated within the limit a file's is)
            converted = convert_document(data, suffix, name, declared=charset)
        except (ConversionFailed, MemoryError):
            raise  # (the worker retires on memory: the heap may be torn)
        except RecursionError:
            raise ConversionFailed(f"{name}: cannot convert (nested too deeply)") from None
        except Exception as exc:  # noqa: BLE001 - a reader's unexpected error costs its attachment, not the message
            raise ConversionFailed(f"{name}: cannot convert ({described(exc)})") from None
        finally:
            _message_depth.reset(token)
        self.budget.left -= len(converted.markdown)
        if self.budget.left < 0:
            raise MessageTooLong(f"{self.name}: refused: its attachments' text passes the {MAX_TEXT_CHARS:,} "
                                 "characters one document may give")
        # Pages are the attachment's own; what its note says (a mailbox's messages left) is a warning.
        said = (*converted.warnings, *((f"{name}: {converted.note}",) if converted.note else ()))
        rows = converted.rows if "\f" not in converted.markdown else None  # (a PDF's pages: it has no rows)
        return ReadFile(converted.markdown.replace("\f", "\n\n"), said, rows)

    def inner(self, label: str) -> AttachedFiles | None:
        if self.depth >= MAX_NESTED_MESSAGES:
            return None
        return _AttachedFiles(f"{self.name} › {' '.join(label.split())}", self.depth + 1, self.budget)


def attached_suffix(filename: str, content_type: str, data: bytes = b"") -> str | None:
    """The format an attachment is read as: its file name's (a compressed document's, `.md.gz`, as a
    file's: doc_names.py), else its MIME type's, else (for a file named and typed as nothing minirag
    reads) the format its bytes open with, where they open with a document format's signature; None
    for anything else (a picture, an archive, a program)."""
    suffix = Path(filename.strip().replace("\\", "/")).suffix.lower() if filename.strip() else ""
    if suffix in DOCUMENT_EXTENSIONS:
        return suffix
    named = named_as(Path(filename.strip().replace("\\", "/")).name) if suffix in COMPRESSIONS else None
    if named is not None and named.compression and named.kind in DOCUMENT_EXTENSIONS and not named.sniffed:
        return named.read_as
    if content_type.lower().strip() in _ATTACHED_TYPES:
        return _ATTACHED_TYPES[content_type.lower().strip()]
    if data.startswith((b"%PDF-", _COMPOUND_FILE, b"{\\rtf")):
        return sniff_format(data, "", "")
    return None


def _renamed_legacy(data: bytes, suffix: str, name: str) -> Converted:
    """A compound file named .docx, .xlsx or .pptx: an Office 97-2003 file, read as the one it is;
    anything else is refused as check_zip refuses it."""
    if _compound_kind(data) is None:
        check_zip(data, name, suffix)  # says what the file is
    return _as_what_it_is(data, suffix, name)


# Which Office 97-2003 format a compound file is, by the stream its application writes.
_COMPOUND_STREAMS = (("WordDocument", ".doc"), ("Workbook", ".xls"), ("Book", ".xls"),
                     ("PowerPoint Document", ".ppt"))
_OOXML_NAMES = (".docx", ".xlsx", ".pptx")
# The parts markitdown's DOCX pre-processing parses with BeautifulSoup, whose cost grows with depth.
_DOCX_PREPROCESSED = ("word/document.xml", "word/footnotes.xml", "word/endnotes.xml", "word/styles.xml")


def _compound_kind(data: bytes) -> str | None:
    try:
        compound = CompoundFile(data)
    except CompoundFileError:
        return None
    names = {entry.name.casefold() for entry in compound.children()}
    if any(entry.startswith("__substg1.0_") for entry in names):  # an Outlook message's properties
        return ".msg"
    return next((suffix for stream, suffix in _COMPOUND_STREAMS if stream.casefold() in names), None)


def _as_what_it_is(data: bytes, named: str, name: str) -> Converted:
    if data.startswith(_COMPOUND_FILE):
        actual = _compound_kind(data) or ".doc"  # the Word reader says what is wrong with the file
    else:
        actual = _text_kind(data, name) or sniff_format(data, "", name)
    if actual == named:
        raise ConversionFailed(f"{name}: not a valid {named} file")
    converted = _convert_by_suffix(data, actual, name)
    return replace(converted, warnings=(f"{name}: a {actual} file named {named}; read as {actual}",
                                        *converted.warnings))


def repaired(converted: Converted, name: str, *, pdf: bool = False) -> Converted:
    """`converted` with control characters, soft hyphens and ligatures taken out, and a PDF's
    line-end hyphenation joined. Text files were cleaned of controls as they were decoded; a
    converter's text (PDF, notebook, DOCX, PPTX, XLSX, EPUB) is cleaned here, by the same rule."""
    markdown, said = controls_out(converted.markdown, name)
    title = controls_out(converted.metadata_title, name)[0] if converted.metadata_title else None
    markdown = repair(markdown, pdf=pdf)
    # A sheet's rows are told line by line: a text whose lines changed (a C1 next-line in a cell is a
    # line break now) names none rather than wrong ones.
    rows = converted.rows if converted.rows is None or converted.rows.lines == markdown.count("\n") + 1 else None
    return replace(converted, markdown=markdown, metadata_title=repair(title) if title else title,
                   warnings=(*converted.warnings, *said), rows=rows)


def convert_document(data: bytes, suffix: str, name: str, max_bytes: int = DEFAULT_MAX_FILE_SIZE, *,
                     declared: str | None = None) -> Converted:
    """Convert a document's bytes as the format `suffix` names (".md", or ".md.gz" for the Markdown a
    gzip stream holds, inflated to at most `max_bytes`); a text format's by the charset `declared` for
    them (a MIME part's, an HTTP response's), where they bear it out (decode_text). ConversionFailed
    with a one-line reason."""
    # The document's own budget; one it is a part of (an attachment) shares its enclosing one's.
    token = _inflation.set(_Inflation(max_bytes)) if _inflation.get() is None else None
    try:
        return _convert_document(data, suffix, name, max_bytes, declared=declared)
    finally:
        if token is not None:
            _inflation.reset(token)


def _convert_document(data: bytes, suffix: str, name: str, max_bytes: int, *, declared: str | None) -> Converted:
    suffix, compression = split_suffix(suffix)
    if compression:
        if suffix in ocr.IMAGE_EXTENSIONS:  # OCR reads image files as they are
            raise ConversionFailed(f"{name}: unsupported file type {suffix}{compression}")
        inner = _inflated_within(data, compression, name, max_bytes)
        converted = convert_document(inner.data, suffix, name, max_bytes, declared=declared)
        return replace(converted, warnings=(*inner.warnings, *converted.warnings))
    try:
        converted = _convert_by_suffix(data, suffix, name, declared=declared)
    except _DAMAGE as exc:  # what a damaged zip or XML part raises deep in a reader that did not expect it
        raise ConversionFailed(f"{name}: cannot read the {suffix} file, damaged ({damage_words(exc)})") from None
    if _SIBLINGS.get(suffix, suffix) in _PRESENTATIONS:
        converted = replace(converted, markdown=slides_as_pages(converted.markdown))
    return bounded(repaired(converted, name, pdf=suffix == ".pdf" or suffix in ocr.IMAGE_EXTENSIONS), name)


# A zip member's bad CRC or deflate data, an unknown compression method or zip version, an XML
# part's unknown encoding, a member its package names but lacks.
_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, LookupError)
# Members whose names are not the UTF-8 they claim named in warnings, one each; the rest are read alike.
MAX_NAMES_SAID = 5


def _inflated_within(data: bytes, compression: str, name: str, max_bytes: int) -> Inflated:
    """`data` inflated within what the document's compressed streams may still inflate to (_Inflation)."""
    budget = _inflation.get()
    if budget is None:
        return inflated(data, compression, name, max_bytes)
    inner = inflated(data, compression, name, budget.left,
                     together=budget.total if budget.left < budget.total else None)
    budget.left -= len(inner.data)
    return inner


def bounded(converted: Converted, name: str) -> Converted:
    """`converted`, unless its text is over MAX_TEXT_CHARS."""
    if len(converted.markdown) > MAX_TEXT_CHARS:
        raise ConversionFailed(f"{name}: refused: its text is {len(converted.markdown):,} characters, over the "
                               f"{MAX_TEXT_CHARS:,} one document may give; split it")
    return converted


def _convert_by_suffix(data: bytes, suffix: str, name: str, *, declared: str | None = None,
                       rewritten: frozenset[str] = frozenset()) -> Converted:
    suffix = _SIBLINGS.get(suffix, suffix)
    if suffix == MANUAL or is_manual_section(suffix):
        return _manual_page(data, suffix, name)
    if suffix in ocr.IMAGE_EXTENSIONS and data:
        markdown, note = ocr.read_image(data, name)
        return Converted(markdown=markdown, note=note)
    if suffix not in SUPPORTED_EXTENSIONS:
        raise ConversionFailed(f"{name}: unsupported file type {suffix or '(none)'}")
    if suffix in _PLAIN_TEXT:
        text, warnings = decode_text(data, name, declared=declared)
        return Converted(markdown=rendered_html(text, mdx=suffix == ".mdx") if suffix != ".txt"
                         else mark_headings(escape_headings(_without_page_chrome(text))), warnings=warnings,
                         frontmatter=True)
    if not data:
        raise ConversionFailed(f"{name}: empty file")
    if suffix == ".pdf":
        return _convert_pdf(data, name)
    if suffix in _HTML:  # the label outranks the page's own meta tag, as in a browser
        text, warnings = decode_text(data, name, declared=(declared, html_declared_charset(data)))
        return _html(text, name, warnings)
    if suffix == ".rst":
        text, warnings = decode_text(data, name, declared=declared)
        markdown = rst_to_markdown(text)
        return Converted(markdown=markdown, warnings=warnings,
                         note=_only_includes(text, markdown, rst_text.INCLUDE, ".. include::"))
    if suffix in (".adoc", ".asciidoc"):
        text, warnings = decode_text(data, name, declared=declared)
        markdown = asciidoc_to_markdown(text)
        return Converted(markdown=markdown, warnings=warnings,
                         note=_only_includes(text, markdown, asciidoc_text.INCLUDE, "include::"))
    if suffix == ".org":
        text, warnings = decode_text(data, name, declared=declared)
        markdown, title = org_to_markdown(text)
        return Converted(markdown=markdown, metadata_title=title, warnings=warnings)
    if suffix in _LATEX:
        text, warnings = decode_text(data, name, declared=(declared, inputenc_charset(data)))
        markdown, title = latex_to_markdown(text)
        return Converted(markdown=markdown, metadata_title=title, warnings=warnings,
                         note=_only_includes(text, markdown, latex_text.INCLUDE, "\\input, \\include"))
    if suffix == ".rtf":
        return _rtf(data, name)
    if suffix == ".doc":
        return _doc(data, name)
    if suffix in (".xls", ".ppt"):
        return _legacy_office(data, suffix, name)
    if suffix in (".mhtml", ".mht"):
        return _saved_page(data, name)
    if suffix in (".srt", ".vtt"):
        from minirag.ingest.subtitles import subtitles_to_text

        text, warnings = decode_text(data, name, declared=declared)
        return Converted(markdown=escape_headings(subtitles_to_text(text)), warnings=warnings)
    if suffix == ".eml":
        return _read_message(eml_to_markdown(data, name, _AttachedFiles(name, _message_depth.get())))
    if suffix == ".msg":
        return _msg(data, name)
    if suffix == ".mbox":
        return _mailbox(data, name)
    if (suffix in _OOXML_NAMES and data.startswith(_COMPOUND_FILE)
            and "EncryptedPackage".encode("utf-16-le") not in data):
        return _renamed_legacy(data, suffix, name)
    if suffix in (".csv", ".tsv"):
        text, warnings = decode_text(data, name, declared=declared)
        sheet = csv_to_sheet(text, name, "\t" if suffix == ".tsv" else None)
        return Converted(markdown=sheet.markdown, warnings=warnings, rows=sheet.rows)
    if suffix == ".ipynb":
        return _notebook(data, name, declared)
    if suffix in _ZIP_FORMATS and "names" not in rewritten:
        data, misnamed = names_read_as_cp437(data)
        if misnamed:  # now named as a zip that claims nothing is: read as any other
            converted = _convert_by_suffix(data, suffix, name, rewritten=rewritten | {"names"})
            said = tuple(f"{name}: a member's name is not the UTF-8 it claims to be; read as {member[:100]!r}"
                         for member in misnamed[:MAX_NAMES_SAID])
            return replace(converted, warnings=(*said, *converted.warnings))
    if suffix in _ZIP_FORMATS:
        with check_zip(data, name, suffix) as archive:
            damaged = damaged_members(archive) if suffix in _OOXML_NAMES and "damaged" not in rewritten else []
            if damaged:  # now without those members, or with what of them reads: read as any other
                return _read_mended(archive, data, suffix, name, damaged, rewritten)
            if suffix == ".xlsx":
                if _is_binary_workbook(archive):
                    raise ConversionFailed(f"{name}: an Excel binary workbook (.xlsb) under another name: {BINARY_WORKBOOK}")
                check_sheets(archive, name)
            elif suffix in (".docx", ".pptx"):
                check_prologs(archive, name)
                if suffix == ".docx":
                    check_depths(archive, name, _DOCX_PREPROCESSED)
            # Each rewrite is made once: a package that still reads as needing one is read as it is.
            strict = transitional(archive) if suffix in _OOXML_NAMES and "strict" not in rewritten else None
            if strict is not None:  # now Transitional: read as any other
                return _convert_by_suffix(strict, suffix, name, rewritten=rewritten | {"strict"})
            renamed = consistent(archive) if suffix in _OOXML_NAMES and "referenced" not in rewritten else None
            if renamed is not None:  # now named as referenced: read as any other
                return _convert_by_suffix(renamed, suffix, name, rewritten=rewritten | {"referenced"})
            if suffix == ".epub":
                check_spine(archive, name, MAX_ZIP_MEMBERS)
                return _book(archive, data, name)
            elif suffix in ODF_MIMETYPES:
                odf = odf_to_markdown(archive, data, name, suffix)
                return Converted(markdown=odf.markdown, metadata_title=odf.title, warnings=odf.warnings,
                                 rows=odf.rows)
            elif suffix == ".docx":
                visibility = Visibility.of(archive)
                margins = read_margins(archive, visibility)
                converted = _markitdown(shown_docx(archive, visibility) or data, suffix, name)
                return replace(converted, markdown=margins.around(converted.markdown))
            elif suffix == ".pptx":
                return _markitdown(shown_pptx(archive) or data, suffix, name)
    if suffix == ".xlsx":
        return _workbook(data, name)
    return _markitdown(data, suffix, name)


def _without_page_chrome(text: str) -> str:
    """Plain text that form feeds part into pages (an RFC as the RFC Editor writes it, an old manual)
    without the header and footer lines every page repeats, by the rule a PDF's pages are read by;
    the form feeds stay, so pages are still pages."""
    return without_running_lines(text) if "\f" in text else text


def _is_binary_workbook(archive: zipfile.ZipFile) -> bool:
    """Whether a package named as an XML workbook is Excel's binary one: its workbook part `xl/workbook.bin`."""
    names = {member.lower() for member in archive.namelist()}
    return "xl/workbook.bin" in names and "xl/workbook.xml" not in names


def _manual_page(data: bytes, suffix: str, name: str) -> Converted:
    """A manual page (roff_text.py). One named by its section's number (`ls.1`) is one only if it
    begins as one: the walk left out those that do not (scan.is_manual_page), and one changed since is refused."""
    if suffix != MANUAL and not is_roff_head(data[:HEAD_BYTES]):
        if named_as(Path(name).name).note:  # a rotated `changelog.1.gz`: the text it is
            return _convert_by_suffix(data, PLAIN_TEXT, name)
        raise ConversionFailed(f"{name}: does not begin as a manual page (roff: .TH, .Dd or a comment); "
                               "not read as one")
    text, warnings = decode_text(data, name)
    page = roff_to_markdown(text)
    note = ""
    if page.included and not page.markdown.strip():
        note = (f"its text is another page's ({' '.join(page.included[0].split())[:200]}), which a manual page's "
                ".so names; not followed")
    return Converted(markdown=page.markdown, metadata_title=page.title, warnings=warnings, note=note)


def _read_mended(archive: zipfile.ZipFile, data: bytes, suffix: str, name: str, damaged: list[str],
                 rewritten: frozenset[str]) -> Converted:
    """The package read with its `damaged` members mended (zip_damage.py), each named in a warning;
    where what was kept of a part fails its reader, read again with that part emptied instead."""
    first = mended(archive, data, suffix, damaged, name)
    try:
        converted = _convert_by_suffix(first.package, suffix, name, rewritten=rewritten | {"damaged"})
        warnings = first.warnings
    except (ConversionFailed, *_DAMAGE):
        second = mended(archive, data, suffix, damaged, name, keep_text=False)
        try:
            if second.package == first.package:
                raise
            converted = _convert_by_suffix(second.package, suffix, name, rewritten=rewritten | {"damaged"})
        except (ConversionFailed, *_DAMAGE) as exc:
            if isinstance(exc, ConversionFailed) and f"{name}: refused: " in str(exc):
                raise  # what the rest holds (entities, a bomb) is refused, damaged or not
            raise ConversionFailed(second.failure) from None
        warnings = second.warnings
    return replace(converted, warnings=(*warnings, *converted.warnings))


def convert_file(path: Path) -> Converted:
    """Convert a file by its path (scripts and tests; ingest reads through security first)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConversionFailed(f"{path}: cannot read ({exc.strerror or exc})") from None
    return convert_document(data, named_as(Path(path).name).read_as, str(path))


def convert_data(content: str, fmt: str, name: str) -> Converted:
    """Caller-supplied content: text | markdown | html, cleaned of control characters as a file's text is."""
    if fmt not in ("text", "markdown", "html"):
        raise ConversionFailed(f"unknown format {fmt!r}; use text, markdown or html")
    content, warnings = without_controls(content, name)
    if fmt == "html":
        return repaired(_html(content, name, warnings), name)
    # Text is read as a .txt file's is: its title line and its underlined and numbered titles are headings.
    return repaired(Converted(markdown=mark_headings(escape_headings(content)) if fmt == "text"
                              else rendered_html(content), warnings=warnings, frontmatter=True), name)


# --- fetched bodies ------------------------------------------------------------------


_ZIP_MEMBER_FORMATS = (("word/document.xml", ".docx"), ("ppt/presentation.xml", ".pptx"),
                       ("xl/workbook.xml", ".xlsx"))
_TYPE_SUFFIXES = {"text/csv": ".csv", "text/tab-separated-values": ".tsv", "application/x-ipynb+json": ".ipynb", "text/markdown": ".md",
                  "text/x-markdown": ".md", "text/x-rst": ".rst", "text/prs.fallenstein.rst": ".rst",
                  "text/asciidoc": ".adoc", "text/x-asciidoc": ".adoc", "text/x-tex": ".tex",
                  "application/x-tex": ".tex", "text/x-latex": ".tex", "application/x-latex": ".tex",
                  "application/rtf": ".rtf", "text/rtf": ".rtf", "message/rfc822": ".eml",
                  "application/mbox": ".mbox", "text/vtt": ".vtt", "application/x-subrip": ".srt",
                  "text/srt": ".srt", "multipart/related": ".mhtml", "application/x-mimearchive": ".mhtml"}
# An attachment whose name has no suffix minirag reads is read by its MIME type.
_ATTACHED_TYPES = {
    **_TYPE_SUFFIXES, **{kind.decode(): odf for odf, kind in ODF_MIMETYPES.items()},
    "text/plain": ".txt", "text/html": ".html", "application/xhtml+xml": ".html", "application/pdf": ".pdf",
    "application/msword": ".doc", "application/vnd.ms-excel": ".xls", "application/vnd.ms-powerpoint": ".ppt",
    "application/vnd.ms-outlook": ".msg", "application/epub+zip": ".epub",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}


# Served as text/plain (raw.githubusercontent.com serves every file so), a file named as one of these is that.
_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".org", ".tex", ".latex", ".ltx",
                            ".srt", ".vtt", ".qmd", ".rmd"})


def sniff_format(body: bytes, mimetype: str, url: str) -> str:
    """The suffix a fetched body is converted as, decided by its bytes first.

    Archives are checked here (member count, inflated size, ratio) whatever the
    server called them; a zip that is not a document format is refused.
    """
    head = body[:SNIFF].lstrip()
    if body.startswith(b"%PDF-"):
        return ".pdf"
    if body.startswith(_COMPOUND_FILE):  # Office 97-2003, whatever the server called it
        return _compound_kind(body) or ".doc"
    if head.startswith(b"{\\rtf"):
        return ".rtf"
    if body.startswith(b"PK\x03\x04") or body.startswith(b"PK\x05\x06"):
        with check_zip(body, url, "zip") as archive:
            names = set(archive.namelist())
            if "mimetype" in names and archive.read("mimetype").strip() == b"application/epub+zip":
                return ".epub"
            declared = archive.read("mimetype").strip() if "mimetype" in names else b""
            for odf_suffix, odf_type in ODF_MIMETYPES.items():
                if declared == odf_type:
                    return odf_suffix
        for member, suffix in _ZIP_MEMBER_FORMATS:
            if member in names:
                return suffix
        raise ConversionFailed(f"{url}: a zip archive, not a document; archives are not indexed")
    lowered = head[:1024].lower()
    if mimetype in ("text/html", "application/xhtml+xml") or lowered.startswith((b"<!doctype html", b"<html")):
        return ".html"
    if mimetype in _TYPE_SUFFIXES:
        return _TYPE_SUFFIXES[mimetype]
    suffix = Path(url.split("?", 1)[0].split("#", 1)[0]).suffix.lower()
    untyped = not mimetype or mimetype == "application/octet-stream"
    if untyped and suffix in SUPPORTED_EXTENSIONS and suffix not in _ZIP_FORMATS and suffix != ".pdf":
        return suffix
    if mimetype == "text/plain" and suffix in _TEXT_SUFFIXES:
        return suffix
    if (untyped or mimetype == "text/plain" or mimetype == "text/troff") and is_manual_section(suffix) and \
            is_roff_head(body[:HEAD_BYTES]):
        return MANUAL
    return ".txt"  # anything else must at least be text: decode_text refuses binary data


def convert_fetched(body: bytes, *, mimetype: str, charset: str | None, url: str,
                    max_bytes: int = DEFAULT_MAX_FILE_SIZE) -> Converted:
    """A fetched response body (see fetch.py), converted as what its bytes are: a text format's in
    the `charset` its Content-Type declares (decode_text), an HTML page's before its meta tag's; a
    gzip, bzip2 or xz body (application/gzip, a `.gz` URL) as what it inflates to, named by its URL
    without `.gz`."""
    compression = next((kind for signature, kind in SIGNATURES.items() if body.startswith(signature)), "")
    if compression:
        token = _inflation.set(_Inflation(max_bytes))  # the body's and what it carries, together
        try:
            inner = _inflated_within(body, compression, url, max_bytes)
            if inner.data[257:262] == b"ustar":
                raise ConversionFailed(f"{url}: a tar archive, not a document; archives are not indexed")
            path = url.split("?", 1)[0].split("#", 1)[0]
            named = path[:-len(compression)] if path.lower().endswith(compression) else path
            # Sniffed as an untyped body: what the server said was the compressed one's type. Once: a
            # stream inside the stream is not unwrapped again (it is no text, and is refused as binary).
            suffix = sniff_format(inner.data, "", named)
            converted = convert_document(inner.data, suffix, url, max_bytes)
        finally:
            _inflation.reset(token)
        return replace(converted, warnings=(*inner.warnings, *converted.warnings))
    suffix = sniff_format(body, mimetype, url)
    if suffix in _HTML:
        from minirag.ingest.site_pages import convert_site_page

        site_page = convert_site_page(body, mimetype="text/html", charset=charset, url=url)  # Wikipedia, ...
        if site_page is not None:
            return bounded(repaired(site_page, url), url)
    return convert_document(body, suffix, url, max_bytes, declared=charset)
