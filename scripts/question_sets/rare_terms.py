#!/usr/bin/env python3
"""Build a known-item set from a BEIR corpus: each query is one word that a single document holds.

Usage: rare_terms.py <beir-set-dir> <outdir> [count]
  e.g. rare_terms.py ../shared/eval-data/lo-help-index-en-US /tmp/sets/lo-en-names 300

A user who types a name, a code or an identifier they saw (`Dana-Farber`, `CONCATENATE`,
`libreofficekit`) wants the one page that holds it. For `count` documents (chosen by a hash
of their id, so the set is the same on every run), the query is a word of the page's body
that no other page holds (case-folded), at least five characters, written as a name or a
code is (mixed case, a digit, `-` or `_`; mixed case first, then the longest); relevant = that
page. The
corpus is the set's own (linked, not copied), so an index eval.py keeps for the set serves
this one when copied under the new set's name.
"""
import hashlib
import json
import os
import re
import sys
from collections import Counter

_WORD = re.compile(r"[^\W_](?:[\w-]*[^\W_])?")


def words(text):
    return {w for w in _WORD.findall(text) if len(w) >= 5 and any(c.isalpha() for c in w) and not w.isdigit()}


def name_like(word):
    """Written as a name or a code is: mixed or upper case past its first letter, or with a digit, `-` or `_`."""
    return (word != word.lower() and word != word.capitalize()) or any(c.isdigit() or c in "-_" for c in word)


def salience(word):
    """Sort key: mixed case before codes with digits or joiners, longer before shorter."""
    mixed = word != word.lower() and word != word.capitalize()
    return (not mixed, -len(word), word)


def main(source, out, count=300):
    with open(os.path.join(source, "corpus.jsonl"), encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f if line.strip()]
    df = Counter()
    body_words = {}
    for doc in corpus:
        own = words(doc.get("text", ""))
        body_words[doc["_id"]] = own
        df.update({w.casefold() for w in own | words(doc.get("title", ""))})
    chosen = []
    for doc in sorted(corpus, key=lambda d: hashlib.sha256(d["_id"].encode()).hexdigest()):
        unique = sorted((w for w in body_words[doc["_id"]] if df[w.casefold()] == 1 and name_like(w)), key=salience)
        if unique:
            chosen.append((doc["_id"], unique[0]))
        if len(chosen) == count:
            break
    os.makedirs(os.path.join(out, "qrels"), exist_ok=True)
    corpus_link = os.path.join(out, "corpus.jsonl")
    if not os.path.exists(corpus_link):
        os.symlink(os.path.abspath(os.path.join(source, "corpus.jsonl")), corpus_link)
    with open(os.path.join(out, "queries.jsonl"), "w", encoding="utf-8") as q, \
            open(os.path.join(out, "qrels", "test.tsv"), "w", encoding="utf-8") as r:
        r.write("query-id\tcorpus-id\tscore\n")
        for n, (doc_id, word) in enumerate(chosen):
            q.write(json.dumps({"_id": f"n{n}", "text": word}, ensure_ascii=False) + "\n")
            r.write(f"n{n}\t{doc_id}\t1\n")
    print(f"{out}: {len(chosen)} queries", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 300)
