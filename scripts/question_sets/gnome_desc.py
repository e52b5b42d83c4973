#!/usr/bin/env python3
"""Build a `gnome-help-desc-<locale>` BEIR set from the Debian gnome-user-docs package, for
locales that ../shared/eval-data does not hold (French, Spanish, Korean, Polish, ...).

Usage: gnome_desc.py <extracted-package-root> <outdir> <locale>
  e.g. gnome_desc.py /tmp/gnome /tmp/sets/gnome-help-desc-fr fr

The same recipe as the shared sets: query = a help page's one-line <info><desc> in that
locale, removed from the page (the whole <info> is left out); relevant = that page; corpus =
every gnome-help page of the locale, its title and body. A page whose description is still
the English one (not translated) gives no query.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import summarize, write_beir  # noqa: E402
from gnome_questions import M, Out, inline_text, link_titles, load, walk  # noqa: E402


def descriptions(root, titles) -> str:
    info = root.find(M + "info")
    desc = info.find(M + "desc") if info is not None else None
    return inline_text(desc, titles) if desc is not None else ""


def main():
    pkg_root, outdir, locale = sys.argv[1], sys.argv[2], sys.argv[3]
    help_dir = os.path.join(pkg_root, "usr/share/help/{}/gnome-help")
    src = help_dir.format(locale)
    files = sorted(f for f in os.listdir(src) if f.endswith(".page"))
    roots = {f: load(os.path.join(src, f)) for f in files}
    english = {f: load(os.path.join(help_dir.format("C"), f)) for f in files
               if os.path.exists(os.path.join(help_dir.format("C"), f))}
    titles, english_titles = link_titles(roots), link_titles(english)

    corpus, queries, qrels, untranslated = [], [], [], 0
    for f in files:
        root = roots[f]
        title_el = root.find(M + "title")
        title = inline_text(title_el, titles) if title_el is not None else ""
        out = Out()
        walk(root, out, titles)
        out.flush()
        did = f"gnome-help/{f}"
        corpus.append({"_id": did, "title": title, "text": "\n\n".join(out.blocks)})
        desc = descriptions(root, titles)
        if not desc:
            continue
        if locale != "C" and f in english and desc == descriptions(english[f], english_titles):
            untranslated += 1
            continue
        queries.append({"_id": "q" + did, "text": desc})
        qrels.append(("q" + did, did))

    write_beir(outdir, corpus, queries, qrels)
    summarize(f"gnome-help-desc-{locale}", corpus, queries)
    print(json.dumps({"pages": len(files), "queries": len(queries), "untranslated_descriptions": untranslated}))


if __name__ == "__main__":
    main()
