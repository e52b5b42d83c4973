"""Text from images: scanned PDF pages and image files, read by an OCR engine (the `ocr` extra).

Two engines: Tesseract (the `tesseract` command with its language packs, from the system's
packages) and RapidOCR (the `ocr` extra: PP-OCR models as ONNX, on the onnxruntime minirag
already runs). docs/documents.md has the measurements behind the default.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import os
import subprocess
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from minirag import json_text
from minirag.errors import ConversionFailed, described
from minirag.ingest.progress import plural
from minirag.programs import on_path

log = logging.getLogger(__name__)

ENGINES = ("rapidocr", "tesseract")
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"})
# Tesseract's code for a locale's language (ISO 639-1 -> its data package's name).
_TESSERACT_CODES = {"de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld", "pl": "pol",
                    "ru": "rus", "uk": "ukr", "ja": "jpn", "ko": "kor", "zh": "chi_sim", "sv": "swe", "cs": "ces"}
# A file is refused, before any page is decoded, past these: a PNG of 20 kB can claim
# 50,000 x 50,000 pixels (a decompression bomb), and each OCRed page costs seconds.
MAX_PIXELS = 40_000_000  # one image, or one rendered page
MAX_OCR_PAGES = 500  # pages OCRed in one file; the rest are reported, not read
RENDER_DPI = 200
# A PDF page is a scan when images cover at least this share of it and its text layer holds
# fewer characters than this (a scan with a page number or a running header is still a scan).
MIN_IMAGE_SHARE = 0.3
MIN_LAYER_CHARS = 200
INSTALL_HINT = "install the ocr extra (pip install 'minirag[ocr]')"
# CPU time one page may add to its file's converter limit (MINIRAG_CONVERT_CPU_SECONDS is sized
# for parsing; OCR costs seconds a page). The wall-time limit still bounds the whole file.
OCR_CPU_PER_PAGE = 60
# An image (a PDF page as rendered) whose shorter side, at the scale the engine reads it, is under
# this many pixels holds no line of text (docs/documents.md has what RapidOCR reads at 2-5 px): it
# is "no text found" and never reaches the engine, whose scaling would make a strip gigabytes.
MIN_TEXT_PIXELS = 4
# An image file's page whose reading holds fewer letters and digits than this is no text.
MIN_IMAGE_TEXT_CHARS = 3
# Told (page, pages) as OCR starts on each page of the file being converted: the converter worker
# sends it to its parent as a progress frame (ingest/isolation.py). Unset, no one is listening.
PAGE_LISTENER: ContextVar[Callable[[int, int], None] | None] = ContextVar("ocr_page_listener", default=None)


@dataclass(frozen=True)
class OcrSettings:
    engine: str | None  # None: OCR off (MINIRAG_OCR=off) or no engine installed
    languages: tuple[str, ...]  # Tesseract's codes (RapidOCR's bundled model reads what it reads)
    missing: str | None = None  # why there is no engine, when the user did not turn it off


def settings(env=None) -> OcrSettings:
    """MINIRAG_OCR (auto | rapidocr | tesseract | off) and MINIRAG_OCR_LANGUAGES (`eng,rus`).

    auto: Tesseract where its command is installed (it read Latin and Cyrillic pages better, in a
    third to a sixth of the CPU time: docs/documents.md), else RapidOCR from the ocr extra."""
    env = os.environ if env is None else env
    choice, asked = _choice(env), _asked(env)
    if choice == "off":
        return OcrSettings(None, asked)
    if choice == "auto":
        choice = "tesseract" if tesseract_program() else "rapidocr"
    missing = _missing(choice)
    if missing or choice == "rapidocr":
        return OcrSettings(None if missing else choice, asked, missing)
    return OcrSettings(choice, _tesseract_languages(asked, env))


def _choice(env) -> str:
    """MINIRAG_OCR as `off`, `auto` or an engine's name."""
    choice = env.get("MINIRAG_OCR", "").strip().lower() or "auto"
    if choice in ("off", "0", "false", "no"):
        return "off"
    if choice not in ("auto", *ENGINES):
        raise ConversionFailed(f"MINIRAG_OCR must be auto, rapidocr, tesseract or off, got {choice!r}")
    return choice


def _asked(env) -> tuple[str, ...]:
    return tuple(part.strip() for part in env.get("MINIRAG_OCR_LANGUAGES", "").split(",") if part.strip())


def settings_error(env=None) -> str | None:
    """What makes MINIRAG_OCR or MINIRAG_OCR_LANGUAGES unusable for every file alike, for the
    configuration to refuse once at start; None when nothing does. Loads no engine, and runs
    Tesseract (for its language list) only when languages are asked for."""
    env = os.environ if env is None else env
    try:
        choice, asked = _choice(env), _asked(env)
        if asked and choice in ("auto", "tesseract") and tesseract_program():
            _tesseract_languages(asked, env)
    except ConversionFailed as exc:
        return str(exc)
    return None


def _tesseract_languages(asked: tuple[str, ...], env) -> tuple[str, ...]:
    """The languages asked for, all of which Tesseract must have; by default the language of the
    user's locale and English, those of them it has (the locale's first: Tesseract leans on it)."""
    installed = _installed_tesseract_languages()
    if asked:
        absent = [code for code in asked if code not in installed]
        if absent:
            raise ConversionFailed(f"MINIRAG_OCR_LANGUAGES: tesseract has no data for {', '.join(absent)} "
                                   f"(it has {', '.join(sorted(installed)) or 'none'})")
        return asked
    wanted = (_TESSERACT_CODES.get(_locale_language(env), "eng"), "eng")
    return tuple(dict.fromkeys(code for code in wanted if code in installed)) or tuple(sorted(installed))[:1]


def _locale_language(env) -> str:
    """The user's language as ISO 639-1 (`de` for LANG=de_DE.UTF-8), from the variables the C
    library reads for messages, in its order; read from them, not from the process's locale,
    which stays C where that locale is not generated (containers, minimal systems)."""
    import locale

    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").strip()
        if value:
            return value.split(".")[0].split("_")[0].split("@")[0].lower()
    return (locale.getlocale()[0] or "").split("_")[0].lower()  # Windows: no such variables


def tesseract_program() -> str | None:
    """Tesseract's full path, found on PATH's absolute folders only (programs.py: a `tesseract` in
    the folder being indexed must never run)."""
    return on_path("tesseract")


@functools.lru_cache(maxsize=1)
def _installed_tesseract_languages() -> frozenset[str]:
    program = tesseract_program()
    if program is None:
        return frozenset()
    try:
        done = subprocess.run([program, "--list-langs"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip() and line.strip() != "osd")


def _missing(engine: str) -> str | None:
    if engine == "tesseract":
        return None if tesseract_program() else "install tesseract-ocr (MINIRAG_OCR=tesseract)"
    try:
        import rapidocr  # noqa: F401
    except ImportError:
        return INSTALL_HINT
    return None


def images_readable(env=None) -> bool:
    """Whether image files are documents now (an engine is installed and OCR is not off)."""
    try:
        return settings(env).engine is not None
    except ConversionFailed:
        return False


def would_read_now(note: str) -> bool:
    """A source stored with pages left unread for want of the extra, now that it is installed."""
    return INSTALL_HINT in note and images_readable()


class _RapidOcr:
    # RapidOCR's own settings (its config.yaml, Global): it shrinks an image's longer side to
    # MAX_SIDE, rounding both sides to multiples of 32, enlarges its shorter side to MIN_SIDE, then
    # pads one wider than RATIO:1 to RATIO:1.
    MAX_SIDE = 2000
    MIN_SIDE = 30
    RATIO = 8
    # Its detector enlarges every image until the shorter side is DETECTOR_SIDE px. An image is
    # padded so that this enlarges it at most MAX_ENLARGEMENT times: past that it costs time and
    # reads no more (a 192 x 50 label had become a 2,816 x 736 input; docs/documents.md).
    DETECTOR_SIDE = 736
    MAX_ENLARGEMENT = 2
    # An image each of whose colour bands spans fewer levels than this is one colour, or one with a
    # JPEG's faint noise: it holds no text RapidOCR reads (docs/documents.md), and is never given to
    # it, which would enlarge and pad a bar or a banner into a detector input as large as a page's.
    MIN_CONTRAST = 12

    def __init__(self) -> None:
        from rapidocr import RapidOCR

        # The wheel's own PP-OCRv6 models read Latin scripts, Chinese and Japanese; other
        # scripts need a model download, which ingest never does.
        self._ocr = RapidOCR(params={"Global.log_level": "critical", "Global.use_cls": False})
        self._lock = threading.Lock()  # one page at a time: it sets per-call options on itself

    def read(self, image) -> str:
        import numpy as np

        image = image.convert("RGB")
        if all(high - low < self.MIN_CONTRAST for low, high in image.getextrema()):
            return ""
        pixels = np.asarray(self._framed(image))
        with self._lock:
            result = self._ocr(pixels)
        return "\n".join(result.txts or ())  # type: ignore[union-attr]  # the whole pipeline: a RapidOCROutput

    def _framed(self, image):
        """The image as RapidOCR can take it. Past RATIO:1 either way: shrunk to MAX_SIDE here, as it
        would shrink it but without its rounding, which can make a strip's short side 0 pixels
        (ResizeImgError). Then padded with its corner's colour where RapidOCR's input would grow
        without bound: one taller than 1:RATIO to that (its detector scales the shorter side to
        736 px, whatever the longer becomes), and one so wide that enlarging its shorter side to
        MIN_SIDE takes its longer past MAX_SIDE to just short of that (docs/documents.md). Last, any
        image padded as _within_enlargement says."""
        from PIL import Image

        width, height = image.size
        if max(width, height) <= self.RATIO * min(width, height):
            return self._within_enlargement(image)
        scale = self.MAX_SIDE / max(width, height)
        if scale < 1:
            width, height = max(1, round(width * scale)), max(1, round(height * scale))
            image = image.resize((width, height), Image.Resampling.BILINEAR)
        if height > self.RATIO * width:
            image = _padded(image, (-(-height // self.RATIO), height))
        elif width * self.MIN_SIDE > self.MAX_SIDE * height:
            image = _padded(image, (width, -(-width * self.MIN_SIDE // self.MAX_SIDE)))
        return self._within_enlargement(image)

    def _within_enlargement(self, image):
        """The image padded so that no side is under DETECTOR_SIDE / MAX_ENLARGEMENT."""
        least = -(-self.DETECTOR_SIDE // self.MAX_ENLARGEMENT)
        width, height = image.size
        return image if min(width, height) >= least else _padded(image, (max(width, least), max(height, least)))


def _padded(image, size: tuple[int, int]):
    """`image` in the middle of a canvas of `size`, filled with its top-left corner's colour."""
    from PIL import Image

    padded = Image.new(image.mode, size, image.getpixel((0, 0)))
    padded.paste(image, ((size[0] - image.width) // 2, (size[1] - image.height) // 2))
    return padded


class _Tesseract:
    MAX_SIDE = None  # it reads the pixels as they are

    def __init__(self, languages: tuple[str, ...]) -> None:
        self._languages = "+".join(languages)

    def read(self, image) -> str:
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        program = tesseract_program()
        if program is None:
            raise ConversionFailed("tesseract failed: no `tesseract` on PATH's absolute folders")
        try:
            # One thread: its OpenMP threads spin while they wait, and ingest reads pages side by side.
            done = subprocess.run([program, "-", "-", "-l", self._languages, "--psm", "3"],
                                  input=buffer.getvalue(), capture_output=True, timeout=600, check=False,
                                  env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConversionFailed(f"tesseract failed: {exc}") from None
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ConversionFailed(f"tesseract failed: {detail[-1][:200] if detail else done.returncode}")
        return done.stdout.decode("utf-8", "replace")


@functools.lru_cache(maxsize=4)
def get_engine(name: str, languages: tuple[str, ...]):
    """The engine, loaded once per process (RapidOCR's sessions take a second to build)."""
    if name == "tesseract":
        return _Tesseract(languages)
    return _RapidOcr()


# --- reading documents -----------------------------------------------------------------


def _read(engine, image) -> str:
    """The text `engine` reads in `image`; none, without running it, where the image's shorter side
    at the scale the engine reads it is under MIN_TEXT_PIXELS (a decorative strip or dot)."""
    width, height = image.size
    scale = min(1.0, engine.MAX_SIDE / max(width, height)) if engine.MAX_SIDE else 1.0
    if min(width, height) * scale < MIN_TEXT_PIXELS:
        return ""
    return engine.read(image)


def _cache_file(data: bytes, current: OcrSettings) -> Path:
    from platformdirs import user_cache_dir

    key = hashlib.blake2b(data, digest_size=20)
    key.update(f"\0{current.engine}\0{'+'.join(current.languages)}".encode())
    return Path(user_cache_dir("minirag")) / "ocr" / f"{key.hexdigest()}.json"


def _cached(data: bytes, current: OcrSettings, read_pages) -> list[str]:
    """The pages `read_pages()` recognizes in these bytes, read once per engine and languages:
    a re-sync, a forced re-index or the same scan under another name never OCRs them again."""
    path = _cache_file(data, current)
    try:
        return json_text.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    pages = read_pages()
    try:
        from minirag.store.partials import write_atomically

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lambda file: file.write(json.dumps(pages, ensure_ascii=False).encode("utf-8")))
    except OSError as exc:  # a read-only cache folder costs time, not the document
        log.debug("OCR cache not written: %s", exc)
    return pages


def _check_pixels(width: int, height: int, name: str) -> None:
    if width * height > MAX_PIXELS:
        raise ConversionFailed(f"{name}: refused: {width} x {height} pixels is over the OCR limit of "
                               f"{MAX_PIXELS} (decompression bomb?)")


def _unread_note(count: int, total: int, current: OcrSettings) -> str:
    hint = current.missing or "OCR is off (MINIRAG_OCR=off)"
    return f"{count} of {total} pages had no text; {hint}"


def _capped_note(left: int, total: int, first_left: int) -> str:
    """Pages past MAX_OCR_PAGES: how many, and where the file's unread part starts (0-based)."""
    return (f"{left} of {total} pages not read: OCR reads at most {plural(MAX_OCR_PAGES, 'scanned page')} "
            f"of a file (the first left unread is page {first_left + 1})")


def _grant_cpu(seconds: int) -> None:
    """Raise this process's CPU-time soft limit by `seconds` where one is set (the converter
    worker's per-file limit, ingest/isolation.py), so a scan is bounded by pages, not by a
    limit sized for parsing text."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no limits to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft != resource.RLIM_INFINITY:
        wanted = soft + seconds
        resource.setrlimit(resource.RLIMIT_CPU, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))


def _starting(page: int, pages: int) -> None:
    listener = PAGE_LISTENER.get()
    if listener is not None:
        listener(page, pages)


def read_image(data: bytes, name: str) -> tuple[str, str]:
    """An image file's text, a form feed between the frames of a multi-page TIFF, and a note
    (pages left unread). Its size is checked from the header before any pixel is decoded."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    current = settings()
    if current.engine is None:
        return "", _unread_note(1, 1, current)
    try:
        image = Image.open(io.BytesIO(data))
        frames = getattr(image, "n_frames", 1)
    except Image.DecompressionBombError as exc:  # past twice PIL's own limit, which it checks first
        raise ConversionFailed(f"{name}: refused: {exc} (decompression bomb?)"[:300]) from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ConversionFailed(f"{name}: not a readable image ({described(exc)})") from None
    _check_pixels(*image.size, name)

    def read_pages() -> list[str]:
        engine = get_engine(current.engine, current.languages)
        pages = []
        try:
            for index, frame in enumerate(ImageSequence.Iterator(image)):
                if index >= MAX_OCR_PAGES:
                    break
                _check_pixels(*frame.size, name)
                _grant_cpu(OCR_CPU_PER_PAGE)
                _starting(index + 1, min(frames, MAX_OCR_PAGES))
                pages.append(_read(engine, frame.copy()))
        except (OSError, ValueError, Image.DecompressionBombError) as exc:
            raise ConversionFailed(f"{name}: cannot decode image ({described(exc)})") from None
        return pages

    # An icon (a callout's circled digit, a sign, an arrow) reads as a glyph or two: no text.
    pages = [page if sum(ch.isalnum() for ch in page) >= MIN_IMAGE_TEXT_CHARS else ""
             for page in _cached(data, current, read_pages)]
    return "\f".join(pages), _capped_note(frames - MAX_OCR_PAGES, frames, MAX_OCR_PAGES) if frames > MAX_OCR_PAGES else ""


def _scanned_pages(data: bytes, texts: list[str]) -> list[int]:
    """Indexes of the pages whose text layer is (nearly) empty while images cover them."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    short = [i for i, text in enumerate(texts) if len("".join(text.split())) < MIN_LAYER_CHARS]
    if not short:
        return []
    pdf = pypdfium2.PdfDocument(data)
    try:
        scanned = []
        for index in short:
            if index >= len(pdf):
                break
            page = pdf[index]
            width, height = page.get_size()
            covered = 0.0
            for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2):
                left, bottom, right, top = obj.get_bounds()
                covered += max(0.0, right - left) * max(0.0, top - bottom)
            if covered >= MIN_IMAGE_SHARE * width * height:
                scanned.append(index)
        return scanned
    finally:
        pdf.close()


def fill_scanned_pages(data: bytes, name: str, text: str) -> tuple[str, str]:
    """A PDF's text (pages separated by form feeds) with its scanned pages read by OCR, and a
    note on pages left unread (no engine, or past MAX_OCR_PAGES)."""
    texts = text.split("\f")
    try:
        scanned = _scanned_pages(data, texts)
    except Exception as exc:  # noqa: BLE001 - pdfminer read it; pdfium may still refuse a broken file
        log.debug("%s: pages not checked for scans: %s", name, exc)
        return text, ""
    if not scanned:
        return text, ""
    pages = len(texts) - 1 if texts and not texts[-1].strip() else len(texts)
    current = settings()
    if current.engine is None:
        return text, _unread_note(len(scanned), pages, current)
    chosen = scanned[:MAX_OCR_PAGES]

    def read_pages() -> list[str]:
        import pypdfium2

        engine = get_engine(current.engine, current.languages)
        pdf = pypdfium2.PdfDocument(data)
        try:
            out = []
            for number, index in enumerate(chosen, 1):
                page = pdf[index]
                width, height = page.get_size()
                scale = min(RENDER_DPI / 72, (MAX_PIXELS / max(1.0, width * height)) ** 0.5)
                _grant_cpu(OCR_CPU_PER_PAGE)
                _starting(number, len(chosen))
                out.append(_read(engine, page.render(scale=scale).to_pil()))
            return out
        finally:
            pdf.close()

    for index, read in zip(chosen, _cached(data, current, read_pages), strict=False):
        if len("".join(read.split())) > len("".join(texts[index].split())):
            texts[index] = read  # a figure's caption alone stays when OCR finds no more
    left = len(scanned) - len(chosen)
    return "\f".join(texts), _capped_note(left, pages, scanned[len(chosen)]) if left else ""
