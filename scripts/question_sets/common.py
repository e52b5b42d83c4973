"""Shared helpers for building BEIR-format QA evaluation sets."""
import json
import os
import re

from bs4 import Comment, NavigableString, Tag

BLOCK_TAGS = {
    "p", "div", "section", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tfoot",
    "figure", "figcaption", "caption", "hr", "br", "aside", "nav", "article",
    "header", "footer", "details", "summary",
}
SKIP_CLASSES = {"headerlink", "contents", "toctree-wrapper", "linenos"}

_ws = re.compile(r"\s+")
_secnum = re.compile(r"^\s*(\d+(\.\d+)*\.?)\s+")


def clean_heading(text):
    """Heading text without pilcrows, surrounding whitespace or section numbers."""
    text = text.replace("\u00b6", "")
    text = _ws.sub(" ", text).strip()
    return _secnum.sub("", text)


class _Blocks:
    def __init__(self):
        self.blocks = []
        self.buf = []
        self.prefix = ""

    def inline(self, s):
        self.buf.append(s)

    def flush(self):
        s = _ws.sub(" ", "".join(self.buf)).strip()
        self.buf = []
        if s:
            self.blocks.append(self.prefix + s)
            self.prefix = ""

    def raw(self, s):
        self.flush()
        s = s.strip("\n").rstrip()
        if s.strip():
            self.blocks.append(self.prefix + s if self.prefix else s)
            self.prefix = ""


def _skip(el):
    if el.name in ("script", "style", "nav", "noscript"):
        return True
    cls = set(el.get("class") or [])
    return bool(cls & SKIP_CLASSES)


def _walk(el, out):
    for child in el.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.inline(str(child))
            continue
        if not isinstance(child, Tag) or _skip(child):
            continue
        name = child.name
        if name == "pre":
            out.raw(child.get_text())
        elif name == "tr":
            out.flush()
            cells = [_ws.sub(" ", html_to_text(list(c.children))).strip()
                     for c in child.find_all(["td", "th"], recursive=False)]
            row = " | ".join(c for c in cells if c)
            if row:
                out.blocks.append(row)
        elif name == "li":
            out.flush()
            out.prefix = "- "
            _walk(child, out)
            out.flush()
            out.prefix = ""
        elif name in BLOCK_TAGS:
            out.flush()
            _walk(child, out)
            out.flush()
        else:
            _walk(child, out)


def html_to_text(elements):
    """Convert an iterable of bs4 nodes to plain text, blank line between blocks."""
    out = _Blocks()
    _walk(_Holder(list(elements)), out)
    out.flush()
    return "\n\n".join(out.blocks)


class _Holder:
    """Minimal object exposing .children so _walk can process a node list."""

    def __init__(self, children):
        self.children = children


def write_beir(outdir, corpus, queries, qrels):
    os.makedirs(os.path.join(outdir, "qrels"), exist_ok=True)
    with open(os.path.join(outdir, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for d in corpus:
            f.write(json.dumps({"_id": d["_id"], "title": d["title"], "text": d["text"]},
                               ensure_ascii=False) + "\n")
    with open(os.path.join(outdir, "queries.jsonl"), "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps({"_id": q["_id"], "text": q["text"]}, ensure_ascii=False) + "\n")
    with open(os.path.join(outdir, "qrels", "test.tsv"), "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, did in qrels:
            f.write(f"{qid}\t{did}\t1\n")


def summarize(name, corpus, queries, n=10):
    import random
    print(f"== {name}")
    print(f"docs: {len(corpus)}  queries: {len(queries)}")
    lens = [len(d["text"].split()) for d in corpus]
    print(f"mean doc length (words, text field): {sum(lens) / len(lens):.1f}")
    rnd = random.Random(0)
    for q in rnd.sample(queries, min(n, len(queries))):
        print("  Q:", q["text"])
