"""A document that links files or pages outside itself (a DOCX's image linked, not embedded) is
converted from its own bytes: nothing it names is opened or fetched."""

from __future__ import annotations

import http.server
import io
import threading
import tomllib
import zipfile

from conftest import ROOT
from packaging.requirements import Requirement

from minirag.ingest.convert import convert_document

_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def docx_linking(*targets: str) -> bytes:
    """A DOCX of one paragraph and an image per target, each linked (TargetMode External), not embedded."""
    ns = (b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
          b'xmlns:r="' + _REL.encode() + b'"')
    pictures = b"".join(
        b'<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/'
        b'wordprocessingDrawing"><wp:docPr id="%d" name="p" descr="linked picture"/><a:graphic xmlns:a="http://'
        b'schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/'
        b'drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">'
        b'<pic:blipFill><a:blip r:link="rId%d"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline>'
        b"</w:drawing></w:r></w:p>" % (n, n) for n in range(1, len(targets) + 1))
    links = "".join(f'<Relationship Id="rId{n}" Type="{_REL}/image" Target="{target}" TargetMode="External"/>'
                    for n, target in enumerate(targets, 1))
    members = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships'
        '+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        f'relationships"><Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/>'
        "</Relationships>",
        "word/_rels/document.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.'
        f'org/package/2006/relationships">{links}</Relationships>',
        "word/document.xml": b'<?xml version="1.0"?><w:document ' + ns + b"><w:body>" + pictures
        + b"<w:p><w:r><w:t>The okapi is a giraffid.</w:t></w:r></w:p></w:body></w:document>",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class _Counting(http.server.BaseHTTPRequestHandler):
    paths: list[str] = []

    def do_GET(self):  # noqa: N802 - the handler's name in http.server
        self.paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(b"\x89PNG\r\n\x1a\n")

    def log_message(self, format, *args):  # noqa: A002
        pass


def test_a_docx_linking_images_outside_itself_reads_no_file_and_fetches_no_page(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("zanzibarquux is a word only the linked file holds\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        data = docx_linking(f"http://127.0.0.1:{server.server_port}/metadata.png", secret.as_uri(), "secret.txt")
        converted = convert_document(data, ".docx", str(tmp_path / "linked.docx"))
    finally:
        server.shutdown()
    assert "The okapi is a giraffid." in converted.markdown
    assert _Counting.paths == []


def test_the_declared_mammoth_opens_no_linked_file_by_default():
    """mammoth before 1.11 opened every linked image itself: a local path, a file: URL, or any URL
    through urlopen (CVE-2025-11849); markitdown 0.1.2, which minirag supports, allows mammoth 1.10."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    mammoth = [Requirement(spec) for spec in dependencies if Requirement(spec).name == "mammoth"]
    assert mammoth and not mammoth[0].specifier.contains("1.10.0") and mammoth[0].specifier.contains("1.11.0")
