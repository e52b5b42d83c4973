"""Check sets in languages ../shared/eval-data does not cover, from the translated manual pages
this machine has (/usr/share/man/LANG/man*/*.gz), in the shape of gnome-help-desc-*: a page's
one-line description is the query, the page without it is the one relevant document.

    uv run python scripts/man_desc_sets.py OUT [--min-pages 25] [LANG ...]

Writes OUT/man-desc-LANG/{corpus.jsonl, queries.jsonl, qrels/test.tsv} for every language
directory with at least --min-pages usable pages (or the ones named) and prints, per set, the
pages kept and the Snowball name to give scripts/bm25_baseline.py.

Each page is read by minirag's own converter (convert_file, which reads .gz roff). The NAME
section (the first `##` section, whatever the language calls it) gives the query: its text
after the first ` - ` / ` — ` / ` – `, i.e. the description without the command names. The
document is the page without its NAME section and without the `# name(1) — description`
heading the converter writes; its title is the command name (`apropos`), as the gnome sets'
title is the page's title. Left out: symlinks, pages that do not convert, pages without a
description, descriptions identical to the English page's (untranslated), and pages with the
same command name in another section already taken (man1 first). Pages that share one
description make one query with all of them relevant. Nothing here is tuned to the results.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from minirag.errors import ConversionFailed  # noqa: E402
from minirag.ingest.convert import convert_file  # noqa: E402

MAN = Path("/usr/share/man")
SNOWBALL = {"fr": "french", "de": "german", "sv": "swedish", "pt": "portuguese", "pt_BR": "portuguese",
            "nl": "dutch", "it": "italian", "ru": "russian", "pl": "polish", "da": "danish",
            "ro": "romanian", "es": "spanish", "tr": "turkish", "cs": "czech", "hu": "hungarian",
            "id": "indonesian", "sr": "serbian", "fi": "finnish", "nb": "norwegian"}
_DASH = re.compile(r"\s+(?:\\-|-|—|–|−)\s+")


def split_page(markdown: str) -> tuple[str, str] | None:
    """(description, document text) of a converted page, or None without a NAME description."""
    lines = markdown.splitlines()
    sections = [i for i, line in enumerate(lines) if line.startswith("## ")]
    if not sections:
        return None
    first = sections[0]
    end = sections[1] if len(sections) > 1 else len(lines)
    name = " ".join(line.strip() for line in lines[first + 1:end] if line.strip())
    parts = _DASH.split(name, maxsplit=1)
    if len(parts) != 2 or not parts[1].strip():
        return None
    body = [line for line in lines[:first] if not line.startswith("# ")] + lines[end:]
    return parts[1].strip(), "\n".join(body).strip()


def english_description(page: Path) -> str | None:
    english = MAN / page.parent.name / page.name
    try:
        split = split_page(convert_file(english).markdown) if english.is_file() else None
    except ConversionFailed:
        return None
    return split[0] if split else None


def build(lang: str) -> tuple[list[dict], dict[str, list[str]]]:
    docs: list[dict] = []
    by_description: dict[str, list[str]] = {}
    names: set[str] = set()
    for page in sorted((MAN / lang).glob("man*/*.gz")):
        command = page.name.removesuffix(".gz").rsplit(".", 1)[0]
        if page.is_symlink() or command in names:
            continue
        try:
            split = split_page(convert_file(page).markdown)
        except ConversionFailed:
            continue
        if split is None or not split[1] or split[0] == english_description(page):
            continue
        names.add(command)
        doc_id = f"{lang}/{page.parent.name}/{page.name.removesuffix('.gz')}"
        docs.append({"_id": doc_id, "title": command, "text": split[1]})
        by_description.setdefault(split[0], []).append(doc_id)
    return docs, by_description


def write(directory: Path, docs: list[dict], by_description: dict[str, list[str]]) -> None:
    (directory / "qrels").mkdir(parents=True, exist_ok=True)
    with open(directory / "corpus.jsonl", "w", encoding="utf-8") as out:
        out.writelines(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs)
    queries = [(f"q{ids[0]}", description, ids) for description, ids in by_description.items()]
    with open(directory / "queries.jsonl", "w", encoding="utf-8") as out:
        out.writelines(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n" for qid, text, _ in queries)
    with open(directory / "qrels" / "test.tsv", "w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        out.writelines(f"{qid}\t{doc_id}\t1\n" for qid, _, ids in queries for doc_id in ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("langs", nargs="*", help="language directories (default: every one under /usr/share/man)")
    parser.add_argument("--min-pages", type=int, default=25)
    args = parser.parse_args()
    langs = args.langs or sorted(d.name for d in MAN.iterdir() if d.is_dir() and not d.name.startswith("man"))
    for lang in langs:
        docs, by_description = build(lang)
        if len(docs) < args.min_pages:
            print(f"{lang}: {len(docs)} pages, left out", file=sys.stderr)
            continue
        write(args.out / f"man-desc-{lang}", docs, by_description)
        print(f"man-desc-{lang}\t{len(docs)} pages\t{len(by_description)} queries\t--language {SNOWBALL.get(lang, 'none')}")


if __name__ == "__main__":
    main()
