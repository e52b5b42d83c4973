"""A root full of hostile files: every bad one gets a warning naming it, the good ones are
indexed and searchable, and the sync finishes without raising, through `run_sync`, the
App and the CLI alike."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, write

import minirag.app
import minirag.ingest.ocr
import minirag.ingest.scan
import minirag.ingest.sync
from minirag.errors import ConversionFailed
from minirag.ingest.pipeline import Progress
from minirag.ingest.sync import run_sync
from minirag.results import payload

HOSTILE = FIXTURES / "hostile"
SINGLE_LINE_BYTES = 256 * 1024  # the real path; the 50 MiB one is refused by MAX_FILE_SIZE below

# Bad file name -> a fragment its warning must carry.
EXPECTED_WARNINGS = {
    "binary_renamed.md": "binary file",
    "corrupt.docx": "not a valid .docx",
    "not_a_zip.xlsx": "not a valid .xlsx",
    "csv_renamed.xlsx": "not a valid .xlsx",
    "encrypted.pdf": "encrypted PDF",
    "truncated.pdf": "cannot read PDF",
    "empty.md": "no text found",
    "invalid_utf8.txt": "decoded as cp1251",
    "zip_bomb.docx": "zip bomb",
}
# Bad but still indexed (with a warning) versus refused outright.
INDEXED_WITH_WARNING = {"empty.md", "invalid_utf8.txt"}
GOOD = {
    "good_quokka.md": "# Quokkas\n\nThe quokka is a small marsupial living on Rottnest Island.\n",
    "notes/good_fjord.txt": "Fjords are long, narrow inlets with steep sides, carved by glaciers.\n",
}


def _make_hostile():
    spec = importlib.util.spec_from_file_location("make_hostile", HOSTILE / "make_hostile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory) -> Path:
    """~0.2 MB DOCX inflating to 200 MiB (ratio ~1000:1, over MAX_ZIP_RATIO); the 1.1 GiB one, over
    MAX_UNZIPPED_BYTES too, takes seconds to make and is refused by the same central-directory check."""
    return _make_hostile().make_docx_zip_bomb(tmp_path_factory.mktemp("bomb") / "zip_bomb.docx",
                                              inflated_size=200 * 1024 * 1024)


@pytest.fixture
def hostile_root(docs, zip_bomb) -> Path:
    for fixture in HOSTILE.iterdir():
        if fixture.is_file() and fixture.suffix != ".py":  # not a __pycache__ its generator's import left
            shutil.copyfile(fixture, docs / fixture.name)
    shutil.copyfile(zip_bomb, docs / "zip_bomb.docx")
    _make_hostile().make_single_line_text(docs / "single_line.txt", size=SINGLE_LINE_BYTES)
    write(docs / "vanished.md", "# Soon gone\n\nThis file disappears between the scan and the read.\n")
    for name, text in GOOD.items():
        write(docs / name, text)
    return docs


@pytest.fixture
def vanish_after_scan(monkeypatch, hostile_root):
    """The scan sees vanished.md; it is deleted before the pipeline reads it."""
    real_walk_roots = minirag.ingest.sync.walk_roots

    def walk_then_delete(roots, unreadable=None, others=None, *rules_and_ignored):
        found = list(real_walk_roots(roots, unreadable, others, *rules_and_ignored))
        (hostile_root / "vanished.md").unlink()
        return found

    monkeypatch.setattr(minirag.ingest.sync, "walk_roots", walk_then_delete)


def warning_for(progress: Progress, name: str) -> str:
    matches = [w for w in progress.warnings if f"{os.sep}{name}:" in w]
    assert matches, f"no warning names {name}: {progress.warnings}"
    return matches[0]


def assert_hostile_outcome(app, progress: Progress, root: Path) -> None:
    for name, fragment in EXPECTED_WARNINGS.items():
        assert fragment in warning_for(progress, name), name
    # Deleted between the scan and the read: gone, not failed, and nothing to say.
    assert not [w for w in progress.warnings if "vanished.md" in w]
    indexed = {row.source for row in app.index.list_sources()}
    assert str(root / "vanished.md") not in indexed
    for name in EXPECTED_WARNINGS.keys() - INDEXED_WITH_WARNING:
        assert str(root / name) not in indexed, name
    for name in (*GOOD, "encrypted_empty_user_password.pdf", "single_line.txt", "invalid_utf8.txt"):
        assert str(root / name) in indexed, name
    # Indexed with no chunks, and the note `list` shows says why long after the sync's warning scrolled by.
    assert app.index.stored_states("file")[str(root / "empty.md")].note == "no text found (empty or only pictures?)"
    assert progress.failed == len(EXPECTED_WARNINGS) - len(INDEXED_WITH_WARNING)
    for query, name in (("quokka marsupial", "good_quokka.md"), ("glaciers carved fjords", "notes/good_fjord.txt")):
        hits = payload(app.query(query, top_k=3))["results"]
        assert hits and hits[0]["source"] == str(root / name), (query, hits[:1])


@pytest.mark.slow
def test_a_sync_over_hostile_files_warns_per_file_and_indexes_the_good_ones(app, hostile_root, vanish_after_scan):
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert_hostile_outcome(app, progress, hostile_root)


@pytest.mark.slow
def test_the_app_ingesting_a_hostile_folder_warns_per_file_and_indexes_the_good_ones(
        app, hostile_root, monkeypatch):
    real_walk = minirag.ingest.scan.walk  # App.ingest_paths imports it from there when it runs

    def walk_then_delete(start, roots, unreadable=None, others=None, *rules_and_ignored):
        found = list(real_walk(start, roots, unreadable, others, *rules_and_ignored))
        (hostile_root / "vanished.md").unlink()
        return found

    monkeypatch.setattr(minirag.ingest.scan, "walk", walk_then_delete)
    progress = app.ingest_paths([str(hostile_root)])
    assert_hostile_outcome(app, progress, hostile_root)


@pytest.mark.slow
def test_the_app_refuses_one_hostile_file_with_an_error_naming_it(app, hostile_root):
    from minirag.errors import MiniragError

    for name in ("encrypted.pdf", "zip_bomb.docx", "corrupt.docx"):
        with pytest.raises(MiniragError, match=name.replace(".", r"\.")):
            app.ingest_file(str(hostile_root / name))


@pytest.mark.slow
def test_the_cli_sync_over_hostile_files_completes_and_names_each_failure(run_cli, hostile_root, tmp_path,
                                                                          model_dir):
    (hostile_root / "vanished.md").unlink()  # the tests above cover a file vanishing mid-sync
    done = run_cli("sync", "--base-dir", str(hostile_root), "--db-path", str(tmp_path / "cli.db"), "--model-path",
                   str(model_dir), "--json", cwd=ROOT, env=dict.fromkeys(("BASE_DIRS", "BASE_DIR", "MAX_FILE_SIZE")))
    assert done.returncode == 1, done.stderr  # 1: some files failed, by design
    assert "Traceback" not in done.stderr
    payload = json.loads(done.stdout)
    for name, fragment in EXPECTED_WARNINGS.items():
        assert any(f"{os.sep}{name}:" in w and fragment in w for w in payload["warnings"]), name
    assert payload["ingested"] == len(GOOD) + 4  # + encrypted_empty_user_password, single_line, empty, invalid_utf8


def test_a_50_mib_single_line_file_over_max_file_size_is_refused_with_a_warning(make_app, docs):
    """The 50 MiB line through the real path took 140 s here (170k chunks), so this checks
    the refusal under MAX_FILE_SIZE; the 256 KiB line above covers the real path."""
    big = _make_hostile().make_single_line_text(docs / "huge_line.txt")
    write(docs / "small.md", "# Small\n\nA small file next to a huge one.\n")
    app = make_app(env={"MAX_FILE_SIZE": str(10 * 1024 * 1024)})
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert "file too large" in warning_for(progress, big.name)
    assert (progress.done, progress.failed) == (1, 1)
    assert {row.source for row in app.index.list_sources()} == {str(docs / "small.md")}


def test_an_unreadable_file_is_reported_and_skipped(app, docs):
    locked = write(docs / "locked.md", "# Locked\n\nNobody may read this.\n")
    write(docs / "open.md", "# Open\n\nEveryone may read this.\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as root (or with CAP_DAC_OVERRIDE): mode 000 does not stop reads")
        progress = run_sync(app.pipeline, list(app.config.roots))
    finally:
        locked.chmod(0o644)
    assert "cannot read" in warning_for(progress, "locked.md")
    assert {row.source for row in app.index.list_sources()} == {str(docs / "open.md")}


@pytest.mark.parametrize("limit, value", [("MAX_UNZIPPED_BYTES", 50_000), ("MAX_ZIP_MEMBERS", 5)])
def test_each_archive_limit_refuses_on_its_own_from_the_central_directory(monkeypatch, limit, value):
    import io
    import os
    import zipfile

    from minirag.errors import ConversionFailed
    from minirag.ingest import convert

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for i in range(8):  # 8 members of 10 KB of random bytes: ratio ~1, 80 KB inflated
            archive.writestr(f"part{i}.bin", os.urandom(10_000))
    data = buffer.getvalue()
    convert.check_zip(data, "ok.zip", "zip")  # within every default limit
    monkeypatch.setattr(convert, limit, value)
    with pytest.raises(ConversionFailed, match="zip bomb"):
        convert.check_zip(data, "bomb.zip", "zip")


# Texts that drove a chunking or keyword regex into exponential or quadratic backtracking: seconds
# to years of one core, holding the GIL, so a server stopped answering. Each must be cut at once.
BACKTRACKING_TEXTS = {
    "numbered title": "# " + "1" * 40 + "x\n\nbody text\n",
    "empty links": "[](" * 40_000,
    "open brackets": "[" * 40_000 + "](" * 8_000,
    "data images": "![" * 20_000 + "](data:" * 5_000,
    "padded heading": "# a" + " " * 200_000 + "b\n\ntext\n",
    "padded frontmatter": "---\ntitle: x" + " " * 200_000 + "y\n- item" + " " * 200_000 + "z\n---\n\ntext\n",
    "padded line (transcript test)": "a" + " " * 100_000 + "x\n",
    "padded table separator": "| a | b |\n|---" + " " * 200_000 + "x\n| 1 | 2 |\n",
    "image-bracket title": "# " + "![" * 50_000 + "\n\ntext\n",
    "long word (identifier test)": "a" * 200_000,
    "hex dump": "0123456789abcdef" * 12_500 + "_x",
    "joined long words": ("ab" * 50_000 + ".") * 4 + "c",
}
_CHUNK_ALL = """
import json, sys
from minirag.chunking import chunk_document
from minirag.chunking.titles import choose_title
from minirag.keywords import normalize, query_terms
for name, text in json.load(sys.stdin).items():
    normalize(text)
    query_terms(text)
    choose_title(text, metadata_title=None, stem="x")
    chunk_document(text, title="", count_tokens=lambda t: len(t.split()) + len(t) // 8, budget=200)
    print(name, flush=True)
"""


@pytest.mark.slow
def test_texts_that_made_chunking_or_keyword_regexes_backtrack_are_cut_at_once():
    """Run in a child with a deadline, so a regression fails here instead of hanging the suite."""
    done = subprocess.run([sys.executable, "-c", _CHUNK_ALL], input=json.dumps(BACKTRACKING_TEXTS), text=True,
                          capture_output=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:-1] == list(BACKTRACKING_TEXTS)


def _pdf_with_content(stream: bytes, text_ops: bytes = b"") -> bytes:
    """A one-page PDF whose page content is `stream` (already deflated, /FlateDecode)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    from pdf_maker import pdf_of_objects

    return pdf_of_objects(objects)


@pytest.mark.slow
def test_a_pdf_whose_streams_inflate_past_the_budget_is_refused_and_a_normal_one_reads(monkeypatch):
    import zlib

    from minirag.errors import ConversionFailed
    from minirag.ingest import convert, pdf_inflate

    text = b"BT /F1 24 Tf 72 700 Td (Otters hold hands) Tj ET\n"
    assert "Otters hold hands" in convert.convert_document(_pdf_with_content(zlib.compress(text)), ".pdf", "ok.pdf").markdown
    monkeypatch.setattr(pdf_inflate, "MAX_PDF_INFLATED_BYTES", 8 * 1024 * 1024)  # the same rule, scaled down
    bomb = _pdf_with_content(zlib.compress(text + b" " * (64 * 1024 * 1024), 9))  # 64 MB of spaces: ~64 kB
    assert len(bomb) < 200_000
    with pytest.raises(ConversionFailed, match="inflate past 8 MB; refused as a decompression bomb"):
        convert.convert_document(bomb, ".pdf", "bomb.pdf")
    # A bad checksum made the bounded inflater raise, and pdfminer's unbounded fallback took over.
    deflated = zlib.compress(text + b" " * (64 * 1024 * 1024), 9)
    corrupt = _pdf_with_content(deflated[:-4] + bytes(4))
    with pytest.raises(ConversionFailed, match="refused as a decompression bomb"):
        convert.convert_document(corrupt, ".pdf", "corrupt-bomb.pdf")
    damaged = zlib.compress(text)
    assert "Otters" in convert.convert_document(_pdf_with_content(damaged[:-4] + bytes(4)), ".pdf", "d.pdf").markdown


def test_one_member_inflating_far_past_the_rest_is_refused_though_the_archive_ratio_is_low():
    """Random bytes stored beside it pull the archive's overall ratio under its limit."""
    import io
    import os
    import zipfile

    from minirag.errors import ConversionFailed
    from minirag.ingest import convert

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", b"<w:p/>" * 1_000_000, compress_type=zipfile.ZIP_DEFLATED)  # 6 MB
        archive.writestr("padding.bin", os.urandom(200_000), compress_type=zipfile.ZIP_STORED)
    with pytest.raises(ConversionFailed, match="word/document.xml would inflate"):
        convert.check_zip(buffer.getvalue(), "bomb.docx", "DOCX")


def test_a_huge_word_is_cut_so_no_hit_or_parent_carries_megabytes(app):
    import json

    app.ingest_data("The glacier word " + "q" * 400_000 + " ends the glacier note", "notes/one-word")
    answer = payload(app.query("glacier", top_k=1))
    assert answer["results"] and answer["results"][0]["sourceType"] == "data"
    assert len(json.dumps(answer)) < 40_000  # the hit and its parent section, not 400 KB


def test_a_pdf_whose_references_loop_reads_its_text_instead_of_spinning_until_the_cpu_limit():
    """`6 0 obj 7 0 R`, `7 0 obj 6 0 R` as the page's XObjects: pdfminer followed the pair for
    ever, so a 600-byte file cost every sync MINIRAG_CONVERT_CPU_SECONDS. Run in a worker, under
    a CPU limit far below that, so a regression fails here instead of hanging the suite."""
    from pdf_maker import pdf_of_objects

    from minirag.ingest import isolation

    text = b"BT /F1 24 Tf 72 700 Td (Otters hold hands) Tj ET"
    looped = pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject 6 0 R >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"7 0 R",
        b"6 0 R",
    ])
    converted = isolation.POOL.run("document", (looped, ".pdf", "loop.pdf"), "loop.pdf",
                                   isolation.Limits(2048, 20, 120))
    assert "Otters hold hands" in converted.markdown


def test_a_pdf_whose_cross_reference_sections_lead_back_to_themselves_is_read():
    """A trailer's /Prev naming its own cross-reference section: pdfminer read it again and again,
    and the whole PDF was refused ('its structure is nested too deeply to read')."""
    from pdf_maker import make_pdf

    from minirag.ingest.convert import convert_document

    pdf = make_pdf([["Otters hold hands while they sleep."]])
    start = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    looped = pdf.replace(b"trailer\n<< ", b"trailer\n<< /Prev %d " % start)
    assert b"/Prev" in looped
    assert "Otters hold hands" in convert_document(looped, ".pdf", "loop.pdf").markdown


def _claiming(archive: bytes, member: str, compress_size: int) -> bytes:
    """`archive` with the central directory's compressed size of `member` changed to `compress_size`
    (the local header and the data left as they are: readers go by the central directory)."""
    import struct

    entry = archive.index(b"PK\x01\x02")
    while True:
        name_length = struct.unpack_from("<H", archive, entry + 28)[0]
        if archive[entry + 46:entry + 46 + name_length] == member.encode():
            return archive[:entry + 20] + struct.pack("<I", compress_size) + archive[entry + 24:]
        entry = archive.index(b"PK\x01\x02", entry + 4)


def test_a_member_claiming_more_compressed_bytes_than_the_archive_holds_for_it_is_refused():
    """A lie in the central directory made 5 MB of XML deflated to 10 kB look 83:1, under the
    member ratio: the archive is read by the central directory's sizes, the data inflates all
    the same, and the DOCX parser spends a minute on it."""
    import io
    import zipfile

    from minirag.errors import ConversionFailed
    from minirag.ingest import convert

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        archive.writestr("word/document.xml", b"<w:p/>" * 1_000_000)  # 6 MB
    honest = buffer.getvalue()
    assert len(honest) < 30_000
    with pytest.raises(ConversionFailed, match="word/document.xml would inflate"):
        convert.check_zip(honest, "honest.docx", "DOCX")
    lying = _claiming(honest, "word/document.xml", 70_000)
    assert zipfile.ZipFile(io.BytesIO(lying)).read("word/document.xml") == b"<w:p/>" * 1_000_000
    with pytest.raises(ConversionFailed, match="word/document.xml claims 70000 compressed bytes"):
        convert.check_zip(lying, "lying.docx", "DOCX")


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".epub", ".xlsx"])
def test_a_zip_with_bytes_cut_from_its_middle_is_named_corrupt_in_one_line(suffix):
    """4 KiB cut out of a document's middle put its members' headers before the archive's start:
    `ValueError: negative seek value`, raised bare from convert_document for a DOCX."""
    from minirag.errors import ConversionFailed
    from minirag.ingest.convert import convert_document

    whole = next((FIXTURES / "docs").glob(f"*{suffix}")).read_bytes()
    middle = len(whole) // 2
    cut = whole[:middle - 2048] + whole[middle + 2048:]
    with pytest.raises(ConversionFailed, match=rf"^cut{re.escape(suffix)}: not a valid .* file \(corrupt or truncated zip"):
        convert_document(cut, suffix, f"cut{suffix}")


def _epub(spine: list[str], chapters: dict[str, bytes], missing: tuple[str, ...] = ()) -> bytes:
    """An EPUB whose spine reads `spine` (manifest ids, one item per chapter file, id = file name);
    the manifest lists the `missing` files too, and the archive lacks them."""
    import io
    import zipfile

    items = "".join(f'<item id="{n}" href="text/{n}" media-type="application/xhtml+xml"/>'
                    for n in (*chapters, *missing))
    refs = "".join(f'<itemref idref="{n}"/>' for n in spine)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" '
                         'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                         '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                         '</rootfiles></container>')
        archive.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                         'version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Walruses'
                         f'</dc:title></metadata><manifest>{items}</manifest><spine>{refs}</spine></package>')
        for name, body in chapters.items():
            archive.writestr(f"OEBPS/text/{name}", body)
    return buffer.getvalue()


def test_an_epub_whose_spine_reads_one_chapter_over_and_over_reads_it_once():
    """5,000 itemrefs naming one 20 kB chapter: a 25 kB EPUB made markitdown's converter read 100 MB,
    until MINIRAG_CONVERT_CPU_SECONDS. In a worker, under a CPU limit far below that."""
    from minirag.ingest import isolation

    chapter = (b"<html><body>" + b"<p>Walruses haul out on the ice floes of the Laptev Sea.</p>" * 350
               + b"</body></html>")
    limits = isolation.Limits(2048, 20, 120)
    once = _epub(["c1.xhtml", "c2.xhtml"], {"c1.xhtml": chapter, "c2.xhtml": b"<html><body><p>Tusks</p></body></html>"})
    assert "Laptev Sea" in isolation.POOL.run("document", (once, ".epub", "once.epub"), "once.epub", limits).markdown
    over = _epub(["c1.xhtml"] * 5000, {"c1.xhtml": chapter})
    assert len(over) < 60_000
    markdown = isolation.POOL.run("document", (over, ".epub", "over.epub"), "over.epub", limits).markdown
    assert markdown.count("Laptev Sea") == 350


@pytest.mark.parametrize(("notebook", "why"), [
    ("[1, 2, 3]", "its JSON is no object"),
    ('{"cells": "abc", "nbformat": 4}', "its cells are no list"),
    ('{"cells": [1, {"cell_type": "markdown", "source": "ok"}]}', "cell 1 is no object"),
    ('{"cells": [{"cell_type": "code", "source": 5}]}', "cell 1's source is no text"),
    ('{"cells": [{"cell_type": "markdown", "source": ["a", {"b": 1}]}]}', "cell 1's source is no text"),
    ('{"cells": [], "metadata": 7}', "its metadata is no object"),
    ('{"cells": [' * 50_000, "cannot read its JSON"),
])
def test_a_notebook_of_the_wrong_shape_is_refused_saying_what_is_wrong(notebook, why):
    """markitdown's notebook converter said `'str' object has no attribute 'get'`; a title that is
    no string (`"title": [1]`) raised AttributeError."""
    from minirag.ingest import convert

    with pytest.raises(ConversionFailed) as refused:
        convert.convert_document(notebook.encode(), ".ipynb", "odd.ipynb")
    assert str(refused.value).startswith(f"odd.ipynb: not a Jupyter notebook: {why}")
    good = '{"cells": [{"cell_type": "markdown", "source": ["# Walruses\\n", "Tusks."]}], "metadata": {"title": [1]}}'
    converted = convert.convert_document(good.encode(), ".ipynb", "good.ipynb")
    assert converted.markdown == "# Walruses\nTusks." and converted.metadata_title is None


def _with_flag(archive: bytes, bit: int) -> bytes:
    """`archive` with general-purpose flag `bit` set on every member, local headers and directory alike."""
    out = bytearray(archive)
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at >= 0:
            out[at + flags] |= bit
            at = out.find(signature, at + 4)
    return bytes(out)


@pytest.mark.parametrize("suffix", [".docx", ".xlsx", ".pptx", ".epub"])
def test_an_encrypted_document_is_refused_as_encrypted_not_as_corrupt(suffix):
    """Word, Excel and PowerPoint save a password-protected file as an OLE compound file holding an
    EncryptedPackage ("not a valid .docx file (corrupt or truncated zip...)"); a zip whose members are
    encrypted made the parsers raise RuntimeError ("cannot convert (RuntimeError)" for XLSX and EPUB)."""
    from minirag.ingest import convert

    fixture = next(FIXTURES.glob(f"docs/*{suffix}")).read_bytes()
    with pytest.raises(ConversionFailed, match=rf"^locked{suffix}: encrypted \(password required\); \S+ cannot"):
        convert.convert_document(_with_flag(fixture, 1), suffix, f"locked{suffix}")
    if suffix != ".epub":
        compound = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "EncryptedPackage".encode("utf-16-le")
                    + bytes(512))
        with pytest.raises(ConversionFailed, match=rf"^office{suffix}: encrypted \(password required\)$"):
            convert.convert_document(compound, suffix, f"office{suffix}")
        with pytest.raises(ConversionFailed, match=rf"^old{suffix}: an older binary Office file"):
            convert.convert_document(compound.replace(b"E\x00n\x00c", b"X\x00n\x00c"), suffix, f"old{suffix}")


def test_an_epub_whose_chapters_are_encrypted_is_refused_and_one_with_obfuscated_fonts_converts():
    """A DRM'd EPUB (Adobe ADEPT, Readium LCP) lists its encrypted chapters in META-INF/encryption.xml;
    markitdown read their ciphertext as HTML, and the index held noise. Fonts are often obfuscated
    (IDPF's algorithm), which leaves the text readable."""
    import io
    import zipfile

    from minirag.ingest import convert

    def with_encryption(algorithm: str, uri: str) -> bytes:
        book = _epub(["c1.xhtml"], {"c1.xhtml": b"<html><body><p>Walruses and their tusks.</p></body></html>"})
        buffer = io.BytesIO(book)
        with zipfile.ZipFile(buffer, "a") as archive:
            archive.writestr("META-INF/encryption.xml", (
                '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
                f'<enc:EncryptionMethod Algorithm="{algorithm}"/><enc:CipherData>'
                f'<enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>'))
        return buffer.getvalue()

    drm = with_encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/text/c1.xhtml")
    with pytest.raises(ConversionFailed, match=r"^drm\.epub: encrypted \(DRM\): OEBPS/text/c1\.xhtml"):
        convert.convert_document(drm, ".epub", "drm.epub")
    fonts = with_encryption("http://www.idpf.org/2008/embedding", "OEBPS/fonts/serif.otf")
    assert "Walruses and their tusks" in convert.convert_document(fonts, ".epub", "fonts.epub").markdown


def test_an_unexpected_parser_error_says_what_it_was_on_one_line():
    """A member compressed with a method zipfile cannot read (deflate64, 9) raised NotImplementedError in
    the workbook check, and the worker said only `cannot convert (NotImplementedError)`."""
    from minirag.ingest import isolation

    data = bytearray((FIXTURES / "docs" / "xlsx_rows_founders.xlsx").read_bytes())
    for signature, method in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            data[at + method] = 9
            at = data.find(signature, at + 4)
    with pytest.raises(ConversionFailed) as failed:
        isolation.POOL.run("document", (bytes(data), ".xlsx", "m9.xlsx"), "m9.xlsx", isolation.Limits(2048, 60, 120))
    assert str(failed.value) == ("m9.xlsx: cannot read the .xlsx file: xl/_rels/workbook.xml.rels is damaged (its "
                                 "compression method is not supported)")


@pytest.mark.parametrize(("fixture", "part"), [("docx_plain_paragraphs.docx", "word/document.xml"),
                                              ("pptx_slides_text.pptx", "ppt/slides/slide1.xml")])
def test_an_office_file_declaring_xml_entities_is_refused_saying_so(fixture, part):
    """Billion laughs or an external entity in word/document.xml: the DOCX parser refused it as
    `ExpatError: no element found: line 3, column 0`, which names neither the part nor the reason; in a
    slide, lxml's own guard spoke ('Maximum entity amplification factor exceeded'), or an external
    entity left the slide's text out without a word ('no text found')."""
    import io
    import zipfile

    from minirag.ingest import convert

    fixture = FIXTURES / "docs" / fixture
    suffix = fixture.suffix
    with zipfile.ZipFile(fixture) as source:
        parts = {member.filename: source.read(member) for member in source.infolist()}
    prolog = b'<!DOCTYPE x [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;">]>'
    parts[part] = parts[part].replace(b"?>", b"?>" + prolog, 1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in parts.items():
            archive.writestr(name, body)
    with pytest.raises(ConversionFailed, match=rf"^laughs\{suffix}: refused: {re.escape(part)} declares XML entities$"):
        convert.convert_document(buffer.getvalue(), suffix, f"laughs{suffix}")
    assert convert.convert_document(fixture.read_bytes(), suffix, f"plain{suffix}").markdown


def test_an_epub_whose_spine_lists_more_entries_than_an_archive_may_hold_parts_is_refused():
    """markitdown lists the archive's names again for every spine entry: 200,000 entries naming
    missing parts beside 5,000 members (a 3 MB file) took 45 s of CPU."""
    from minirag.ingest import convert

    chapters = {f"c{i}.xhtml": b"<html><body><p>Walrus.</p></body></html>" for i in range(3)}
    book = _epub([f"c{i % 3}.xhtml" for i in range(3)], chapters)
    assert "Walrus." in convert.convert_document(book, ".epub", "book.epub").markdown
    gone = tuple(f"gone{i}.xhtml" for i in range(convert.MAX_ZIP_MEMBERS + 1))
    missing = _epub(list(gone), chapters, missing=gone)
    with pytest.raises(ConversionFailed, match=r"^missing\.epub: refused: its spine lists 10,001 entries, more than "
                                              r"the 10,000 parts an archive may hold$"):
        convert.convert_document(missing, ".epub", "missing.epub")


@pytest.mark.skipif(not importlib.util.find_spec("PIL") or not minirag.ingest.ocr.images_readable(),
                    reason="image files are documents only with the ocr extra")
def test_an_image_whose_text_chunk_inflates_past_pillows_limit_is_refused_saying_why():
    """A PNG comment (zTXt) inflating to 2 MB, past Pillow's 1 MB for text chunks: `not a readable
    image (ValueError)` said nothing of what was wrong."""
    import io
    import struct
    import zlib

    from PIL import Image

    from minirag.ingest import convert

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    buffer = io.BytesIO()
    Image.new("L", (40, 20), 255).save(buffer, "PNG")
    png = buffer.getvalue()
    bomb = png[:33] + chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"A" * 2_000_000, 9)) + png[33:]
    with pytest.raises(ConversionFailed, match=r"^comment\.png: not a readable image \(ValueError: Decompressed "):
        convert.convert_document(bomb, ".png", "comment.png")


def _rewritten(data: bytes, member: str, content: bytes) -> bytes:
    import io
    import zipfile

    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            target.writestr(name, content if name == member else source.read(name))
    return out.getvalue()


def _zip_version_7(data: bytes) -> bytes:
    import struct

    damaged = bytearray(data)
    struct.pack_into("<H", damaged, damaged.find(b"PK\x01\x02") + 6, 70)  # "version needed": 7.0
    return bytes(damaged)


@pytest.mark.parametrize(("fixture", "damage"), [
    ("docx_plain_paragraphs.docx", _zip_version_7), ("epub_live_manual_en.epub", _zip_version_7),
    ("docx_plain_paragraphs.docx", lambda data: _rewritten(data, "[Content_Types].xml", b'<?xml version="1.0" '
                                                                  b'encoding="x-nonexistent"?><a/>')),
    ("xlsx_rows_founders.xlsx", lambda data: _rewritten(data, "docProps/app.xml", b'<?xml version="1.0" '
                                                              b'encoding="x-nonexistent"?><a/>')),
])
def test_a_zip_or_xml_part_damaged_as_readers_do_not_expect_is_one_line(fixture, damage):
    """NotImplementedError (a zip version past 6.3, an unknown compression method) and LookupError
    (an XML part's unknown encoding) escaped the converter: in a worker one line all the same, but an
    attachment so damaged made its whole e-mail unreadable."""
    from minirag.ingest.convert import convert_document

    suffix = Path(fixture).suffix
    with pytest.raises(ConversionFailed, match=rf"^x{suffix}: cannot read the \{suffix} file, damaged \("):
        convert_document(damage((FIXTURES / "docs" / fixture).read_bytes()), suffix, f"x{suffix}")


@pytest.mark.parametrize(("suffix", "text_of"), [
    (".adoc", lambda repeats: "<<a," + " " * 5 * repeats + "x\n"),  # a cross reference never closed
    (".rst", lambda repeats: "`a" + " " * 5 * repeats + "b`\n"),  # a role's text, no `<target>` after it
    (".org", lambda repeats: "* a" + " " * 5 * repeats + "b\n"),  # a heading, no tags after its blanks
    (".org", lambda repeats: "- a" + " " * 5 * repeats + "b\n"),  # a list item, no `::` after its blanks
], ids=["adoc-xref", "rst-role", "org-tags", "org-description"])
def test_runs_of_blanks_in_markup_cost_time_linear_in_their_length(suffix, text_of):
    """Each regex tried the run of blanks from each of its characters: 40,000 took 0.8-10 s."""
    from helpers.growth import grows_linearly

    from minirag.ingest.convert import convert_document

    assert grows_linearly(lambda text: convert_document(text.encode(), suffix, f"x{suffix}"), text_of)


@pytest.mark.parametrize(("fixture", "member"), [("docx_word_comments.docx", "word/media/image1.jpeg"),
                                                 ("pptx_slides_text.pptx", "docProps/thumbnail.jpeg"),
                                                 ("xlsx_excel_chart_data.xlsx", "docProps/thumbnail.jpeg")])
def test_a_package_whose_picture_is_damaged_reads_its_text_and_names_the_picture(fixture, member):
    """markitdown reads every member of a .docx (rewriting the package), python-pptx every part of
    a .pptx and the XLSX cell count every member of a .xlsx, so one picture's bad CRC refused the
    whole document, its text lost with it."""
    import struct
    import zipfile
    from io import BytesIO

    from minirag.ingest.convert import convert_document

    data = (FIXTURES / "docs" / fixture).read_bytes()
    picture = zipfile.ZipFile(BytesIO(data)).getinfo(member)
    start = picture.header_offset + 30 + sum(struct.unpack_from("<HH", data, picture.header_offset + 26))
    damaged = bytearray(data)
    damaged[start + picture.compress_size // 2] ^= 0xFF
    suffix = Path(fixture).suffix
    converted = convert_document(bytes(damaged), suffix, f"d{suffix}")
    assert converted.markdown == convert_document(data, suffix, f"d{suffix}").markdown
    assert converted.warnings[0] == f"d{suffix}: {member} is damaged (its checksum does not match); read without it"


def test_a_docx_nesting_its_elements_thousands_deep_is_refused_before_it_is_parsed():
    """markitdown parses the body with BeautifulSoup's lxml-xml builder, which looks each end tag's
    namespace up through every open element: tables nested 20,000 deep (a 9 KB file) took 25 s
    before mammoth ran out of stack, 100,000 the whole CPU limit."""
    import io
    import zipfile

    from minirag.ingest.convert import convert_document

    source, out = zipfile.ZipFile(FIXTURES / "docs" / "docx_plain_paragraphs.docx"), io.BytesIO()
    nested = b"<w:tbl><w:tr><w:tc>" * 2_000 + b"<w:p/>" + b"</w:tc></w:tr></w:tbl>" * 2_000
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, data.replace(b"</w:body>", nested + b"</w:body>") if name == "word/document.xml"
                            else data)
    with pytest.raises(ConversionFailed, match=r"^deep\.docx: refused: word/document\.xml nests its elements "
                                               r"more than 256 deep$"):
        convert_document(out.getvalue(), ".docx", "deep.docx")


@pytest.mark.parametrize("member", ["word/styles.xml", "word/theme/theme1.xml", "docProps/app.xml"])
def test_a_docx_whose_styles_theme_or_properties_part_is_damaged_reads_its_body(member):
    """A part no text is in but the styles' names (styles, theme, fonts, settings, numbering, the
    document's properties) damaged had refused the whole document; it is read as if that part were
    missing, as Word reads one, and named in a warning."""
    import io
    import struct
    import zipfile

    from minirag.ingest.convert import convert_document

    data = (FIXTURES / "docs" / "docx_headings_table.docx").read_bytes()
    part = zipfile.ZipFile(io.BytesIO(data)).getinfo(member)
    start = part.header_offset + 30 + sum(struct.unpack_from("<HH", data, part.header_offset + 26))
    damaged = bytearray(data)
    damaged[start + part.compress_size // 2] ^= 0xFF
    source, without = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(without, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            if name != member:
                target.writestr(name, source.read(name))
    converted = convert_document(bytes(damaged), ".docx", "d.docx")
    assert converted.markdown == convert_document(without.getvalue(), ".docx", "d.docx").markdown
    assert converted.warnings[0].startswith(f"d.docx: {member} is damaged (") and \
        converted.warnings[0].endswith("); read without it")
