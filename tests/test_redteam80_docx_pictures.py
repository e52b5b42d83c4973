"""Red team 80: a DOCX picture whose bytes are not in the package. mammoth opens each picture a body
part shows as the member its relationship names, so one picture linked from outside (Word's linked
pictures, `TargetMode="External"` to `file:///…`, `\\\\host\\share`, `http://169.254.169.254/`), one
whose relationship is missing, or one naming a member the package lacks refused the whole document:
`cannot convert (KeyError: "There is no item named 'word/file:///…' in the archive")`, every word of
it lost for one picture. Nothing outside the package was read, and nothing is now: such a picture
reads as its alt text, as a picture that reads does, and the rest of the document reads."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from minirag.ingest.convert import convert_document

FIXTURE = Path(__file__).parent / "fixtures" / "docs" / "docx_plain_paragraphs.docx"
_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"


def _relationship(target: str, *, external: bool) -> bytes:
    mode = ' TargetMode="External"' if external else ""
    return f'<Relationship Type="{_IMAGE}" Id="rPic" Target="{target}"{mode} />'.encode()


def _drawing(alt: str, blip: str = 'r:embed="rPic"') -> bytes:
    return (f'<w:p><w:r><w:t xml:space="preserve">Before the picture. </w:t></w:r><w:r><w:drawing><wp:inline>'
            f'<wp:extent cx="9" cy="9"/><wp:docPr id="7" name="Picture 7" descr="{alt}"/><a:graphic>'
            '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr>'
            f'<pic:cNvPr id="7" name="Picture 7" descr="{alt}"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill>'
            f'<a:blip {blip}/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline>'
            '</w:drawing></w:r><w:r><w:t xml:space="preserve"> After the picture.</w:t></w:r></w:p>').encode()


def _vml(alt: str) -> bytes:
    return (f'<w:p><w:r><w:t xml:space="preserve">Before the picture. </w:t></w:r><w:r><w:pict><v:shape>'
            f'<v:imagedata r:id="rPic" o:title="{alt}"/></v:shape></w:pict></w:r>'
            '<w:r><w:t xml:space="preserve"> After the picture.</w:t></w:r></w:p>').encode()


def _docx(picture: bytes, relationship: bytes) -> bytes:
    with zipfile.ZipFile(FIXTURE) as source:
        parts = {member.filename: source.read(member) for member in source.infolist()}
    rels = "word/_rels/document.xml.rels"
    parts[rels] = parts[rels].replace(b"</Relationships>", relationship + b"</Relationships>")
    parts["word/document.xml"] = parts["word/document.xml"].replace(b"<w:body>", b"<w:body>" + picture, 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    return buffer.getvalue()


@pytest.fixture
def secret(tmp_path):
    """A file outside any package, holding words no conversion may show."""
    path = tmp_path / "secret.png"
    path.write_bytes(b"SECRETWALRUS" * 8)
    return path


@pytest.mark.parametrize("shape", [_drawing, _vml], ids=["drawing", "vml"])
@pytest.mark.parametrize("target", [
    "file:///{secret}", "{secret}", "../../../../../../../..{secret}", "http://169.254.169.254/latest/meta-data",
    "\\\\host\\share\\{name}", "media/{name}", None,
], ids=["file-url", "absolute", "climbing", "metadata-address", "unc-share", "missing-member", "no-relationship"])
def test_a_picture_the_package_does_not_hold_reads_as_its_alt_text_and_the_document_reads(shape, target, secret):
    if target is None:
        relationship = b""
    else:
        spelled = target.format(secret=secret.as_posix(), name=secret.name)
        relationship = _relationship(spelled, external="://" in spelled or spelled.startswith(("\\", "/")))
    converted = convert_document(_docx(shape("a walrus on the ice"), relationship), ".docx", "linked.docx")
    markdown = converted.markdown
    assert "Before the picture. a walrus on the ice After the picture." in " ".join(markdown.split())
    assert "Python is just the language for you." in markdown  # the rest of the document
    assert "SECRETWALRUS" not in markdown and "U0VDUkVUV0FMUlVT" not in markdown  # nor its base64


@pytest.mark.parametrize("blip", ['r:link="rPic"', 'r:embed="" r:link="rPic"'], ids=["linked", "embed-empty"])
@pytest.mark.parametrize("relationship", [True, False], ids=["its-relationship", "no-relationship"])
def test_a_linked_picture_reads_as_its_alt_text(blip, relationship, secret):
    """Word's "Link to File" picture (`a:blip r:link`): mammoth never opens it (its external file
    access is off), so it was dropped with its alt text, and a missing relationship, or an empty
    `r:embed` beside it, refused the whole document (`KeyError: 'rPic'`)."""
    spelled = _relationship(f"file:///{secret.as_posix()}", external=True) if relationship else b""
    converted = convert_document(_docx(_drawing("a walrus on the ice", blip), spelled), ".docx", "linked.docx")
    assert "Before the picture. a walrus on the ice After the picture." in " ".join(converted.markdown.split())
    assert "SECRETWALRUS" not in converted.markdown


def test_a_picture_the_package_holds_still_reads_as_before():
    """The rewrite touches only pictures that cannot be read: a package whose pictures all resolve
    keeps its bytes (docx_word_comments.docx holds one inline picture)."""
    import zipfile as zf

    from minirag.ingest import docx_visible

    data = (FIXTURE.parent / "docx_word_comments.docx").read_bytes()
    with zf.ZipFile(io.BytesIO(data)) as archive:
        assert docx_visible.shown_docx(archive, docx_visible.Visibility.of(archive)) is None


@pytest.mark.parametrize("member", ["word/_rels/document.xml.rels", "_rels/.rels"])
@pytest.mark.parametrize("lacking", ["Target", "Id", "Type"])
def test_a_relationship_lacking_an_attribute_is_left_out_and_the_document_reads(member, lacking):
    """mammoth reads every relationship's Id, Target and Type: one lacking any refused the whole
    document (`cannot convert (KeyError: 'Target')`), though nothing may name it."""
    broken = {"Target": b'<Relationship Id="rX" Type="urn:x" />', "Id": b'<Relationship Type="urn:x" Target="x.xml" />',
              "Type": b'<Relationship Id="rX" Target="x.xml" />'}[lacking]
    with zipfile.ZipFile(FIXTURE) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    parts[member] = parts[member].replace(b"</Relationships>", broken + b"</Relationships>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    markdown = convert_document(buffer.getvalue(), ".docx", "rels.docx").markdown
    assert markdown == convert_document(FIXTURE.read_bytes(), ".docx", "plain.docx").markdown
