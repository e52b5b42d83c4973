#!/usr/bin/env python3
"""Build the `python-faq` BEIR set from the Debian python3.11-doc package.

Usage: python_faq.py <extracted-package-root> <outdir>
  e.g. python_faq.py /tmp/qa-build/pydoc /work/qa-sets/python-faq
"""
import collections
import json
import os
import re
import sys

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import clean_heading, html_to_text, summarize, write_beir  # noqa: E402

FAQ_PAGES = ["general", "programming", "design", "library", "extending",
             "windows", "gui", "installed"]

# 60 commonly used library modules / reference pages used as distractors.
LIBRARY_PAGES = [
    "os", "os.path", "sys", "re", "json", "pathlib", "subprocess", "threading",
    "datetime", "collections", "itertools", "functools", "logging", "unittest",
    "argparse", "csv", "math", "random", "time", "typing", "dataclasses", "enum",
    "shutil", "glob", "tempfile", "io", "string", "textwrap", "pickle", "copy",
    "socket", "asyncio-task", "multiprocessing", "concurrent.futures",
    "urllib.request", "urllib.parse", "http.client", "sqlite3", "hashlib",
    "base64", "struct", "contextlib", "abc", "inspect", "traceback", "timeit",
    "doctest", "heapq", "bisect", "operator", "decimal", "statistics", "zipfile",
    "tarfile", "gzip", "configparser", "signal", "queue", "stdtypes", "functions",
]
assert len(LIBRARY_PAGES) == 60, len(LIBRARY_PAGES)

SKIP_PAGES = {"index.html", "grammar.html"}  # grammar.html = raw PEG grammar dump

MIN_ANSWER_CHARS = 100
MIN_DISTRACTOR_CHARS = 200

QWORDS = re.compile(r"^(how|what|why|is|are|can|could|do|does|did|where|when|which|"
                    r"who|should|will|would|isn't|aren't|doesn't|don't)\b", re.I)


def is_question(h):
    return "?" in h or bool(QWORDS.match(h))


def heading_of(section):
    for c in section.children:
        if isinstance(c, Tag) and re.fullmatch(r"h[1-6]", c.name or ""):
            return c
    return None


def child_sections(section):
    return [c for c in section.children if isinstance(c, Tag) and c.name == "section"]


def load(path):
    with open(path, encoding="utf-8") as f:
        soup = BeautifulSoup(f.read(), "lxml")
    main = soup.find("div", attrs={"role": "main"})
    top = main.find("section")
    return top


def build_faq(html_root):
    docs, queries, qrels, dropped = [], [], [], collections.Counter()
    dropped_examples = collections.defaultdict(list)
    for page in FAQ_PAGES:
        rel = f"faq/{page}.html"
        top = load(os.path.join(html_root, rel))
        page_title = clean_heading(heading_of(top).get_text())

        def visit(sec, category, rel=rel, page_title=page_title):
            h = heading_of(sec)
            htext = clean_heading(h.get_text()) if h else ""
            kids = child_sections(sec)
            if is_question(htext):
                # Answer = everything except the heading and nested question entries.
                parts = []
                for c in sec.children:
                    if c is h:
                        continue
                    if isinstance(c, Tag) and c.name == "section":
                        ch = heading_of(c)
                        if ch is not None and is_question(clean_heading(ch.get_text())):
                            visit(c, category)
                            continue
                    parts.append(c)
                text = html_to_text(parts)
                if len(text) < MIN_ANSWER_CHARS:
                    dropped["answer < 100 chars"] += 1
                    dropped_examples["answer < 100 chars"].append(f"{htext} -> {text!r}")
                    return
                did = f"{rel}#{sec.get('id')}"
                title = page_title + (f" — {category}" if category else "")
                docs.append({"_id": did, "title": title, "text": text})
                queries.append({"_id": "q" + did, "text": htext})
                qrels.append(("q" + did, did))
            elif kids:
                for c in kids:
                    visit(c, htext)
            else:
                dropped["heading is not a question"] += 1
                dropped_examples["heading is not a question"].append(htext)

        for c in child_sections(top):
            visit(c, None)
    return docs, queries, qrels, dropped, dropped_examples


def split_page(html_root, rel):
    top = load(os.path.join(html_root, rel))
    page_title = clean_heading(heading_of(top).get_text())
    out = []

    def emit(sec, title, exclude_sections):
        h = heading_of(sec)
        parts = [c for c in sec.children
                 if c is not h and not (exclude_sections and isinstance(c, Tag)
                                        and c.name == "section")]
        text = html_to_text(parts)
        if len(text) >= MIN_DISTRACTOR_CHARS:
            out.append({"_id": f"{rel}#{sec.get('id')}", "title": title, "text": text})

    emit(top, page_title, True)  # page intro
    for s2 in child_sections(top):
        t2 = clean_heading(heading_of(s2).get_text())
        emit(s2, f"{page_title} — {t2}", True)
        for s3 in child_sections(s2):
            t3 = clean_heading(heading_of(s3).get_text())
            emit(s3, f"{page_title} — {t3}", False)
    return out


def main():
    pkg_root, outdir = sys.argv[1], sys.argv[2]
    html_root = os.path.join(pkg_root, "usr/share/doc/python3.11/html")
    faq_docs, queries, qrels, dropped, dropped_examples = build_faq(html_root)

    pages = []
    # Narrative docs: tutorial, HOWTOs, language reference, "using" and
    # extending/embedding guides (the latter three added to reach ~1,500 docs
    # and to give hard distractors for the windows/extending FAQs).
    for sub in ("tutorial", "howto", "reference", "using", "extending"):
        for fn in sorted(os.listdir(os.path.join(html_root, sub))):
            if fn.endswith(".html") and fn not in SKIP_PAGES:
                pages.append(f"{sub}/{fn}")
    pages += [f"library/{m}.html" for m in LIBRARY_PAGES]
    distractors = []
    for rel in pages:
        distractors.extend(split_page(html_root, rel))

    # Safety: distractors must not duplicate any FAQ answer.
    faq_texts = {d["text"] for d in faq_docs}
    faq_ids = {d["_id"] for d in faq_docs}
    distractors = [d for d in distractors
                   if d["text"] not in faq_texts and d["_id"] not in faq_ids]
    # Unique ids
    seen = set()
    corpus = []
    for d in faq_docs + distractors:
        assert d["_id"] not in seen, d["_id"]
        seen.add(d["_id"])
        corpus.append(d)

    # Identical question texts (e.g. "What is Python?" in general + installed FAQ):
    # keep one query, mark every matching answer relevant.
    qtexts = collections.Counter(q["text"] for q in queries)
    dups = [t for t, n in qtexts.items() if n > 1]
    first = {}
    merged_queries, merged_qrels = [], []
    for q, (qid, did) in zip(queries, qrels, strict=False):
        if q["text"] in first:
            merged_qrels.append((first[q["text"]], did))
            continue
        first[q["text"]] = qid
        merged_queries.append(q)
        merged_qrels.append((qid, did))
    queries, qrels = merged_queries, merged_qrels

    write_beir(outdir, corpus, queries, qrels)
    stats = {
        "faq_answer_docs": len(faq_docs),
        "distractor_docs": len(distractors),
        "distractor_pages": len(pages),
        "dropped": dict(dropped),
        "dropped_examples": dict(dropped_examples),
        "duplicate_query_texts": dups,
    }
    with open(os.path.join(outdir, "build-stats.json"), "w") as f:
        json.dump(stats, f, indent=1, ensure_ascii=False)
    summarize("python-faq", corpus, queries)
    print(json.dumps({k: v for k, v in stats.items() if k != "dropped_examples"},
                     ensure_ascii=False))
    for k, v in dropped_examples.items():
        print(f"dropped ({k}):")
        for e in v:
            print("   ", e[:200])


if __name__ == "__main__":
    main()
