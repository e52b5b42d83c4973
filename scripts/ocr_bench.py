"""OCR engines against real PDF pages whose text layer is known.

    python scripts/ocr_bench.py PDF:LANG [PDF:LANG ...] --engine rapidocr|tesseract
                                --out DIR [--pages N] [--dpi D]
    python scripts/ocr_bench.py SCAN=TRUTH:LANG [...] --engine ... --out DIR

LANG is a tesseract code (eng, deu, rus, chi_sim). For each PDF, N pages with at least
800 characters of text are taken evenly from its body, rendered at D dpi (pypdfium2, as
ingest does), rotated by 0.6 degrees and saved as a quality-60 JPEG (a slightly skewed,
compressed scan), then read by the engine. The character error rate compares the
recognized text with the page's own text layer, whitespace removed on both sides (line
breaks and column gaps are layout, not characters). Prints one row per language and
writes each page's text layer and OCR text under DIR (for the retrieval check).

SCAN=TRUTH: a real scan (an image file, or a PDF's first page rendered at D dpi) read as it
is, against TRUTH, a text file transcribed from it; quotes and apostrophes count as their
ASCII forms on both sides (a transcription by keyboard does not keep their shapes).
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time (insertions by a running minimum)."""
    if not a or not b:
        return max(len(a), len(b))
    bs = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    steps = np.arange(len(b) + 1)
    row = steps.copy()
    for i, ch in enumerate(a, start=1):
        code = ord(ch)
        cost = np.empty(len(b) + 1, dtype=np.int64)
        cost[0] = i
        cost[1:] = np.minimum(row[1:] + 1, row[:-1] + (bs != code))
        row = np.minimum.accumulate(cost - steps) + steps
    return int(row[-1])


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (tesseract runs as one)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def squeeze(text: str) -> str:
    return "".join(text.split())


def pick_pages(pdf, count: int) -> list[int]:
    usable = []
    for index in range(len(pdf)):
        text = pdf[index].get_textpage().get_text_range()
        if len(squeeze(text)) >= 800:
            usable.append(index)
    body = usable[len(usable) // 10:]  # past the table of contents
    step = max(1, len(body) // count)
    return body[::step][:count]


def noisy_scan(page, dpi: int):
    from PIL import Image

    image = page.render(scale=dpi / 72).to_pil().convert("L")
    image = image.rotate(0.6, resample=Image.BICUBIC, expand=True, fillcolor=255)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=60)
    return Image.open(io.BytesIO(buffer.getvalue()))


def read_scan(engine, path: str, truth_path: str, lang: str, args) -> dict:
    from PIL import Image

    if path.lower().endswith(".pdf"):
        import pypdfium2

        image = pypdfium2.PdfDocument(path)[0].render(scale=args.dpi / 72).to_pil()
    else:
        image = Image.open(path)
    truth = Path(truth_path).read_text(encoding="utf-8")
    start, cpu_start = time.perf_counter(), cpu_seconds()
    read = engine.read(image)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    stem = args.out / args.engine / f"scan-{Path(path).stem}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".ocr.txt").write_text(read, encoding="utf-8")
    return {"engine": args.engine, "scan": Path(path).name, "lang": lang, "cer": scan_cer(read, truth),
            "s": round(seconds, 2), "cpu_s": round(cpu, 2)}


def scan_cer(read: str, truth: str) -> float:
    plain = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
    read, truth = squeeze(read.translate(plain)), squeeze(truth.translate(plain))
    return round(edit_distance(read, truth) / max(1, len(truth)), 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="+")
    parser.add_argument("--engine", required=True, choices=["rapidocr", "tesseract"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--dpi", type=int, default=200)
    args = parser.parse_args()

    import pypdfium2

    from minirag.ingest.ocr import get_engine

    for spec in args.pdfs:
        path, lang = spec.rsplit(":", 1)
        engine = get_engine(args.engine, tuple(lang.split("+")))
        if "=" in path:
            print(json.dumps(read_scan(engine, *path.split("=", 1), lang, args)), flush=True)
            continue
        pdf = pypdfium2.PdfDocument(path)
        errors = chars = 0
        seconds = cpu = 0.0
        chosen = pick_pages(pdf, args.pages)
        for index in chosen:
            page = pdf[index]
            truth = page.get_textpage().get_text_range()
            image = noisy_scan(page, args.dpi)
            start, cpu_start = time.perf_counter(), cpu_seconds()
            read = engine.read(image)
            seconds += time.perf_counter() - start
            cpu += cpu_seconds() - cpu_start
            errors += edit_distance(squeeze(read), squeeze(truth))
            chars += len(squeeze(truth))
            stem = args.out / args.engine / f"{lang}-{index + 1:03d}"
            stem.parent.mkdir(parents=True, exist_ok=True)
            stem.with_suffix(".ocr.txt").write_text(read, encoding="utf-8")
            stem.with_suffix(".layer.txt").write_text(truth, encoding="utf-8")
        pages = len(chosen)
        row = {"engine": args.engine, "lang": lang, "pages": pages, "cer": round(errors / max(1, chars), 4),
               "s_per_page": round(seconds / max(1, pages), 2), "cpu_s_per_page": round(cpu / max(1, pages), 2)}
        print(json.dumps(row), flush=True)
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(json.dumps({"engine": args.engine, "peak_rss_mb": round(peak / 1024)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
