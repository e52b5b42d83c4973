"""File / bytes / text -> Markdown plus a title (markitdown for office formats, our own for HTML)."""

from __future__ import annotations

import io
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from minirag.errors import ConversionFailed
from minirag.ingest.quiet import converting

log = logging.getLogger(__name__)

SUPPORTED_EXTENSIONS = frozenset(
    {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm", ".csv", ".epub", ".ipynb"}
)
_PLAIN_TEXT = {".md", ".markdown", ".txt"}
_BINARY_SNIFF = 8192

_markitdown = None
_markitdown_lock = threading.Lock()


@dataclass(frozen=True)
class Converted:
    markdown: str
    metadata_title: str | None = None
    warnings: tuple[str, ...] = field(default=())


def _converter():
    global _markitdown
    with _markitdown_lock:
        if _markitdown is None:
            from markitdown import MarkItDown

            _markitdown = MarkItDown(enable_plugins=False)
        return _markitdown


def decode_text(data: bytes, name: str) -> tuple[str, tuple[str, ...]]:
    """UTF-8 (with or without BOM); otherwise the best detected charset, with a warning."""
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise ConversionFailed(f"{name}: looks like a binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig"), ()
    except UnicodeDecodeError as exc:
        position = exc.start
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
    except ImportError:  # pragma: no cover - markitdown depends on it
        best = None
    if best is None:
        return data.decode("utf-8", errors="replace"), (
            f"{name}: invalid UTF-8 at byte {position}; undecodable bytes replaced",
        )
    return str(best), (f"{name}: not UTF-8 (invalid at byte {position}); decoded as {best.encoding}",)


def _markitdown_convert(source, name: str, **kwargs) -> Converted:
    try:
        with converting(name):
            result = _converter().convert(source, **kwargs)
    except Exception as exc:  # noqa: BLE001 - markitdown wraps parser errors inconsistently
        cause = exc.__cause__ or exc
        detail = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        raise ConversionFailed(f"{name}: cannot convert ({type(cause).__name__}: {detail[:300]})") from None
    markdown = result.markdown or ""
    title = (result.title or "").strip() or None
    return Converted(markdown=markdown, metadata_title=title)


# One converter per extension, never markitdown's guess-and-fall-back chain: a
# corrupt PDF must fail, not be indexed as its raw bytes by the plain-text converter.
_CONVERTERS = {
    ".docx": "DocxConverter", ".pptx": "PptxConverter", ".xlsx": "XlsxConverter",
    ".csv": "CsvConverter", ".epub": "EpubConverter", ".ipynb": "IpynbConverter",
}
# DOCX: a paragraph in Word's "Title" style is the document's title, so it becomes its
# H1; a table's first row becomes the Markdown header row, not an empty one above it.
_CONVERTER_OPTIONS = {
    ".docx": {"style_map": "p[style-name='Title'] => h1:fresh", "table_infer_header": True},
}
_HTML = {".html", ".htm"}
_ZIP_FORMATS = {".docx", ".pptx", ".xlsx", ".epub"}
# Office files are zips; refuse to inflate one past this (a zip bomb), checked from
# the central directory before any parser touches it.
MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024
MAX_ZIP_RATIO = 200


def _check_zip(path: Path) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise ConversionFailed(f"{path}: not a valid {path.suffix} file (corrupt or truncated zip: {exc})") from None
    unpacked = sum(m.file_size for m in members)
    packed = max(1, sum(m.compress_size for m in members))
    if unpacked > MAX_UNZIPPED_BYTES or (unpacked > 50 * 1024 * 1024 and unpacked / packed > MAX_ZIP_RATIO):
        raise ConversionFailed(
            f"{path}: refused: would inflate to {unpacked} bytes from {packed} (zip bomb?)"
        )


def _convert_pdf(path: Path) -> Converted:
    """pdfminer text with a form feed after every page, so chunks can cite page numbers."""
    try:
        from pdfminer.high_level import extract_text
        from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    except ImportError as exc:  # pragma: no cover - markitdown[pdf] installs it
        raise ConversionFailed(f"{path}: PDF support is not installed ({exc})") from None
    try:
        with converting(str(path)):
            text = extract_text(str(path))
    except (PDFPasswordIncorrect, PDFEncryptionError):
        raise ConversionFailed(f"{path}: encrypted PDF (password required)") from None
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many unrelated types on bad input
        raise ConversionFailed(f"{path}: cannot read PDF ({type(exc).__name__}: {str(exc)[:200]})") from None
    return Converted(markdown=text)


def _html(text: str, name: str, warnings: tuple[str, ...] = ()) -> Converted:
    from minirag.ingest.html_markdown import html_to_markdown

    try:
        markdown, title = html_to_markdown(text)
    except ConversionFailed as exc:
        raise ConversionFailed(f"{name}: {exc}") from None
    return Converted(markdown=markdown, metadata_title=title, warnings=warnings)


def _convert_html(path: Path) -> Converted:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConversionFailed(f"{path}: cannot read ({exc.strerror or exc})") from None
    text, warnings = decode_text(data, str(path))
    return _html(text, str(path), warnings)


def convert_file(path: Path) -> Converted:
    """Convert one file. Raises ConversionFailed with a one-line reason."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        raise ConversionFailed(f"{path}: unsupported file type {suffix or '(none)'}")
    try:
        if suffix in _PLAIN_TEXT:
            text, warnings = decode_text(path.read_bytes(), str(path))
            return Converted(markdown=text, warnings=warnings)
        if path.stat().st_size == 0:
            raise ConversionFailed(f"{path}: empty file")
    except OSError as exc:
        raise ConversionFailed(f"{path}: cannot read ({exc.strerror or exc})") from None
    if suffix == ".pdf":
        return _convert_pdf(path)
    if suffix in _HTML:
        return _convert_html(path)
    if suffix in _ZIP_FORMATS:
        _check_zip(path)
    import markitdown.converters as converters
    from markitdown import StreamInfo

    converter = getattr(converters, _CONVERTERS[suffix])()
    info = StreamInfo(extension=suffix, filename=path.name, local_path=str(path),
                      charset="utf-8" if suffix in (".csv", ".ipynb") else None)
    try:
        with open(path, "rb") as handle:
            if suffix in (".csv", ".ipynb"):
                text, warnings = decode_text(handle.read(), str(path))
                handle = io.BytesIO(text.encode("utf-8"))
            else:
                warnings = ()
            with converting(str(path)):
                result = converter.convert(handle, info, **_CONVERTER_OPTIONS.get(suffix, {}))
    except ConversionFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - parsers raise anything on hostile input
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise ConversionFailed(f"{path}: cannot convert ({type(exc).__name__}{': ' + detail if detail else ''})") from None
    return Converted(markdown=result.markdown or "", metadata_title=(result.title or "").strip() or None,
                     warnings=tuple(warnings))


def convert_data(content: str, fmt: str, name: str) -> Converted:
    """Caller-supplied content: text | markdown | html."""
    if fmt in ("text", "markdown"):
        return Converted(markdown=content)
    if fmt == "html":
        return _html(content, name)
    raise ConversionFailed(f"unknown format {fmt!r}; use text, markdown or html")


def convert_bytes(body: bytes, *, mimetype: str, charset: str | None, url: str) -> Converted:
    """A fetched response body (see fetch.py): HTML converted here, other types by markitdown's pick."""
    from markitdown import StreamInfo

    from minirag.ingest.site_pages import convert_site_page

    site_page = convert_site_page(body, mimetype=mimetype, charset=charset, url=url)  # Wikipedia, YouTube, ...
    if site_page is not None:
        return site_page

    suffix = Path(url.split("?", 1)[0].split("#", 1)[0]).suffix.lower() or None
    if mimetype in ("text/html", "application/xhtml+xml") or (not mimetype and suffix in _HTML):
        if charset:
            try:
                return _html(body.decode(charset, errors="replace"), url)
            except LookupError:
                pass  # an unknown charset name: detect it instead
        text, warnings = decode_text(body, url)
        return _html(text, url, warnings)
    info = StreamInfo(mimetype=mimetype or None, charset=charset, url=url, extension=suffix)
    return _markitdown_convert(io.BytesIO(body), url, stream_info=info)
