"""What RapidOCR's text detector is given for images that hold no text: its real model runs,
and a counter on its session adds up the pixels of each input it receives (docs/documents.md)."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("rapidocr")


@pytest.fixture
def detector_pixels(tmp_path, monkeypatch):
    """The pixels the real detector model is given while the test runs (a list, one entry a call)."""
    from minirag.ingest import ocr

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no reading comes from the OCR cache
    monkeypatch.setenv("MINIRAG_OCR", "rapidocr")
    monkeypatch.delenv("MINIRAG_OCR_LANGUAGES", raising=False)
    detector = ocr.get_engine("rapidocr", ())._ocr._load_det_model()
    session, given = detector.session, []

    def counted(batch):
        given.append(batch.shape[-2] * batch.shape[-1])  # N, C, H, W
        return session(batch)

    monkeypatch.setattr(detector, "session", counted)
    return given


def png(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.slow  # a real OCR engine's models load
@pytest.mark.parametrize(("size", "mode", "colour"), [
    ((12, 3_000), "RGB", (40, 160, 60)),  # test_ocr.py's bar.png: became a 736 x 4,000 detector input
    ((10_000, 50), "RGB", (40, 160, 60)),  # its banner.png: 4,000 x 736
    ((1_654, 2_339), "L", 255),  # a blank A4 page at 200 dpi
    ((800, 600), "P", 3),  # a palette image of one colour
])
def test_an_image_of_one_colour_is_never_given_to_the_detector(detector_pixels, size, mode, colour):
    from PIL import Image

    from minirag.ingest import ocr

    assert ocr.read_image(png(Image.new(mode, size, colour)), "blank.png") == ("", "")
    assert detector_pixels == []


@pytest.mark.slow
def test_a_strip_of_faint_jpeg_noise_is_never_given_to_the_detector(detector_pixels):
    """A one-colour banner saved as a JPEG: its pixels spread by a few levels, no more."""
    import random

    from PIL import Image

    from minirag.ingest import ocr

    rng = random.Random(81)
    image = Image.new("RGB", (10_000, 50), (40, 160, 60))
    image.putdata([(40 + rng.randint(-3, 3), 160 + rng.randint(-3, 3), 60) for _ in range(10_000 * 50)])
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=60)
    assert ocr.read_image(buffer.getvalue(), "banner.jpg") == ("", "")
    assert detector_pixels == []


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "background", "ink"), [
    ("RGB", (40, 160, 60), (0, 0, 0)),  # a line on a banner's colour
    ("1", 255, 0),  # a bilevel scan (a fax's TIFF)
    ("L", 255, 239),  # text 16 levels off white, the faintest of 8, 12, 16 ... that RapidOCR read
])
def test_a_line_of_text_is_still_given_to_the_detector_and_read(detector_pixels, mode, background, ink):
    from PIL import Image, ImageDraw, ImageFont

    from minirag.ingest import ocr

    image = Image.new(mode, (900, 120), background)
    ImageDraw.Draw(image).text((30, 35), "Quarterly invoice", font=ImageFont.load_default(size=36), fill=ink)
    text, note = ocr.read_image(png(image), "label.png")
    assert "invoice" in text.lower() and note == ""
    assert len(detector_pixels) == 1
