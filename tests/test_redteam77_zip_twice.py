"""Red team 77: a DOCX (or any zip-based document) holding two members of one name. Python's
zipfile reads the last, where other readers may show the first, so a file could show one text to
whoever opens it and give the index another: `word/document.xml` twice indexed the second body.
Such a package (no valid one names a part twice) is refused in one line, as a damaged one is."""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

from minirag.results import payload

_TYPES = (b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          b'<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
          b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
_RELS = (b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
         b'officeDocument" Target="word/document.xml"/></Relationships>')


def body(text: str) -> bytes:
    return ('<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
            f'<w:body><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>').encode()


def docx(path: Path, *texts: str) -> Path:
    """A DOCX whose `word/document.xml` is written once for each of `texts`, in order."""
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as archive:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        archive.writestr("[Content_Types].xml", _TYPES)
        archive.writestr("_rels/.rels", _RELS)
        for text in texts:
            archive.writestr("word/document.xml", body(text))
    return path


def test_a_docx_naming_its_body_twice_is_refused_and_neither_body_indexed(app, docs):
    docx(docs / "twice.docx", "Quokkas shown to the reader", "Wombats hidden from the reader")
    docx(docs / "once.docx", "Platypus in a plain document")
    progress = app.sync()
    assert progress.failed == 1
    [warning] = [w for w in progress.warnings if "twice.docx" in w]
    assert "two members of the .docx file are named 'word/document.xml'" in warning and "\n" not in warning
    for word in ("wombats", "quokkas"):
        assert not [hit for hit in payload(app.query(word, top_k=5))["results"] if word in hit["text"].lower()]
    hits = payload(app.query("platypus", top_k=5))["results"]
    assert [hit for hit in hits if "platypus" in hit["text"].lower()]  # a package naming each part once reads
