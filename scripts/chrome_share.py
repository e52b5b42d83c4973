"""How much of what HTML pages are chunked into is their site's chrome (navigation, footers).

    python scripts/chrome_share.py DIR [DIR ...] [--budget 110] [--model-path P] [--lost N]

Each DIR holds the pages of one generator, named by it (`sphinx-...`, `docbook-...`,
`javadoc...`, `doxygen-...`, `mkdocs...`). The chrome of each page is read from the
page with that generator's known class names and landmarks: a hand-made label for
this measurement only (minirag's own rules use none of them). A chunk is chrome when
most of its body lines (the breadcrumb line left aside) are text of the page's
chrome and none of its content. Prints per set: pages, chunks, chunks per page,
chrome chunks and their share, the share of all chunk lines that are chrome, and
the time to convert and chunk. With --lost N it
also lists, for N pages per set, the content paragraphs (text of the content region
by the same labels, 8 words or more) whose words no chunk holds.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The measurement's labels, by generator: XPath of the chrome and of the content region.
CHROME = {
    "sphinx": ("//*[contains(@class,'sphinxsidebar') or contains(@class,'related') or @class='footer'"
               " or contains(@class,'mobile-nav') or contains(@class,'menu-wrapper')]", "//*[@role='main']"),
    "docbook": ("//*[@class='navheader' or @class='navfooter']",
                "//body/*[not(@class='navheader') and not(@class='navfooter')]"),
    "javadoc": ("//header | //footer | //nav", "//main"),
    "doxygen": ("//*[@id='top' or @id='nav-path' or contains(@class,'navpath') or @class='footer']",
                "//*[@class='header' or @class='contents']"),
    "mkdocs": ("//header | //footer | //nav | //*[contains(@class,'md-sidebar')]", "//article"),
}
_WORD = re.compile(r"\w+")
_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[`*#>|]|^\s*(?:[-+]|\d+\.)\s+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(_MARKUP.sub(r"\1", text))]


def labels(path: Path, generator: str) -> tuple[set[str], str, list[str]]:
    """(chrome lines, content text, content paragraphs) of a page by the generator's labels."""
    import lxml.html

    root = lxml.html.document_fromstring(path.read_bytes())
    chrome_xpath, content_xpath = CHROME[generator]
    chrome = set()
    for el in root.xpath(chrome_xpath):
        for line in el.text_content().split("\n"):
            key = " ".join(words(line))
            if key:
                chrome.add(key)
        for sub in el.iter("a", "li", "p", "td", "th", "h3", "h4", "div", "span"):
            key = " ".join(words(sub.text_content()))
            if key:
                chrome.add(key)
    content_els = root.xpath(content_xpath)
    content = " ".join(" ".join(words(el.text_content())) for el in content_els)
    paragraphs = [" ".join(words(p.text_content())) for el in content_els for p in el.iter("p", "dd", "li")]
    paragraphs = [p for p in paragraphs if len(p.split()) >= 8]
    return chrome, content, paragraphs


def chrome_lines(chunk_text: str, chrome: set[str], content: str) -> tuple[int, int]:
    """(lines of the chunk's body that are chrome, lines of its body)."""
    lines = chunk_text.split("\n")[1:] or chunk_text.split("\n")
    body = [" ".join(words(line)) for line in lines]
    body = [line for line in body if line]
    hits = sum(1 for line in body if line in chrome and f" {line} " not in f" {content} ")
    return hits, len(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", type=Path, nargs="+")
    parser.add_argument("--budget", type=int, default=110)
    parser.add_argument("--model-path", default=os.environ.get("MODEL_PATH"))
    parser.add_argument("--lost", type=int, default=0)
    args = parser.parse_args()

    from minirag.chunking import chunk_document
    from minirag.chunking.titles import choose_title
    from minirag.encoder import Encoder
    from minirag.errors import ConversionFailed
    from minirag.ingest.convert import convert_file
    from minirag.models import resolve

    encoder = Encoder(resolve("unused", Path(args.model_path), Path("/nonexistent")))
    for directory in args.dirs:
        generator = next(g for g in CHROME if directory.name.startswith(g))
        pages = sorted(directory.glob("*.html"))
        chunks = chrome_chunks = lines = chrome_line_count = 0
        spent = 0.0
        lost: list[tuple[str, str]] = []
        for n, path in enumerate(pages):
            chrome, content, paragraphs = labels(path, generator)
            started = time.perf_counter()
            try:
                converted = convert_file(path)
            except ConversionFailed:
                continue
            title = choose_title(converted.markdown, metadata_title=converted.metadata_title, stem=path.stem)
            doc = chunk_document(converted.markdown, title=title, count_tokens=encoder.count_tokens,
                                 budget=args.budget, max_tokens=encoder.max_length)
            spent += time.perf_counter() - started
            chunks += len(doc.chunks)
            for chunk in doc.chunks:
                hits, body = chrome_lines(chunk.text, chrome, content)
                chrome_chunks += hits * 2 > body
                chrome_line_count += hits
                lines += body
            if n < args.lost:
                kept = " ".join(" ".join(words(c.text)) for c in doc.chunks)
                lost += [(path.name, p) for p in paragraphs if p not in kept
                         and not set(p.split()) <= set(kept.split())]
        print(f"{directory.name}: pages {len(pages)}, chunks {chunks} ({chunks / max(1, len(pages)):.1f}/page), "
              f"chrome {chrome_chunks} ({chrome_chunks / max(1, chunks):.1%}), chrome lines {chrome_line_count / max(1, lines):.1%}, "
              f"convert+chunk {spent:.1f} s")
        for name, paragraph in lost:
            print(f"  lost in {name}: {paragraph[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
