"""Conversion is isolated: every converter runs in a reused worker process under memory, CPU and
wall-time limits, so a hostile document costs one file, never minirag. Each bomb below is built
by a small generator; a sync over all of them fails each one with a clear line, indexes the good
file, keeps the parent alive, and remembers every failure by content hash (the next sync says
"still failing" without converting anything)."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import threading
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES, write
from pdf_maker import pdf_of_objects

from minirag.errors import ConversionFailed, MiniragError
from minirag.ingest import isolation
from minirag.ingest.sync import run_sync
from minirag.results import payload

# --- generators --------------------------------------------------------------------------


def _zip(members: dict[str, bytes], level: int = 9) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


_SHEET = (b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
          b'<dimension ref="%s"/><sheetData>%s</sheetData></worksheet>')


def xlsx(sheets: list[tuple[bytes, bytes]], shared: bytes = b"") -> bytes:
    """A workbook of (dimension, sheetData) sheets, with just the parts openpyxl needs, and the
    shared string `shared` (index 0) where one is given."""
    ns = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rel = b'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
    members = {
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
        b'"/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.'
        b'main+xml"/>' + b"".join(
            b'<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-'
            b'officedocument.spreadsheetml.worksheet+xml"/>' % n for n in range(1, len(sheets) + 1)) + b"</Types>",
        "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'relationships"><Relationship Id="rId1" Type="' + rel + b'/officeDocument" Target="xl/workbook.xml"/>'
        b"</Relationships>",
        "xl/workbook.xml": b'<?xml version="1.0"?><workbook ' + ns + b' xmlns:r="' + rel + b'"><sheets>' + b"".join(
            b'<sheet name="S%d" sheetId="%d" r:id="rId%d"/>' % (n, n, n) for n in range(1, len(sheets) + 1))
        + b"</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.'
        b'org/package/2006/relationships">' + b"".join(
            b'<Relationship Id="rId%d" Type="' % n + rel + b'/worksheet" Target="worksheets/sheet%d.xml"/>' % n
            for n in range(1, len(sheets) + 1)) + b"</Relationships>",
    }
    for n, (dimension, data) in enumerate(sheets, 1):
        members[f"xl/worksheets/sheet{n}.xml"] = _SHEET % (dimension, data)
    if shared:
        members["xl/sharedStrings.xml"] = (b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/'
                                           b'spreadsheetml/2006/main"><si><t>' + shared + b"</t></si></sst>")
        members["xl/_rels/workbook.xml.rels"] = members["xl/_rels/workbook.xml.rels"].replace(
            b"</Relationships>", b'<Relationship Id="rIdS" Type="' + rel + b'/sharedStrings" '
            b'Target="sharedStrings.xml"/></Relationships>')
        members["[Content_Types].xml"] = members["[Content_Types].xml"].replace(
            b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
            b'officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    return _zip(members)


def _cell(ref: bytes, value: int) -> bytes:
    return b'<c r="%s"><v>%d</v></c>' % (ref, value)


def xlsx_corner_bomb() -> bytes:
    """1.6 KB: only A1 and XFD1048576, so pandas pads 1,048,576 x 16,384 cells."""
    cells = b'<row r="1">' + _cell(b"A1", 1) + b'</row><row r="1048576">' + _cell(b"XFD1048576", 2) + b"</row>"
    return xlsx([(b"A1:XFD1048576", cells)])


def xlsx_many_sheets() -> bytes:
    """48 sheets, each spanning A1:Z2000 with two cells: 2.5 M padded cells in all."""
    cells = b'<row r="1">' + _cell(b"A1", 1) + b'</row><row r="2000">' + _cell(b"Z2000", 2) + b"</row>"
    return xlsx([(b"A1:A1", cells)] * 48)  # each dimension lies; the cells say how far the sheet reaches


def pdf(objects: list[bytes]) -> bytes:
    return pdf_of_objects(objects)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def _page_pdf(content: bytes, extra: bytes = b"", resources: bytes = b"", more: list[bytes] | None = None) -> bytes:
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << "
                b"/Font << /F1 5 0 R >> " + resources + b" >> >>",
                _stream(content, extra), b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", *(more or [])])


def pdf_nested_forms(levels: int = 7, draws: int = 10) -> bytes:
    """Form XObject n draws form n+1 `draws` times, `levels` deep: draws ** levels draws (2 KB)."""
    first = 6  # object number of the first form
    forms = []
    for level in range(levels):
        if level == levels - 1:
            body = b"BT /F1 1 Tf (x) Tj ET"
            resources = b"<< /Font << /F1 5 0 R >> >>"
        else:
            body = b"/X Do " * draws
            resources = b"<< /XObject << /X %d 0 R >> >>" % (first + level + 1)
        forms.append(_stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources " + resources))
    return _page_pdf(b"/X Do " * draws, resources=b"/XObject << /X %d 0 R >>" % first, more=forms)


def pdf_runlength_bomb(runs: int = 4 * 1024 * 1024 + 1) -> bytes:
    """Runs of 2 bytes for 128 spaces each: 8 MB for 512 MiB and more decoded."""
    return _page_pdf(b"\x81 " * runs + b"\x80", extra=b"/Filter /RunLengthDecode")


def lzw_codes(codes: list[int]) -> bytes:
    """PDF LZW (EarlyChange 1) bits for `codes`, each as wide as the decoder's table then needs."""
    bits, table = [], 258
    for n, code in enumerate(codes):
        width = 9 if table < 511 else 10 if table < 1023 else 11 if table < 2047 else 12
        bits.append(format(code, f"0{width}b"))
        if code == 256:
            table = 258
        elif n and codes[n - 1] != 256:
            table = min(4096, table + 1)
    text = "".join(bits)
    text += "0" * (-len(text) % 8)
    return int(text, 2).to_bytes(len(text) // 8, "big")


def pdf_lzw_bomb(repeats: int = 140_000) -> bytes:
    """A table built up to its longest entry (3,838 spaces), then that entry `repeats` times: 1.5 bytes
    each, so ~200 KB decode to ~540 MB (the 71 KB one of the issue, to ~180 MB)."""
    return _page_pdf(lzw_codes([256, 32, *range(258, 4096), *[4095] * repeats]), extra=b"/Filter /LZWDecode")


def pdf_ascii85_bomb(zeros: int) -> bytes:
    return _page_pdf(b"z" * zeros + b"~>", extra=b"/Filter /ASCII85Decode")


def epub_small_members() -> bytes:
    """50 members of 100 KB each, every one under the per-member ratio check's 1 MB floor."""
    chapters = [f"c{n}.xhtml".encode() for n in range(50)]
    members = {
        "mimetype": b"application/epub+zip",
        "META-INF/container.xml": b'<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
        b'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/'
        b'oebps-package+xml"/></rootfiles></container>',
        "OEBPS/content.opf": b'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        b'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Spaces</dc:title></metadata><manifest>'
        + b"".join(b'<item id="%s" href="%s" media-type="application/xhtml+xml"/>' % (c[:-6], c) for c in chapters)
        + b"</manifest><spine>" + b"".join(b'<itemref idref="%s"/>' % c[:-6] for c in chapters) + b"</spine></package>",
    }
    members.update({f"OEBPS/{c.decode()}": b"<html><body><p>" + b"<b> </b>" * 12_000 + b"</p></body></html>"
                    for c in chapters})
    return _zip(members)


def docx_slow(size: int = 8 * 1024 * 1024) -> bytes:
    """A DOCX whose document.xml inflates far less than 100x, under every ratio rule, to `size` bytes."""
    import random

    rng = random.Random(7)
    words = [bytes(rng.choices(b"abcdefghij", k=4)) for _ in range(64)]
    paragraphs = [b"<w:p><w:r><w:t>" + b" ".join(rng.choices(words, k=20)) + b"</w:t></w:r></w:p>" for _ in range(400)]
    body = b"".join(rng.choices(paragraphs, k=size // len(paragraphs[0])))
    ns = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    return _zip({
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships'
        b'+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
        b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        "_rels/.rels": b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        b'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        b'relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        "word/document.xml": b'<?xml version="1.0"?><w:document ' + ns + b"><w:body>" + body + b"</w:body></w:document>",
    }, level=1)


# name -> (generator, a fragment of its failure line). RunLength, LZW and ASCII85 bombs take seconds to
# decode up to the 512 MiB budget: they are checked against a smaller one in-process below.
BOMBS = {
    "corner.xlsx": (xlsx_corner_bomb, "spreadsheet bomb"),
    "sheets.xlsx": (xlsx_many_sheets, "spreadsheet bomb"),
    "commas.csv": (lambda: b"a" + b"," * (2 * 1024 * 1024) + b"\n", "a CSV line may have"),
    "members.epub": (epub_small_members, "together (zip bomb?)"),
    "slow.docx": (docx_slow, "s of CPU (MINIRAG_CONVERT_CPU_SECONDS)"),
    "one_line.txt": (lambda: b"x" * (33 * 1024 * 1024), "one document may give"),
}
LIMITS = {"MINIRAG_CONVERT_CPU_SECONDS": "3", "MINIRAG_CONVERT_TIMEOUT": "120"}


@pytest.fixture
def counted(monkeypatch):
    """The files the pipeline sends to a worker (the real pool, counted)."""
    from minirag.ingest import pipeline

    seen, real = [], pipeline.convert_isolated

    def counting(op, args, name, limits, **kw):
        seen.append(Path(name).name)
        return real(op, args, name, limits, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", counting)
    return seen


def _warning(progress, name: str) -> str:
    found = [w for w in progress.warnings if Path(w.split(":", 1)[0]).name == name]
    assert len(found) == 1, (name, progress.warnings)
    return found[0]


def test_a_worker_freezes_what_its_imports_made_and_never_what_a_conversion_leaves():
    """Frozen, the objects the parsers' imports made are not walked by each of the cyclic collector's
    full passes (about 5% of a worker's CPU over the fixture documents, docs/benchmarks.md); but a
    conversion's leftovers must never be frozen: a frozen cycle is never freed."""
    pool = isolation.ConverterPool(1)
    limits = isolation.Limits(2048, 60, 120)
    pdf = (FIXTURES / "docs" / "pdf_multipage_pdflatex_outline.pdf").read_bytes()

    def frozen() -> int:
        return json.loads(pool.run("probe", (), "probe", limits).markdown)["frozen"]

    try:
        started = frozen()
        assert started > 10_000  # the converters' modules, loaded before the first request
        pool.run("document", (pdf, ".pdf", "a.pdf"), "a.pdf", limits)
        after_pdf = frozen()
        assert after_pdf > started  # pdfminer, imported for the first PDF
        for _ in range(3):
            pool.run("document", (pdf, ".pdf", "a.pdf"), "a.pdf", limits)
            pool.run("document", (b"# Otters\n\nThey float.\n", ".md", "a.md"), "a.md", limits)
        assert frozen() == after_pdf
    finally:
        pool.close()


@pytest.mark.slow  # 3 s of CPU for the DOCX, and the converter imports in fresh workers
def test_every_bomb_costs_its_file_only_and_stays_remembered(make_app, docs, counted):
    for name, (make, _fragment) in BOMBS.items():
        (docs / name).write_bytes(make())
    write(docs / "good.md", "# Wombats\n\nWombats dig burrows with their strong claws.\n")
    app = make_app(env=LIMITS)
    first = run_sync(app.pipeline, list(app.config.roots))
    for name, (_make, fragment) in BOMBS.items():
        assert fragment in _warning(first, name), name
        assert "\n" not in _warning(first, name)
    assert (first.done, first.failed) == (1, len(BOMBS))
    hits = payload(app.query("wombats dig burrows", top_k=1))["results"]
    assert hits and hits[0]["source"] == str(docs / "good.md")

    counted.clear()
    again = run_sync(app.pipeline, list(app.config.roots))
    assert (again.failed, again.still_failing, again.warnings) == (0, len(BOMBS), [])
    assert counted == []  # remembered by content hash: nothing converted again


def test_a_worker_that_dies_is_that_files_failure_and_the_next_file_gets_a_new_one(make_app, docs, monkeypatch,
                                                                                    capfd):
    from minirag.ingest import pipeline

    real = pipeline.convert_isolated

    def crash_on(op, args, name, limits, **kw):  # the real pool; the worker really aborts, as a parser out of memory did
        return real("crash" if name.endswith("doomed.md") else op, args, name, limits, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", crash_on)
    write(docs / "doomed.md", "# Doomed\n\nThis file's converter aborts.\n")
    write(docs / "fine.md", "# Fine\n\nPlatypuses lay eggs.\n")
    app = make_app()
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert "the converter crashed (SIGABRT); most likely out of memory" in _warning(progress, "doomed.md")
    assert (progress.done, progress.failed) == (1, 1)
    assert "Fatal Python error" not in capfd.readouterr().err  # the one line above is all the user gets
    again = run_sync(app.pipeline, list(app.config.roots))
    assert (again.failed, again.still_failing) == (0, 1)


@pytest.mark.slow
def test_a_conversion_past_its_wall_time_is_killed_and_the_pool_goes_on():
    slow = docx_slow()
    with pytest.raises(ConversionFailed, match=r"slow.docx: conversion took longer than 1 s \(MINIRAG_CONVERT_TIMEOUT\)"):
        isolation.POOL.run("document", (slow, ".docx", "slow.docx"), "slow.docx", isolation.Limits(2048, 600, 1))
    done = isolation.POOL.run("document", (b"# Still here\n", ".md", "a.md"), "a.md", isolation.Limits(2048, 60, 60))
    assert done.markdown == "# Still here\n"


@pytest.mark.slow
def test_a_stop_ends_the_conversion_in_hand_and_the_pool_goes_on():
    """sync_cancel, Ctrl-C or a server closing stops a run mid-file: the worker is ended, where it
    would convert on for as long as MINIRAG_CONVERT_TIMEOUT allows (here ten minutes)."""
    stop = threading.Event()

    def started():  # the worker is ready and the conversion under way when the stop comes
        threading.Timer(0.3, stop.set).start()

    with pytest.raises(isolation.ConversionStopped):
        isolation.POOL.run("document", (docx_slow(), ".docx", "slow.docx"), "slow.docx",
                           isolation.Limits(2048, 600, 600), started=started, stop=stop)
    assert stop.is_set()
    done = isolation.POOL.run("document", (b"# Still here\n", ".md", "a.md"), "a.md", isolation.Limits(2048, 60, 60),
                              stop=threading.Event())
    assert done.markdown == "# Still here\n"


@pytest.mark.slow
def test_a_stop_reaches_threads_waiting_for_a_worker_and_starts_none():
    """A thread of a stopped run that waited for a busy worker started one when the stop ended the
    busy one, only to end it at its first look at the stop."""
    pool, stop = isolation.ConverterPool(max_workers=1), threading.Event()
    outcomes: list[BaseException] = []

    def waiting() -> None:
        try:
            pool.run("document", (b"# Later\n", ".md", "later.md"), "later.md", isolation.Limits(2048, 60, 60),
                     stop=stop)
        except BaseException as exc:  # noqa: BLE001 - what it ended with is the test's
            outcomes.append(exc)

    waiter = threading.Thread(target=waiting)

    def started():
        waiter.start()
        threading.Timer(0.5, stop.set).start()

    try:
        with pytest.raises(isolation.ConversionStopped):
            pool.run("document", (docx_slow(), ".docx", "slow.docx"), "slow.docx", isolation.Limits(2048, 600, 600),
                     started=started, stop=stop)
        waiter.join(30)
        assert isinstance(outcomes[0], isolation.ConversionStopped) and pool.started == 1
    finally:
        pool.close()


@pytest.mark.slow  # a fresh worker imports markitdown first
def test_a_conversion_past_its_memory_limit_fails_alone():
    """7 KB: 1,000 cells that show one 300 KB shared string, under the sheet cap; their text is 300 MB,
    more than the worker's ~220 MiB of address space allows under the lowest MINIRAG_CONVERT_MEMORY_MB."""
    cells = b"".join(b'<row r="%d"><c r="A%d" t="s"><v>0</v></c></row>' % (n, n) for n in range(1, 1001))
    wide = xlsx([(b"A1", cells)], shared=b"x" * 300_000)
    assert len(wide) < 8000
    with pytest.raises(ConversionFailed, match=r"wide.xlsx: (conversion needs more than 256 MiB of memory "
                       r"\(MINIRAG_CONVERT_MEMORY_MB\)|the converter crashed)"):
        isolation.POOL.run("document", (wide, ".xlsx", "wide.xlsx"), "wide.xlsx", isolation.Limits(256, 60, 120))
    fine = isolation.POOL.run("document", (b"# Still here\n", ".md", "a.md"), "a.md", isolation.Limits(2048, 60, 60))
    assert fine.markdown == "# Still here\n"


def test_a_worker_starts_without_the_spreadsheet_and_array_libraries():
    """openpyxl and numpy were half of a worker's start (0.17 of 0.31 s of CPU), paid by every sync,
    ingest and server that converts a file: they load with the first spreadsheet a worker reads."""
    pool = isolation.ConverterPool(1)
    limits = isolation.Limits(2048, 60, 120)
    try:
        assert pool.run("document", (b"# Otters\n\nThey float.\n", ".md", "a.md"), "a.md", limits).markdown
        loaded = set(json.loads(pool.run("probe", (), "probe", limits).markdown)["modules"])
        assert not loaded & {"numpy", "openpyxl"}
        assert "minirag.ingest.convert" in loaded
    finally:
        pool.close()


@pytest.mark.slow  # a fresh worker imports markitdown
def test_suite84_a_worker_reading_word_and_slides_never_loads_pandas():
    """markitdown's converters module imports pandas for its spreadsheet converters, which minirag never
    calls (xlsx_tables.py reads sheets): pandas and numpy were over a third of the CPU of each worker
    that read a DOCX or PPTX, paid by every sync, ingest and server that converts one."""
    pool = isolation.ConverterPool(1)
    limits = isolation.Limits(2048, 60, 120)
    try:
        for name in ("docx_headings_table.docx", "pptx_slides_text.pptx"):
            data = (FIXTURES / "docs" / name).read_bytes()
            assert pool.run("document", (data, Path(name).suffix, name), name, limits).markdown
        loaded = set(json.loads(pool.run("probe", (), "probe", limits).markdown)["modules"])
        assert "markitdown.converters" in loaded
        assert not [m for m in loaded if m.startswith(("pandas.", "numpy"))]  # (a blocked import leaves `pandas`)
    finally:
        pool.close()


@pytest.mark.slow
def test_the_worker_is_reused_and_never_loads_onnxruntime():
    limits = isolation.Limits(2048, 60, 120)
    docx = (Path(__file__).parent / "fixtures" / "docs" / "docx_headings_table.docx").read_bytes()
    assert isolation.POOL.run("document", (docx, ".docx", "t.docx"), "t.docx", limits).markdown
    first = json.loads(isolation.POOL.run("probe", (), "probe", limits).markdown)
    second = json.loads(isolation.POOL.run("probe", (), "probe", limits).markdown)
    assert first["onnxruntime"] is False
    started = isolation.POOL.started
    assert json.loads(isolation.POOL.run("probe", (), "probe", limits).markdown)["pid"] in (first["pid"], second["pid"])
    assert isolation.POOL.started == started


def _moved_sheet(workbook: bytes, member: str) -> bytes:
    """`workbook` with its first sheet stored as `member` (under xl/), where its relationship points."""
    with zipfile.ZipFile(io.BytesIO(workbook)) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    members[member] = members.pop("xl/worksheets/sheet1.xml")
    for name in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels"):
        members[name] = members[name].replace(b"worksheets/sheet1.xml", member.removeprefix("xl/").encode())
    return _zip(members)


_CORNERS = b'<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>'
# The corner bomb (A1 and XFD1048576) as openpyxl reads it however its XML spells it.
SPELLED_BOMBS = {
    "single_quotes": xlsx([(b"A1", _CORNERS.replace(b'"', b"'"))]),
    "character_references": xlsx([(b"A1", _CORNERS.replace(b'"XFD', b'"&#88;FD').replace(b'"1048576"', b'"&#49;048576"'))]),
    "lower_case_reference": xlsx([(b"A1", _CORNERS.replace(b"XFD", b"xfd"))]),
    "long_cell_tag": xlsx([(b"A1", _CORNERS.replace(b'<c r="XFD', b"<c" + b" " * 600 + b'r="XFD'))]),
    "cells_without_references": xlsx([(b"A1", b'<row r="1">' + b"<c><v>1</v></c>" * 2000
                                       + b'</row><row r="1e6"><c><v>2</v></c></row>')]),
    "sheet_stored_elsewhere": _moved_sheet(xlsx([(b"A1", _CORNERS)]), "xl/cells/data.bin"),
}


@pytest.mark.slow  # a fresh worker imports markitdown first
@pytest.mark.parametrize("spelling", SPELLED_BOMBS)
def test_a_spreadsheet_bomb_is_refused_from_its_xml_however_its_cells_are_spelled(spelling):
    name = f"{spelling}.xlsx"
    with pytest.raises(ConversionFailed, match=rf"{name}: refused: .* spreadsheet bomb"):
        isolation.POOL.run("document", (SPELLED_BOMBS[spelling], ".xlsx", name), name, isolation.Limits(256, 20, 60))


@pytest.mark.slow
def test_a_workbook_declaring_xml_entities_is_refused_before_they_expand():
    laughs = b'<!DOCTYPE w [<!ENTITY a "lol">' + b"".join(
        b'<!ENTITY %s "%s">' % (chr(98 + n).encode(), b"&%s;" % chr(97 + n).encode() * 10) for n in range(8)) + b"]>"
    bomb = xlsx([(b"A1", b'<row r="1"><c r="A1" t="inlineStr"><is><t>&i;</t></is></c></row>')])
    with zipfile.ZipFile(io.BytesIO(bomb)) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(b"?>", b"?>" + laughs, 1)
    with pytest.raises(ConversionFailed, match=r"laughs.xlsx: refused: xl/worksheets/sheet1.xml declares XML entities"):
        isolation.POOL.run("document", (_zip(members), ".xlsx", "laughs.xlsx"), "laughs.xlsx",
                           isolation.Limits(256, 20, 60))


def pdf_outline_lattice(levels: int = 60) -> bytes:
    """An outline whose items each name the next as both their first child and their next sibling:
    60 objects, 2^60 paths from the root."""
    items = [b"<< /First %d 0 R /Last %d 0 R /Next %d 0 R >>" % (n + 1, n + 1, n + 1) for n in range(7, 6 + levels)]
    return pdf([b"<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << "
                b"/Font << /F1 5 0 R >> >> >>", _stream(b"BT /F1 12 Tf 72 700 Td (Lattice of bookmarks) Tj ET"),
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                b"<< /Type /Outlines /First 7 0 R /Last 7 0 R >>", *items, b"<< >>"])


@pytest.mark.slow
def test_an_outline_whose_items_share_children_is_read_once_per_item():
    converted = isolation.POOL.run("document", (pdf_outline_lattice(), ".pdf", "lattice.pdf"), "lattice.pdf",
                                   isolation.Limits(512, 10, 60))
    assert "Lattice of bookmarks" in converted.markdown


class _Bodies(http.server.BaseHTTPRequestHandler):
    bodies: dict[str, tuple[bytes, str]] = {}

    def log_message(self, format, *args):  # noqa: A002
        pass

    def do_GET(self):
        body, content_type = self.bodies[self.path]
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(ConnectionError):
            self.wfile.write(body)


@pytest.mark.slow
def test_ingest_url_converts_fetched_bombs_in_the_same_isolated_path(make_app):
    _Bodies.bodies = {"/forms": (pdf_nested_forms(), "application/pdf"),
                      "/sheet": (xlsx_corner_bomb(), "application/octet-stream"),
                      "/fine": (b"<html><title>Echidna</title><p>Echidnas eat ants.</p></html>", "text/html")}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Bodies)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        app = make_app(env={"ALLOW_PRIVATE_URLS": "1"})
        with pytest.raises(MiniragError, match="spreadsheet bomb"):
            app.ingest_url(base + "/sheet")
        assert any("page 1 draws more than 500 XObjects" in w for w in app.ingest_url(base + "/forms").warnings)
        assert app.ingest_url(base + "/fine").title == "Echidna"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_drawing_past_the_xobject_limit_is_read_up_to_it_and_said():
    """A dense plot (a scatter of 600 markers, each a form) refused the whole paper as a drawing bomb.
    Past MAX_XOBJECT_DRAWS a page's drawings are left, so a bomb of 10 ** 7 nested draws costs what
    500 do, and the rest of the document is read."""
    from minirag.ingest import convert

    converted = convert.convert_document(pdf_nested_forms(), ".pdf", "forms.pdf")  # (10 ** 7 draws: hours)
    assert converted.warnings == ("forms.pdf: page 1 draws more than 500 XObjects (a dense plot, or forms nested "
                                  "as a drawing bomb is); what they draw past that was not read",)
    assert converted.markdown.count("x") >= 400  # the text of the forms drawn before the limit


@pytest.mark.parametrize("make", [pdf_runlength_bomb, pdf_lzw_bomb, pdf_ascii85_bomb], ids=["rl", "lzw", "a85"])
def test_runlength_lzw_and_ascii85_streams_decode_under_the_pdf_budget(monkeypatch, make):
    from minirag.ingest import convert, pdf_inflate

    monkeypatch.setattr(pdf_inflate, "MAX_PDF_INFLATED_BYTES", 4 * 1024 * 1024)  # the same rule, scaled down
    small = {pdf_runlength_bomb: 40_000, pdf_lzw_bomb: 1_200, pdf_ascii85_bomb: 1_200_000}[make]
    with pytest.raises(ConversionFailed, match="inflate past 4 MB; refused as a decompression bomb"):
        convert.convert_document(make(small), ".pdf", "bomb.pdf")


def test_the_bounded_lzw_decoder_reads_what_pdfminer_reads():
    from pdfminer.lzw import lzwdecode as theirs

    from minirag.ingest.pdf_inflate import lzwdecode

    stream = lzw_codes([256, 72, 105, 258, 33, 256, 65, 65, 258, 259, 257])
    assert lzwdecode(stream) == theirs(stream) == b"HiHi!AAAAAA"


def test_a_converting_record_is_written_before_conversion_and_gone_after(make_app, docs, monkeypatch):
    from minirag.ingest import pipeline

    seen = {}
    real = pipeline.convert_isolated

    def look(op, args, name, limits, started, **kw):
        def then_look():
            started()
            seen[Path(name).name] = app.index.excluded_states()[name]
        return real(op, args, name, limits, then_look, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", look)
    write(docs / "kept.md", "# Kept\n\nKoalas sleep most of the day.\n")
    app = make_app()
    progress = run_sync(app.pipeline, list(app.config.roots))
    mark = seen["kept.md"]
    assert mark.failure and mark.reason.endswith(pipeline.CONVERTING) and mark.content_hash
    assert progress.done == 1 and app.index.excluded_states() == {}


@pytest.mark.slow
def test_a_sync_that_dies_while_converting_leaves_that_file_remembered_as_failing(make_app, docs, tmp_path,
                                                                                  model_dir):
    """The parent itself killed mid-conversion (the abort that used to take minirag down), twice: the
    record written before the conversion is what the next sync finds, so the file is not tried again.
    The file converting beside it at the first death is tried again alone, so it is not blamed too."""
    import subprocess
    import sys

    write(docs / "doomed.md", "# Doomed\n\nminirag dies converting this.\n")
    write(docs / "fine.md", "# Fine\n\nPlatypuses lay eggs.\n")
    script = f"""
import os, sys, time
sys.path.insert(0, {str(Path(__file__).parent)!r})
from minirag.app import App
from minirag.config import load_config
from minirag.ingest import pipeline
real = pipeline.convert_isolated
def die_on(op, args, name, limits, started, **kw):
    def then_die():
        started()
        if name.endswith("doomed.md"):
            time.sleep(2)  # long enough for the other file to take a second worker and be marked
            os._exit(134)
        time.sleep(4)  # still converting when the process dies
    return real(op, args, name, limits, then_die, **kw)
pipeline.convert_isolated = die_on
config = load_config(env={{}}, base_dirs=[{str(docs)!r}], db_path={str(tmp_path / "index.db")!r},
                     model_path={str(model_dir)!r})
App(config).sync()
"""
    for _attempt in range(2):  # the first death may have had nothing to do with the file: it is tried once more
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        assert done.returncode == 134, done.stderr
    app = make_app()
    progress = run_sync(app.pipeline, list(app.config.roots))
    assert progress.still_failing == 1 and progress.failed == 0
    assert "conversion never finished, twice" in app.index.excluded_states()[str(docs / "doomed.md")].reason
    assert str(docs / "fine.md") in {row.source for row in app.index.list_sources()}


def test_a_sync_stopped_mid_conversion_leaves_no_failure_behind(app, docs, monkeypatch):
    from minirag.ingest import pipeline
    from minirag.ingest.progress import Progress
    from minirag.ingest.scan import walk

    progress = Progress()
    real = pipeline.convert_isolated

    def stop_then_convert(op, args, name, limits, **kw):
        progress.stop.set()  # a server shutting down while this file converts
        return real(op, args, name, limits, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", stop_then_convert)
    later = write(docs / "later.md", "# Later\n\nConverted on the next sync.\n")
    app.pipeline.run_files(list(walk(docs, [docs])), progress)
    assert app.index.excluded_states() == {}  # not counted as failing: the next sync converts it
    assert (progress.failed, progress.done, progress.warnings) == (0, 0, [])
    monkeypatch.setattr(pipeline, "convert_isolated", real)
    app.pipeline.run_files(list(walk(docs, [docs])), Progress())
    assert str(later) in {row.source for row in app.index.list_sources()}


def test_ctrl_c_during_a_conversion_ends_the_conversion_in_hand(app, docs, monkeypatch):
    """Ctrl-C (or SIGTERM) lands in the main thread, whose pool then waited for the conversions in
    hand: the stop that ends a worker was never set, so `sync` ran on until the worker's time limit
    (minutes on a hostile PDF) and only then said 'interrupted'."""
    import os
    import signal

    from minirag.ingest import pipeline
    from minirag.ingest.progress import Progress
    from minirag.ingest.scan import walk

    told: list[bool] = []
    ended = threading.Event()

    def long_conversion(op, args, name, limits, *, stop=None, **kw):
        try:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, while this file converts
            told.append(stop.wait(30))
            raise isolation.ConversionStopped(name)
        finally:
            ended.set()

    write(docs / "slow.md", "# Slow\n\nA conversion that takes its time.\n")
    monkeypatch.setattr(pipeline, "convert_isolated", long_conversion)
    with pytest.raises(KeyboardInterrupt):
        app.pipeline.run_files(list(walk(docs, [docs])), Progress())
    # Ctrl-C can land while the pool is still starting this worker's thread, and a pool does not
    # wait for a thread whose start was cut short: the worker may finish after run_files returns.
    assert ended.wait(60)
    assert told and all(told), told


def test_a_run_that_fails_writing_does_not_set_its_owners_stop(app, docs, monkeypatch):
    """The watcher hands each pass its own stop event: a pass that failed (a full disk) set it,
    and the watcher ended for good instead of trying again."""
    from minirag.ingest.progress import Progress
    from minirag.ingest.scan import walk

    write(docs / "a.md", "# A\n\nSome words.\n")

    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(app.pipeline, "write", full)
    progress = Progress()
    with pytest.raises(OSError):
        app.pipeline.run_files(list(walk(docs, [docs])), progress)
    assert not progress.stop.is_set()


def test_a_stop_mid_conversion_keeps_the_mark_an_earlier_death_left(app, docs, monkeypatch):
    """A file minirag died converting once is tried again alone, marked "converting again"; a stop
    during that try must leave the file as it was (once interrupted), not forget the death: else
    a file that takes minirag down twice is never remembered as failing."""
    from minirag.ingest import pipeline
    from minirag.ingest.file_state import CONVERTING
    from minirag.ingest.progress import Progress
    from minirag.ingest.scan import walk

    doomed = write(docs / "doomed.md", "# Doomed\n\nminirag died converting this.\n")
    real = pipeline.convert_isolated
    progress = Progress()

    def stop_then_convert(op, args, name, limits, started=None, **kw):
        def marked_then_stopped():
            started()  # the conversion is marked
            progress.stop.set()  # then the run stops mid-file

        return real(op, args, name, limits, started=marked_then_stopped, **kw)

    monkeypatch.setattr(pipeline, "convert_isolated", stop_then_convert)
    with monkeypatch.context() as died:  # a death: the mark is never cleared
        died.setattr(app.index, "clear_marks", lambda marks: None)
        app.pipeline.run_files([f for f in walk(docs, [docs]) if f.source == str(doomed)], progress)
    before = app.index.excluded_states()[str(doomed)]
    assert before.reason == f"{doomed}: {CONVERTING}"

    progress = Progress()
    app.pipeline.run_files([f for f in walk(docs, [docs]) if f.source == str(doomed)], progress)
    assert app.index.excluded_states().get(str(doomed)) == before


def test_a_worker_runs_no_code_of_the_folder_it_is_started_in(tmp_path, monkeypatch):
    """`python -m` puts the working directory first on the module path: a cloned folder's own
    `minirag/ingest/convert_worker.py`, or a `struct.py` shadowing the standard library, ran as the
    user on the first conversion of `minirag ingest .` there."""
    marker = tmp_path / "ran"
    planted = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    folder = tmp_path / "cloned"
    write(folder / "struct.py", planted)
    write(folder / "minirag" / "__init__.py", "")
    write(folder / "minirag" / "ingest" / "__init__.py", "")
    write(folder / "minirag" / "ingest" / "convert_worker.py", planted)
    monkeypatch.chdir(folder)
    pool = isolation.ConverterPool(max_workers=1)
    try:
        done = pool.run("document", (b"# Here\n", ".md", "a.md"), "a.md", isolation.Limits(2048, 60, 60))
    finally:
        pool.close()
    assert done.markdown == "# Here\n"
    assert not marker.exists(), marker.read_text()


def _served(monkeypatch, error: Exception) -> dict:
    """The answer convert_worker.serve gives when the converter raises `error`: the worker's own loop,
    run here on in-memory pipes (its per-file limits left unset in this process)."""
    import pickle

    from minirag.ingest import convert_worker

    def failing(_op, _args):
        raise error

    monkeypatch.setattr(convert_worker, "_run", failing)
    monkeypatch.setattr(convert_worker, "_set_limits", lambda *_limits: None)
    requests, answers = io.BytesIO(), io.BytesIO()
    convert_worker.write_frame(requests, pickle.dumps(("document", (b"", ".png", "/d/x.png"), "/d/x.png",
                                                       1 << 30, 60, {})))
    requests.seek(0)
    convert_worker.serve(requests, answers)
    answers.seek(0)
    return json.loads(convert_worker.read_frame(answers))


def test_a_converter_error_that_carries_a_traceback_is_told_by_its_last_line(monkeypatch):
    """RapidOCR wraps onnxruntime's error in its own, whose message is the whole traceback: the reason
    had been 'ONNXRuntimeError: Traceback (most recent call last):'."""

    class ONNXRuntimeError(Exception):
        pass

    error = ONNXRuntimeError(
        "Traceback (most recent call last):\n"
        '  File "rapidocr/inference_engine/onnxruntime/main.py", line 98, in __call__\n'
        "    return self.session.run(self.get_output_names(), input_dict)[0]\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : "
        "Got invalid dimensions for input: x\n")
    assert _served(monkeypatch, error) == {
        "failed": "/d/x.png: cannot convert (ONNXRuntimeError: InvalidArgument: [ONNXRuntimeError] : 2 : "
                  "INVALID_ARGUMENT : Got invalid dimensions for input: x)"}
    # A message of several lines without a traceback is told by its first, its summary.
    assert _served(monkeypatch, ValueError("bad byte 0xff\nat offset 3")) == {
        "failed": "/d/x.png: cannot convert (ValueError: bad byte 0xff)"}


@pytest.mark.parametrize("error", [
    RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running "
                 "Conv node. Name:'Conv_0' Status Message: std::bad_alloc"),
    ConversionFailed("/d/x.png: cannot convert (MemoryError: )"),
])
def test_a_native_librarys_failed_allocation_is_the_memory_limit_and_retires_the_worker(monkeypatch, error):
    """onnxruntime out of memory under the worker's limit raised std::bad_alloc, told as 'cannot convert
    (… std::bad_alloc)' rather than the limit to raise, and the worker went on with its heap torn."""
    assert _served(monkeypatch, error) == {"memory": "/d/x.png"}
