#!/usr/bin/env python3
"""Build the `gnome-questions` BEIR set from the Debian gnome-user-docs package.

Usage: gnome_questions.py <extracted-package-root> <outdir> [locale, default C]
  e.g. gnome_questions.py /tmp/qa-build/gnome /work/qa-sets/gnome-questions

Queries  = <title> of the gnome-help pages whose English (C) title ends with "?", in
           the locale's translation; a page whose title the locale has not translated
           asks nothing (an English question over a translated help is another test).
Corpus   = every gnome-help page of the locale.  For question pages the title field is
           the page's <info><desc> (or "" if none) so nothing of the question leaks;
           other pages use their real <title>.  Text = page body (the page <title>
           and <info> are excluded for all pages; section titles kept as lines).
"""
import json
import os
import re
import sys

from lxml import etree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import summarize, write_beir  # noqa: E402

M = "{http://projectmallard.org/1.0/}"
IF = "{http://projectmallard.org/if/1.0/}"
XI = "{http://www.w3.org/2001/XInclude}"
_ws = re.compile(r"\s+")

# Render for the default GNOME desktop (not Classic, not Ubuntu, not mobile, no
# "install" action buttons).
FALSE_TOKENS = {"platform:gnome-classic", "platform:ubuntu", "platform:unity",
                "target:mobile", "action:install"}

SKIP = {M + "info", M + "links", M + "comment", M + "media", XI + "include",
        "{http://www.w3.org/ns/ttml}tt"}
BLOCK = {M + x for x in ("p", "note", "steps", "list", "terms", "tree", "item",
                         "section", "figure", "example", "synopsis", "quote",
                         "table", "thead", "tbody", "tfoot", "div", "listing",
                         "desc", "cite")}
RAW = {M + "code", M + "screen"}


def test_true(test):
    for alt in test.split(","):
        ok = True
        for tok in alt.split():
            neg = tok.startswith("!")
            tok = tok.lstrip("!")
            val = tok not in FALSE_TOKENS
            if neg:
                val = not val
            ok = ok and val
        if ok:
            return True
    return False


def norm(s):
    return _ws.sub(" ", s).strip()


class Out:
    def __init__(self):
        self.blocks, self.buf, self.prefix = [], [], ""

    def inline(self, s):
        if s:
            self.buf.append(s)

    def flush(self):
        s = norm("".join(self.buf))
        self.buf = []
        if s:
            self.blocks.append(self.prefix + s)
            self.prefix = ""


def inline_text(el, titles):
    """Flattened inline text of an element (used for titles, desc, cells)."""
    o = Out()
    walk(el, o, titles, inline_only=True)
    o.flush()
    return " ".join(o.blocks)


def walk(el, out, titles, inline_only=False, skip=None):
    """Render children of el into out (all but `skip`, whose tail text is kept)."""
    if el.text:
        out.inline(el.text)
    for c in el:
        if c is skip or not isinstance(c.tag, str):  # comments / PIs
            if c.tail:
                out.inline(c.tail)
            continue
        render(c, out, titles, inline_only)
        if c.tail:
            out.inline(c.tail)


def render(c, out, titles, inline_only):
    tag = c.tag
    if tag in SKIP:
        return
    if c.get(IF + "test") is not None and not test_true(c.get(IF + "test")):
        return  # conditional attribute (if:test="...") on any element
    if tag == IF + "choose":
        for br in c:
            if br.tag == IF + "when" and test_true(br.get("test", "")):
                walk(br, out, titles, inline_only)
                return
            if br.tag == IF + "else":
                walk(br, out, titles, inline_only)
                return
        return
    if tag == IF + "if":
        if test_true(c.get("test", "")):
            walk(c, out, titles, inline_only)
        return
    if tag == M + "keyseq":
        out.inline("+".join(inline_text(k, titles) for k in c if isinstance(k.tag, str)))
        return
    if tag == M + "guiseq":
        out.inline(" ▸ ".join(inline_text(k, titles) for k in c if isinstance(k.tag, str)))
        return
    if tag == M + "link" and not (c.text or len(c)):
        xref = (c.get("xref") or "").split("#")[0]
        out.inline(titles.get(xref, c.get("href") or xref))
        return
    if inline_only:
        walk(c, out, titles, True)
        return
    if tag in RAW:
        out.flush()
        txt = "".join(c.itertext()).strip("\n").rstrip()
        if txt.strip():
            out.blocks.append(txt)
        return
    if tag == M + "title" or tag == M + "subtitle":
        out.flush()
        t = inline_text(c, titles)
        if t:
            out.blocks.append(t)
        return
    if tag == M + "tr":
        out.flush()
        cells = [inline_text(td, titles) for td in c if td.tag in (M + "td", M + "th")]
        row = " | ".join(x for x in cells if x)
        if row:
            out.blocks.append(row)
        return
    if tag == M + "item":
        out.flush()
        out.prefix = "- "
        walk(c, out, titles)
        out.flush()
        out.prefix = ""
        return
    if tag in BLOCK:
        out.flush()
        walk(c, out, titles)
        out.flush()
        return
    walk(c, out, titles)  # inline element: gui, key, app, em, file, cmd, ...


def load(path):
    tree = etree.parse(path)
    try:
        tree.xinclude()
    except etree.XIncludeError as e:
        print(f"warning: xinclude failed in {path}: {e}", file=sys.stderr)
    return tree.getroot()


def link_titles(roots):
    """Page id -> the title an empty <link xref="..."/> to it shows (its link title, else its title)."""
    titles = {}
    for f, r in roots.items():
        info = r.find(M + "info")
        lt = None
        if info is not None:
            for t in info.findall(M + "title"):
                if t.get("type") == "link" and not t.get("role"):
                    lt = t
        t = lt if lt is not None else r.find(M + "title")
        titles[f[:-5]] = inline_text(t, {}) if t is not None else f[:-5]
    return titles


def main():
    pkg_root, outdir = sys.argv[1], sys.argv[2]
    locale = sys.argv[3] if len(sys.argv) > 3 else "C"  # "ru": the Russian translation of the same pages
    src = os.path.join(pkg_root, f"usr/share/help/{locale}/gnome-help")
    files = sorted(f for f in os.listdir(src) if f.endswith(".page"))
    roots = {f: load(os.path.join(src, f)) for f in files}
    titles = link_titles(roots)
    english = os.path.join(pkg_root, "usr/share/help/C/gnome-help")
    english_titles = link_titles({f: load(os.path.join(english, f)) for f in files}) if locale != "C" else titles

    corpus, queries, qrels = [], [], []
    n_desc_missing = n_untranslated = 0
    for f in files:
        r = roots[f]
        title_el = r.find(M + "title")
        title = inline_text(title_el, titles) if title_el is not None else ""
        info = r.find(M + "info")
        desc_el = info.find(M + "desc") if info is not None else None
        desc = inline_text(desc_el, titles) if desc_el is not None else ""
        out = Out()
        walk(r, out, titles, skip=title_el)
        out.flush()
        text = "\n\n".join(out.blocks)
        did = f"gnome-help/{f}"
        if english_titles.get(f[:-5], "").endswith("?"):
            if not desc:
                n_desc_missing += 1
            corpus.append({"_id": did, "title": desc, "text": text})
            if locale != "C" and title == english_titles[f[:-5]]:
                n_untranslated += 1
                continue
            queries.append({"_id": "q" + did, "text": title})
            qrels.append(("q" + did, did))
        else:
            corpus.append({"_id": did, "title": title, "text": text})

    write_beir(outdir, corpus, queries, qrels)
    summarize(os.path.basename(outdir), corpus, queries)
    empty = [d["_id"] for d in corpus if len(d["text"]) < 50]
    stats = {"pages": len(files), "question_pages": len(queries),
             "question_pages_without_desc": n_desc_missing, "question_titles_untranslated": n_untranslated,
             "docs_with_text_under_50_chars": empty}
    print(json.dumps(stats))
    with open(os.path.join(outdir, "build-stats.json"), "w") as fh:
        json.dump(stats, fh, indent=1)


if __name__ == "__main__":
    main()
