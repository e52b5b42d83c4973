"""EPUB books built in memory for reader tests: a container, an OPF package and its pages."""

from __future__ import annotations

import io
import zipfile

XML_DECLARATION = "<?xml version='1.0' encoding='utf-8'?>\n"


def xhtml(body: str, *, lang: str | None = None, head: str = "") -> str:
    """A spine page holding `body`."""
    language = f' lang="{lang}"' if lang else ""
    heading = f"<head>{head}</head>" if head else ""
    return f'<html xmlns="http://www.w3.org/1999/xhtml">{heading}<body{language}>{body}</body></html>'


def epub_book(manifest: list[tuple[str, str]], spine: list[str], pages: dict[str, str], *, title: str,
              metadata: str = "") -> bytes:
    """An EPUB 2 book: `manifest` (id, href) items, `spine` ids read in order, `pages` the whole
    documents by href under OEBPS/, `metadata` more OPF metadata after the title."""
    items = "".join(f'<item id="{i}" href="{href}" media-type="application/xhtml+xml"/>' for i, href in manifest)
    refs = "".join(f'<itemref idref="{i}" linear="yes"/>' for i in spine)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:'
                      'names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
                      'media-type="application/oebps-package+xml"/></rootfiles></container>')
        book.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                      'version="2.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
                      f"<dc:title>{title}</dc:title>{metadata}</metadata><manifest>{items}</manifest>"
                      f"<spine>{refs}</spine></package>")
        for name, page in pages.items():
            book.writestr(f"OEBPS/{name}", page)
    return buffer.getvalue()
