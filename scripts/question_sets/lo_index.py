#!/usr/bin/env python3
"""Build a `lo-help-index-LOCALE` BEIR set from a Debian libreoffice-help-LOCALE package, by the
shared sets' recipe: a back-of-book index term of LibreOffice Help is the query, the page it
points to is relevant.

Usage: lo_index.py <extracted-package-root> <outdir> <locale> [--every N]
  e.g. lo_index.py /tmp/km /tmp/sets/lo-help-index-km km

Corpus  = every page under usr/share/libreoffice/help/LOCALE/text: its <title> and the text of
          its display area, whitespace collapsed.
Queries = the index terms (bookmarks.js) that hold a letter of a script other than Latin (the
          terms the translation wrote in its own script; `A -- B` read as `A B`), each distinct
          term once, with every page it points to relevant; every Nth of them (default 2, like the
          shared sets, which hold about half).
"""
import argparse
import json
import re
import unicodedata
from pathlib import Path

import lxml.html

_BOOKMARK = re.compile(r'\{url:"([^"]+)", app:"[^"]*", text:"((?:[^"\\]|\\.)*)"\}')
_SPACE = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\(.)")  # a JavaScript string's escapes (\" or \')


def native(term: str) -> bool:
    """Whether `term` holds a letter of a script other than Latin."""
    return any(ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN") for ch in term)


def page_text(path: Path) -> tuple[str, str]:
    root = lxml.html.parse(str(path)).getroot()
    title = _SPACE.sub(" ", root.findtext(".//title") or "").strip()
    area = root.xpath('//div[@id="DisplayArea"]')
    body = area[0] if area else root
    return title, _SPACE.sub(" ", body.text_content()).strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("locale")
    parser.add_argument("--every", type=int, default=2)
    args = parser.parse_args()
    help_dir = args.root / "usr/share/libreoffice/help" / args.locale

    corpus = {}
    for path in sorted((help_dir / "text").rglob("*.html")):
        doc_id = f"{args.locale}/{path.relative_to(help_dir).as_posix()}"
        title, text = page_text(path)
        if text:
            corpus[doc_id] = {"_id": doc_id, "title": title, "text": text}

    relevant: dict[str, set[str]] = {}
    for url, raw in _BOOKMARK.findall((help_dir / "bookmarks.js").read_text(encoding="utf-8")):
        term = _SPACE.sub(" ", _ESCAPE.sub(r"\1", raw).replace(" -- ", " ")).strip()
        page = url.split("?")[0].split("#")[0]
        if native(term) and page in corpus:
            relevant.setdefault(term, set()).add(page)
    terms = sorted(relevant)[::args.every]

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "qrels").mkdir(exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc in corpus.values():
            handle.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as handle, \
            (args.out / "qrels" / "test.tsv").open("w", encoding="utf-8") as qrels:
        qrels.write("query-id\tcorpus-id\tscore\n")
        for n, term in enumerate(terms):
            handle.write(json.dumps({"_id": f"q{n}", "text": term}, ensure_ascii=False) + "\n")
            for page in sorted(relevant[term]):
                qrels.write(f"q{n}\t{page}\t1\n")
    print(json.dumps({"pages": len(corpus), "native_terms": len(relevant), "queries": len(terms)}))


if __name__ == "__main__":
    main()
