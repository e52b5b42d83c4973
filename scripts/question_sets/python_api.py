#!/usr/bin/env python3
"""Build the `python-api` BEIR set: identifier queries over the Python library reference.

Usage: python_api.py <extracted-python3.11-doc-root> <outdir>

Every documented object of the library pages python_faq.py uses as distractors (a
function, class, method, attribute, exception or constant: Sphinx's `dl.py` entries)
is one document: its signature and its description, nested entries left out, titled
by its page and section. Queries are identifiers as a user types them into a search
box, the case the two question sets never ask:
- the qualified name, `shutil.copyfile`, `str.removeprefix`;
- the bare name, `copyfile`, where exactly one entry has it and it has 5+ characters.
The relevant document is the entry that defines the name. Other entries, and the
pages' narrative sections, mention most names too (`see copyfile()`), so a keyword
engine must rank the definition above its mentions, and a dense model must read a
token it may never have seen.
"""
import collections
import os
import random
import sys

from bs4 import BeautifulSoup, Tag

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import clean_heading, html_to_text, summarize, write_beir  # noqa: E402
from python_faq import LIBRARY_PAGES, MIN_DISTRACTOR_CHARS  # noqa: E402

QUERIES_PER_FORM = 300
MIN_BARE_CHARS = 5


def section_title(entry, page_title):
    """The page title, and the heading of the section the entry sits in."""
    for parent in entry.parents:
        if isinstance(parent, Tag) and parent.name == "section":
            heading = parent.find(["h1", "h2", "h3", "h4"], recursive=False)
            if heading is not None:
                return titled(page_title, clean_heading(heading.get_text()))
    return page_title


def library_page(html_root, page):
    """(path relative to the HTML root, the page's main element, its title)."""
    rel = f"library/{page}.html"
    with open(os.path.join(html_root, rel), encoding="utf-8") as f:
        soup = BeautifulSoup(f.read(), "lxml")
    main = soup.find("div", attrs={"role": "main"})
    return rel, main, clean_heading(main.find("h1").get_text())


def titled(page_title, section):
    """A document's title: its page's, and the section's heading unless that is the page's own."""
    return page_title if section == page_title else f"{page_title} — {section}"


def entries(html_root, page):
    """(id, title, text) of every documented object on one library page."""
    rel, main, page_title = library_page(html_root, page)
    out = []
    for dl in main.find_all("dl", class_="py"):
        dt = dl.find("dt", recursive=False)
        dd = dl.find("dd", recursive=False)
        if dt is None or dd is None or not dt.get("id"):
            continue
        signature = clean_heading(dt.get_text())
        body = [c for c in dd.children if not (isinstance(c, Tag) and c.name == "dl" and "py" in (c.get("class") or []))]
        text = (signature + "\n\n" + html_to_text(body)).strip()
        out.append((f"{rel}#{dt['id']}", section_title(dl, page_title), text, dt["id"]))
    return out


def narrative(html_root, page):
    """The page's sections with their definition entries taken out: the prose that mentions them."""
    rel, main, page_title = library_page(html_root, page)
    for dl in main.find_all("dl", class_="py"):
        dl.decompose()
    out = []
    for section in main.find_all("section"):
        heading = section.find(["h1", "h2", "h3", "h4"], recursive=False)
        parts = [c for c in section.children if c is not heading and not (isinstance(c, Tag) and c.name == "section")]
        text = html_to_text(parts)
        if len(text) >= MIN_DISTRACTOR_CHARS:
            title = titled(page_title, clean_heading(heading.get_text()) if heading else page_title)
            out.append({"_id": f"{rel}#{section.get('id')}", "title": title, "text": text})
    return out


def main():
    pkg_root, outdir = sys.argv[1], sys.argv[2]
    html_root = os.path.join(pkg_root, "usr/share/doc/python3.11/html")
    corpus, names, seen = [], {}, set()
    for page in LIBRARY_PAGES:
        for did, title, text, name in entries(html_root, page):
            if did in seen:
                continue
            seen.add(did)
            corpus.append({"_id": did, "title": title, "text": text})
            names[did] = name
        for doc in narrative(html_root, page):
            if doc["_id"] not in seen:
                seen.add(doc["_id"])
                corpus.append(doc)

    rnd = random.Random(13)
    qualified = [(did, name) for did, name in names.items() if "." in name]
    last = collections.Counter(name.rsplit(".", 1)[-1] for name in names.values())
    bare = [(did, name.rsplit(".", 1)[-1]) for did, name in names.items()
            if last[name.rsplit(".", 1)[-1]] == 1 and len(name.rsplit(".", 1)[-1]) >= MIN_BARE_CHARS]
    queries, qrels = [], []
    for form, pool in (("qualified", qualified), ("bare", bare)):
        for did, text in rnd.sample(pool, min(QUERIES_PER_FORM, len(pool))):
            qid = f"{form}:{did}"
            queries.append({"_id": qid, "text": text})
            qrels.append((qid, did))
    write_beir(outdir, corpus, queries, qrels)
    summarize("python-api", corpus, queries)
    print(f"entries: {len(names)}  qualified pool: {len(qualified)}  bare pool: {len(bare)}")


if __name__ == "__main__":
    main()
