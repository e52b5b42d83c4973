"""Scanned pages and image files, read by OCR (the `ocr` extra, installed in the dev group).

Each test OCRs at most one small image: the engine's real models run, on generated text."""

from __future__ import annotations

import shutil
import struct
import sys
import zlib
from pathlib import Path

import pytest
from pdf_maker import pdf_of_objects

from minirag.results import payload

pytest.importorskip("rapidocr")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the OCR cache lives there
    monkeypatch.setenv("MINIRAG_OCR", "rapidocr")  # the extra's engine, as CI has it (tesseract may be here too)
    monkeypatch.delenv("MINIRAG_OCR_LANGUAGES", raising=False)


def text_image(line: str, size: tuple[int, int] = (900, 120)):
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", size, 255)
    ImageDraw.Draw(image).text((30, 35), line, font=ImageFont.load_default(size=36), fill=0)
    return image


def two_page_pdf(text: str, scanned_line: str) -> bytes:
    """Page 1 a text layer, page 2 only an image of `scanned_line` (a scan): written by hand."""
    image = text_image(scanned_line, (612, 792))  # the whole page, at 72 dpi
    pixels = zlib.compress(image.tobytes())
    lines = " T* ".join(f"({text}, line {n}.) Tj" for n in range(1, 41))
    stream = f"BT /F1 10 Tf 12 TL 40 750 Td {lines} ET".encode()
    place = b"q 612 0 0 792 0 0 cm /Im1 Do Q"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 6 0 R >> >> >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 7 0 R "
        b"/Resources << /XObject << /Im1 8 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(place), place),
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
        % (image.width, image.height, len(pixels), pixels),
    ]
    return pdf_of_objects(objects)


def scanned_pdf(lines: list[str]) -> bytes:
    """A PDF of one page per line, each page only an image of its line (a scan), 6 by 1.5 inches."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    place = b"q 432 0 0 108 0 0 cm /Im1 Do Q"
    kids = []
    for line in lines:
        image = text_image(line, (432, 108))  # the whole page, at 72 dpi
        pixels = zlib.compress(image.tobytes())
        first = len(objects) + 1
        kids.append(b"%d 0 R" % first)
        objects += [
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 432 108] /Contents %d 0 R "
            b"/Resources << /XObject << /Im1 %d 0 R >> >> >>" % (first + 1, first + 2),
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(place), place),
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
            % (image.width, image.height, len(pixels), pixels),
        ]
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    return pdf_of_objects(objects)


def png_claiming(width: int, height: int) -> bytes:
    """A PNG of a few hundred bytes whose header claims width x height pixels."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")


def listed(app) -> dict:
    return {Path(f.source).name: f for f in app.list_files().files}


@pytest.mark.slow
def test_a_scanned_page_is_reported_without_the_extra_and_read_once_it_is_installed(app, docs, monkeypatch, request):
    from minirag.ingest import convert_worker, isolation, ocr

    class InProcess:  # the imports and engines below are patched in this process: convert here too
        def run(self, op, args, name, limits, started=None, on_page=None, stop=None):
            return convert_worker._run(op, args)

    monkeypatch.setattr(isolation, "POOL", InProcess())
    # A process asks once whether images are documents (doc_names.supported_extensions): asked first
    # while the extra is hidden below, the answer would stand for the tests after this one.
    from minirag.ingest.doc_names import supported_extensions

    request.addfinalizer(supported_extensions.cache_clear)
    supported_extensions.cache_clear()
    pdf = docs / "invoice.pdf"
    pdf.write_bytes(two_page_pdf("Opening page about orchards and apples", "Quarterly invoice for zebra"))

    with monkeypatch.context() as without:
        without.setenv("MINIRAG_OCR", "auto")
        without.setitem(sys.modules, "rapidocr", None)  # `import rapidocr` fails: the extra is not installed
        without.setattr(ocr, "tesseract_program", lambda: None)  # and no tesseract command either
        progress = app.sync()
        assert any("1 of 2 pages had no text; install the ocr extra" in w for w in progress.warnings)
        entry = listed(app)["invoice.pdf"]
        assert entry.state == "indexed"  # the text layer it has is searchable
        assert "1 of 2 pages had no text; install the ocr extra" in entry.note
        assert not [h for h in payload(app.query("zebra", top_k=5))["results"] if "zebra" in h["text"].lower()]

    app.sync()  # the extra is there now: the same bytes are read again, their scan this time
    entry = listed(app)["invoice.pdf"]
    assert entry.state == "indexed" and entry.note is None
    hit = next(h for h in payload(app.query("zebra invoice", top_k=5))["results"] if "zebra" in h["text"].lower())
    assert hit["source"] == str(pdf) and hit["pages"] == "2"  # cited by the page it was read from
    read = app.read(str(pdf))
    assert "Quarterly invoice for zebra" in read.text and read.pages == "1-2"

    from minirag.ingest import ocr

    def no_engine(*_args):
        raise AssertionError("OCR ran again on bytes it had read")

    monkeypatch.setattr(ocr, "get_engine", no_engine)
    app.ingest_paths([str(pdf)], force=True)  # re-indexed from scratch: the recognized text comes from the cache
    assert "Quarterly invoice for zebra" in app.read(str(pdf)).text


@pytest.mark.slow  # a real OCR engine reading real pixels
def test_an_image_file_is_a_document(app, docs):
    text_image("Shipments paid in March").save(docs / "receipt.png")
    app.sync()
    assert listed(app)["receipt.png"].state == "indexed"
    text = app.read(str(docs / "receipt.png")).text
    assert all(word in text for word in ("Shipments", "paid", "March")), text
    assert payload(app.query("shipments paid", top_k=1))["results"][0]["source"] == str(docs / "receipt.png")


@pytest.mark.slow  # the real worker, under its real memory limit
def test_an_image_too_small_to_hold_a_line_of_text_has_no_text_and_does_not_fail(app, docs):
    """Decorative strips and dots (debian-handbook's green.png, 1 x 30; h1-bg.png, 5 x 100): RapidOCR
    scaled a 1 x 30 strip to a 736 x 20,608 detector input, past the worker's memory limit."""
    from PIL import Image

    sizes = {"green.png": (1, 30), "h1-bg.png": (5, 100), "dot.png": (5, 6), "rule.png": (30_000, 1),
             "thread.png": (7, 30_000), "bar.png": (12, 3_000), "banner.png": (10_000, 50)}
    for name, size in sizes.items():
        Image.new("RGB", size, (40, 160, 60)).save(docs / name)
    progress = app.sync()
    assert not [w for w in progress.warnings if "cannot convert" in w], progress.warnings
    files = listed(app)
    for name in sizes:
        assert files[name].state == "indexed" and files[name].note == "no text found (empty, scanned or image-only?)"


@pytest.mark.slow  # a real OCR engine reading real pixels
@pytest.mark.parametrize("name", ["publican_callout_1.png", "publican_note.png", "publican_go_forward.png"])
def test_an_icon_is_no_text_though_the_engine_reads_a_glyph_off_it(name):
    """debian-handbook's icons (a callout's circled digit, the note's sign, an arrow): RapidOCR read
    `0`, `Q` and `之` off them, and each became a chunk of one character."""
    from minirag.ingest import ocr

    data = (Path(__file__).parent / "fixtures" / "images" / name).read_bytes()
    assert ocr.read_image(data, name) == ("", "")


def test_a_reading_of_three_letters_or_digits_is_text(monkeypatch):
    import io

    from PIL import Image

    from minirag.ingest import ocr

    class Engine:
        MAX_SIDE = 2000

        def __init__(self, text: str) -> None:
            self.text = text

        def read(self, _image):
            return self.text

    buffer = io.BytesIO()
    Image.new("L", (120, 40), 255).save(buffer, "PNG")
    for text, kept in (("0", ""), ("Q\n·", ""), ("之", ""), ("A4", ""), ("404", "404"), ("No.\n5 6", "No.\n5 6")):
        monkeypatch.setattr(ocr, "get_engine", lambda *_args, text=text: Engine(text))
        monkeypatch.setattr(ocr, "_cached", lambda _data, _current, read_pages: read_pages())
        assert ocr.read_image(buffer.getvalue(), "sign.png") == (kept, ""), text


def test_an_image_too_small_to_hold_a_line_of_text_is_never_given_to_the_engine(monkeypatch):
    import io

    from PIL import Image

    from minirag.ingest import ocr

    class NoEngine:
        MAX_SIDE = 2000  # RapidOCR's: it would read 30,000 x 7 as 2,000 x 0.47

        def read(self, _image):
            raise AssertionError("an image no line of text fits in went to the OCR engine")

    monkeypatch.setattr(ocr, "get_engine", lambda *_args: NoEngine())
    for size in ((1, 30), (3, 500), (500, 3), (2, 2), (30_000, 7), (7, 30_000)):
        buffer = io.BytesIO()
        Image.new("L", size, 255).save(buffer, "PNG")
        assert ocr.read_image(buffer.getvalue(), "strip.png") == ("", "")


def test_a_line_five_pixels_high_is_still_read():
    """The smallest image kept for OCR holds a line RapidOCR reads (MIN_TEXT_PIXELS)."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    from minirag.ingest import ocr

    font = ImageFont.load_default(size=8)
    left, top, right, bottom = font.getbbox("INVOICE 2024 TOTAL")
    image = Image.new("L", (right - left, bottom - top), 255)  # 82 x 5, cropped to the ink
    ImageDraw.Draw(image).text((-left, -top), "INVOICE 2024 TOTAL", font=font, fill=0)
    assert image.height == 5 >= ocr.MIN_TEXT_PIXELS
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    assert ocr.read_image(buffer.getvalue(), "line.png")[0] == "INVOICE 2024 TOTAL"


def test_an_image_claiming_too_many_pixels_is_refused_before_it_is_decoded(app, docs):
    (docs / "bomb.png").write_bytes(png_claiming(8_000, 8_000))
    progress = app.sync()
    assert any("bomb.png: refused: 8000 x 8000 pixels" in w and "decompression bomb" in w
               for w in progress.warnings)
    assert listed(app)["bomb.png"].state == "failed"


def test_ocr_turned_off_says_so(make_app, docs, monkeypatch):
    monkeypatch.setenv("MINIRAG_OCR", "off")
    (docs / "scan.pdf").write_bytes(two_page_pdf("Opening page", "Quarterly invoice"))
    app = make_app()
    app.sync()
    assert listed(app)["scan.pdf"].note == "1 of 2 pages had no text; OCR is off (MINIRAG_OCR=off)"


def test_tesseract_languages_it_lacks_are_one_clear_line(monkeypatch):
    from minirag.errors import ConversionFailed
    from minirag.ingest import ocr

    monkeypatch.setattr(ocr, "tesseract_program", lambda: "/usr/bin/tesseract")
    monkeypatch.setattr(ocr, "_installed_tesseract_languages", lambda: frozenset({"eng", "deu"}))
    assert ocr.settings({"MINIRAG_OCR_LANGUAGES": "eng,deu"}).languages == ("eng", "deu")
    with pytest.raises(ConversionFailed, match="tesseract has no data for klingon, tlh .it has deu, eng."):
        ocr.settings({"MINIRAG_OCR_LANGUAGES": "eng,klingon,tlh"})
    assert ocr.settings({}).engine == "tesseract"  # auto prefers it where installed (docs/documents.md)
    assert ocr.settings({"MINIRAG_OCR": "rapidocr"}).engine == "rapidocr"


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_tesseract_reads_the_locales_language_and_english_by_default():
    """From the locale's variables, as set; whether that locale is generated here or not."""
    from minirag.ingest import ocr

    installed = ocr._installed_tesseract_languages()
    if not {"eng", "deu"} <= installed:
        pytest.skip("tesseract has no data for eng and deu")
    env = {"MINIRAG_OCR": "tesseract"}
    assert ocr.settings({**env, "LANG": "de_DE.UTF-8"}).languages == ("deu", "eng")
    assert ocr.settings({**env, "LANG": "C.UTF-8"}).languages == ("eng",)
    assert ocr.settings({**env, "LANG": "de_AT.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}).languages == ("eng",)
    assert ocr.settings({**env, "LANG": "en_GB.UTF-8", "LC_ALL": "de_DE@euro"}).languages == ("deu", "eng")
    # A language whose data is not installed is left out, never an error: English alone.
    assert ocr.settings({**env, "LANG": "xx_XX.UTF-8"}).languages == ("eng",)
    if "fra" not in installed:
        assert ocr.settings({**env, "LANG": "fr_FR.UTF-8"}).languages == ("eng",)


@pytest.mark.slow  # a real OCR engine reading real pixels
def test_each_page_is_reported_as_ocr_starts_reading_it(make_app, docs, tmp_path):
    """The converter worker streams a progress frame per OCRed page; the run's live line (what
    `minirag sync` shows and the MCP progress notifications carry) names the file and the page."""
    from minirag.ingest.progress import Progress

    (docs / "ledger.pdf").write_bytes(scanned_pdf(["Ledger of walnut sales", "Walnut stock in April",
                                                   "Walnut buyers by town"]))
    lines = []

    class Watched(Progress):
        def reading_page(self, source, page, pages):
            super().reading_page(source, page, pages)
            lines.append(self.live_line())

    progress = Watched()
    make_app().sync(progress=progress)
    assert progress.done == 1 and not progress.warnings
    assert lines == [f"[0/1 file] 0 chunks embedded, OCR of ledger.pdf: page {n} of 3" for n in (1, 2, 3)]
    assert progress.ocr_page is None and "OCR" not in progress.live_line()  # the file is read
    assert list((tmp_path / "cache" / "minirag" / "ocr").glob("*.json"))  # the worker used this run's cache


@pytest.mark.slow  # a real OCR engine reading real pixels (one page)
def test_a_scan_past_the_page_cap_is_read_up_to_the_cap_and_says_what_was_left(app, docs, monkeypatch):
    """MAX_OCR_PAGES is read where the conversion runs: lowered here, so the conversion runs in
    this process too; the engine is the real one, counted."""
    from minirag.ingest import convert_worker, isolation, ocr
    from minirag.ingest.progress import Progress

    class InProcess:
        def run(self, op, args, name, limits, started=None, on_page=None, stop=None):
            token = ocr.PAGE_LISTENER.set(on_page)
            try:
                return convert_worker._run(op, args)
            finally:
                ocr.PAGE_LISTENER.reset(token)

    monkeypatch.setattr(isolation, "POOL", InProcess())
    monkeypatch.setattr(ocr, "MAX_OCR_PAGES", 1)
    real, seen = ocr.get_engine, []

    class Counted:
        def __init__(self, engine):
            self.engine, self.MAX_SIDE = engine, engine.MAX_SIDE

        def read(self, image):
            seen.append(image.size)
            return self.engine.read(image)

    monkeypatch.setattr(ocr, "get_engine", lambda *args: Counted(real(*args)))
    pdf = docs / "ledger.pdf"
    pdf.write_bytes(scanned_pdf(["Ledger of walnut sales", "Walnut stock in April", "Walnut buyers by town"]))

    class Watched(Progress):
        pages: list = []

        def reading_page(self, source, page, pages):
            super().reading_page(source, page, pages)
            self.pages.append((page, pages))

    progress = Watched()
    app.sync(progress=progress)
    note = "2 of 3 pages not read: OCR reads at most 1 scanned page of a file (the first left unread is page 2)"
    assert progress.warnings == [f"{pdf}: {note}"]
    assert len(seen) == 1 and progress.pages == [(1, 1)]  # page 1 alone was rendered and read
    entry = listed(app)["ledger.pdf"]
    assert entry.state == "indexed" and entry.note == note
    text = app.read(str(pdf)).text
    assert "Ledger" in text and "April" not in text and "buyers" not in text  # page 1 alone


@pytest.mark.anyio
async def test_mcp_progress_notifications_follow_the_page_being_read():
    from minirag.ingest.progress import Progress
    from minirag.server import follow_job

    progress = Progress(total=1)
    steps = [lambda: progress.reading_page("/d/ledger.pdf", 1, 2), lambda: progress.reading_page("/d/ledger.pdf", 2, 2),
             lambda: setattr(progress, "done", 1)]
    reports = []

    class Job:
        job_id = "j1"

        def __init__(self):
            self.progress = progress

        def wait(self, _timeout):
            steps.pop(0)()
            return not steps

    class Context:
        async def report_progress(self, done, total, message):
            reports.append((done, total, message))

    await follow_job(Job(), Context())
    assert [message for _, _, message in reports[:2]] == [
        "[0/1 file] 0 chunks embedded, OCR of ledger.pdf: page 1 of 2",
        "[0/1 file] 0 chunks embedded, OCR of ledger.pdf: page 2 of 2"]
    assert reports[-1][:2] == (1, 1)


_LIAR = """
import struct, sys
header = struct.Struct(">Q")
(size,) = header.unpack(sys.stdin.buffer.read(8))
sys.stdin.buffer.read(size)
for sent in sys.argv[1:]:
    sys.stdout.buffer.write(bytes.fromhex(sent))
sys.stdout.buffer.flush()
sys.stdin.buffer.read()
"""


def answered(frames: list[bytes], on_page=None):
    """What a pool makes of a worker that sends these frames to any request."""
    from minirag.ingest.convert_worker import _HEADER

    return sent([_HEADER.pack(len(frame)) + frame for frame in frames], on_page)


def sent(pieces: list[bytes], on_page=None):
    """What a pool makes of a worker that writes these bytes to any request, then waits."""
    import subprocess

    from minirag.ingest import isolation

    class Liar(isolation._Worker):
        def __init__(self):
            self.process = subprocess.Popen([sys.executable, "-c", _LIAR, *(p.hex() for p in pieces)],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    pool = isolation.ConverterPool()
    original, isolation._Worker = isolation._Worker, Liar
    try:
        return pool.run("document", (b"", ".pdf", "/d/x.pdf"), "/d/x.pdf", isolation.Limits(512, 10, 20),
                        on_page=on_page)
    finally:
        isolation._Worker = original
        pool.close()


def test_progress_frames_reach_the_parent_before_the_answer():
    pages = []
    converted = answered([b'{"page": 1, "pages": 2}', b'{"page": 2, "pages": 2}',
                          b'{"markdown": "text", "title": null, "warnings": [], "note": "", "frontmatter": false, "rows": null}'],
                         on_page=lambda page, of: pages.append((page, of)))
    assert converted.markdown == "text" and pages == [(1, 2), (2, 2)]


@pytest.mark.parametrize("frames", [
    [b'{"page": "1", "pages": 2}'],
    [b'{"page": 3, "pages": 2}'],
    [b'{"page": 0, "pages": 2}'],
    [b'{"page": 1, "pages": 100000}'],
    [b'{"page": 1, "pages": 2, "file": "/etc/passwd"}'],
    [b'{"page": 1, "pages": 2' + b" " * 5000 + b"}"],
    [b"\xff\xfe not json"],
    [b"[1, 2]"],
    [b'{"markdown": 5, "title": null, "warnings": [], "note": "", "frontmatter": false, "rows": null}'],
    [b'{"markdown": "x", "title": null, "warnings": [7], "note": "", "frontmatter": false, "rows": null}'],
    [b'{"failed": ["x"]}'],
    [b'{"markdown": "x", "title": null, "warnings": [], "note": "", "frontmatter": "yes", "rows": null}'],
], ids=["page-text", "page-past-end", "page-zero", "too-many-pages", "extra-field", "long-progress",
        "not-json", "not-an-object", "markdown-number", "warning-number", "failed-list", "frontmatter-text"])
def test_a_worker_frame_that_is_neither_progress_nor_an_answer_fails_only_that_file(frames):
    from minirag.errors import ConversionFailed

    with pytest.raises(ConversionFailed, match=r"^/d/x.pdf: the converter sent something unreadable; stopped$"):
        answered([*frames, b'{"markdown": "text", "title": null, "warnings": [], "note": "", "frontmatter": false, "rows": null}'])


def test_an_answer_longer_than_any_document_gives_is_refused_unread_and_fails_only_that_file():
    """The wall-time limit (20 s here) is not what stops it: the length alone is."""
    from minirag.errors import ConversionFailed
    from minirag.ingest.convert_worker import _HEADER

    with pytest.raises(ConversionFailed, match=r"^/d/x.pdf: the converter's answer is 1,099,511,627,776 bytes, "
                                               r"over the [0-9,]+ any document's may take; stopped$"):
        sent([_HEADER.pack(1 << 40) + b'{"markdown": "'])  # and nothing more: the parent must not wait for it


def test_the_answer_bound_is_exact(monkeypatch):
    from minirag.errors import ConversionFailed
    from minirag.ingest import isolation

    answer = b'{"markdown": "text", "title": null, "warnings": [], "note": "", "frontmatter": false, "rows": null}'
    monkeypatch.setattr(isolation, "MAX_ANSWER_BYTES", len(answer))
    assert answered([answer]).markdown == "text"
    monkeypatch.setattr(isolation, "MAX_ANSWER_BYTES", len(answer) - 1)
    with pytest.raises(ConversionFailed, match=f"answer is {len(answer)} bytes, over the {len(answer) - 1} "):
        answered([answer])


def test_a_worker_refuses_to_send_an_answer_over_the_bound_and_says_so():
    import json

    from minirag.ingest import isolation
    from minirag.ingest.convert import MAX_TEXT_CHARS
    from minirag.ingest.convert_worker import encode_answer, max_answer_bytes

    answer = {"markdown": "x" * 100, "title": "t" * 50, "warnings": [], "note": "", "frontmatter": False}
    body = encode_answer(answer, "/d/x.html", 1000)
    assert json.loads(body) == answer
    refused = json.loads(encode_answer(answer, "/d/x.html", len(body) - 1))
    assert refused == {"failed": f"/d/x.html: refused: its conversion is {len(body)} bytes, over the "
                                 f"{len(body) - 1} one document may give; split it"}
    assert isolation._is_answer(refused)
    # No character of a text takes more than 6 bytes in an answer: MAX_TEXT_CHARS of any fit.
    empty = len(encode_answer({**answer, "markdown": ""}, "/d/x.txt", max_answer_bytes()))
    for char in ("a", "\x01", "\n", '"', "\\", "\u00e9", "\u20ac", "\ud800", "\U0010ffff"):
        assert len(encode_answer({**answer, "markdown": char * 1000}, "/d/x.txt", max_answer_bytes())) - empty <= 6000
    assert isolation.MAX_ANSWER_BYTES == max_answer_bytes() >= 6 * MAX_TEXT_CHARS


@pytest.mark.parametrize(("variable", "value", "error"), [
    ("MINIRAG_OCR", "tesserakt", "MINIRAG_OCR must be auto, rapidocr, tesseract or off, got 'tesserakt'"),
    ("MINIRAG_OCR_LANGUAGES", "eng,klingon", "MINIRAG_OCR_LANGUAGES: tesseract has no data for klingon (it has "),
])
def test_a_bad_ocr_setting_is_one_configuration_error_at_start_not_one_per_file(
        cli_env, docs, capsys, monkeypatch, variable, value, error):
    from minirag import cli
    from minirag.ingest import ocr

    if variable == "MINIRAG_OCR_LANGUAGES":  # a check of Tesseract's languages, wherever it is installed
        monkeypatch.setenv("MINIRAG_OCR", "tesseract")
        monkeypatch.setattr(ocr, "tesseract_program", lambda: "/usr/bin/tesseract")
        monkeypatch.setattr(ocr, "_installed_tesseract_languages", lambda: frozenset({"eng", "deu"}))
    monkeypatch.setenv(variable, value)
    for name in ("scan-1.pdf", "scan-2.pdf"):
        (docs / name).write_bytes(two_page_pdf(f"Opening page of {name}", "Quarterly invoice"))
    assert cli.main(["sync"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"minirag: configuration error: {error}") and err.count("\n") == 1, err


@pytest.mark.parametrize(("size", "framed"), [
    ((1_200, 900), (1_200, 900)),  # a page: as it is
    ((900, 400), (900, 400)),  # within 8:1, and its detector enlarges it less than twice: as it is
    ((900, 120), (900, 368)),  # enlarged 6 times by its detector (to 5,520 x 736): padded to twice
    ((32, 32), (368, 368)),  # an icon, the same
    ((5, 100), (368, 368)),  # taller than 1:8: padded to it (13 x 100), then the same
    ((12, 3_000), (368, 2_000)),  # shrunk as RapidOCR would (8 x 2,000), padded to 1:8, then the same
    ((638, 22), (638, 368)),  # a line RapidOCR would enlarge to 870 x 30 and pad itself
    ((2_000, 10), (2_000, 368)),  # one it would enlarge to 6,000 x 30 first
    ((10_000, 50), (2_000, 368)),
])
def test_rapidocr_is_given_no_image_its_own_scaling_would_blow_up(size, framed):
    from PIL import Image

    from minirag.ingest.ocr import _RapidOcr

    reader = _RapidOcr.__new__(_RapidOcr)  # _framed needs no model
    assert reader._framed(Image.new("RGB", size, (255, 255, 255))).size == framed
