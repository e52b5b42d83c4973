"""A changelog's entries are its sections (minirag/ingest/changelog_entries.py): an agent asking
"what changed in 1.2-3" gets that entry's chunk, titled with its version, its closing
` -- Name <mail>  date` trailer with it, not opening the next entry's chunk. The changelogs are
written here in the shapes of Debian's `changelog.Debian.gz` and GNU's `ChangeLog`."""

from __future__ import annotations

import gzip

from conftest import write

from minirag.chunking.blocks import parse_heading
from minirag.ingest.convert import convert_document
from minirag.results import payload

DEBIAN = """\
heronry (1.2-3) unstable; urgency=medium

  * Count the grey herons nesting on the island separately.
  * Drop the old kingfisher survey script (Closes: #1001).

 -- Ada Wader <ada@example.org>  Mon, 01 Jan 2024 10:00:00 +0100

heronry (1.2-2) unstable; urgency=low

  * Rebuild the egret tables against the new gull census.

 -- Ada Wader <ada@example.org>  Sun, 03 Dec 2023 09:30:00 +0100

heronry (1.2-1) experimental; urgency=low

  * New upstream release with a spoonbill importer.

 -- Bo Stilt <bo@example.org>  Fri, 01 Sep 2023 08:00:00 +0200
"""

GNU = """\
2024-01-31  Ada Wader  <ada@example.org>

\t* src/nest.c (count_nests): Count the avocets on the shingle bank.
\t* src/nest.h: Declare it.

2023-11-02  Bo Stilt  <bo@example.org>

\t* src/flock.c (merge_flocks): Merge the curlew flocks by roost.

2023-10-15  Ada Wader  <ada@example.org>

\t* configure.ac: Look for the plover library.
"""

README = """\
heronry
=======

Counts the birds of a heronry. The Debian package is heronry (1.2-3) unstable; urgency=medium
and reads the counts of each season.

2024-01-31  the first count of the year.

Install it with `apt install heronry`.
"""


def _hit(app, query: str, word: str) -> dict:
    hits = payload(app.query(query, top_k=10))["results"]
    return next(hit for hit in hits if word in hit["text"])


def test_each_debian_entry_is_a_section_named_by_its_version_its_trailer_with_it(docs, make_app):
    (docs / "heronry").mkdir()
    (docs / "heronry" / "changelog.Debian.gz").write_bytes(gzip.compress(DEBIAN.encode()))
    app = make_app()
    app.sync()
    hit = _hit(app, "grey herons nesting island", "grey herons")
    breadcrumb, _, body = hit["text"].partition("\n")
    assert "heronry (1.2-3) unstable; urgency=medium" in breadcrumb
    assert " -- Ada Wader <ada@example.org>  Mon, 01 Jan 2024 10:00:00 +0100" in body  # its trailer, with it
    assert "egret" not in body and "(1.2-2)" not in body  # not the next entry
    older = _hit(app, "egret tables gull census", "egret tables")
    breadcrumb, _, body = older["text"].partition("\n")
    assert "heronry (1.2-2)" in breadcrumb and "Sun, 03 Dec 2023" in body
    assert not body.lstrip().startswith("--") and "grey herons" not in body


def test_each_gnu_changelog_entry_is_a_section_named_by_its_date_and_author(docs, make_app):
    write(docs / "ChangeLog", GNU)
    app = make_app()
    app.sync()
    hit = _hit(app, "curlew flocks roost", "curlew")
    breadcrumb, _, body = hit["text"].partition("\n")
    assert "2023-11-02 Bo Stilt <bo@example.org>" in breadcrumb
    assert "avocets" not in body and "plover" not in body


def test_the_entry_lines_are_level_2_headings_and_every_other_line_stays():
    markdown = convert_document(DEBIAN.encode(), ".txt", "changelog").markdown
    headings = [heading for line in markdown.split("\n") if (heading := parse_heading(line))]
    assert headings == [(2, "heronry (1.2-3) unstable; urgency=medium"), (2, "heronry (1.2-2) unstable; urgency=low"),
                        (2, "heronry (1.2-1) experimental; urgency=low")]
    assert markdown.replace("## ", "") == DEBIAN


def test_a_text_that_mentions_an_entry_line_once_is_unchanged():
    readme = convert_document(README.encode(), ".txt", "README").markdown
    assert "heronry (1.2-3)" in readme and "## heronry (1.2-3)" not in readme and "## 2024-01-31" not in readme
    one_entry = DEBIAN.split("\nheronry (1.2-2)")[0]
    assert convert_document(one_entry.encode(), ".txt", "notes").markdown == one_entry


def test_a_log_of_dated_lines_with_indented_traces_is_no_changelog():
    log = "".join(f"2024-01-31 12:00:0{n} ERROR heron counter failed\n    at count_nests (nest.c:4{n})\n"
                  for n in range(4))
    assert convert_document(log.encode(), ".txt", "run.log.txt").markdown == log
