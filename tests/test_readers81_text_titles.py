"""A plain text's title, as its reader sees one: its first line, set apart by a blank line, when that
line is plainly a title (`# Release notes`, or `Widget 2.0 Release Notes` in title case) is the
document's title and its heading, for a `.txt` file and for text given to ingest_data alike. It read
`\\# Release notes` (the escape that keeps a `#` line from being a heading showed in the text), and
the document had its file's name for a title, or none at all."""

from __future__ import annotations

from conftest import write

from minirag.ingest.convert import convert_document

RELEASE = """\
# Release notes

Version 2.4 adds a faster importer for CSV exports and fixes the crash when a
column name holds a semicolon.

# Known issues: none this time
"""

TITLED = """\
Widget 2.0 Release Notes

Version 2.0 drops support for Python 3.8 and makes the exporter stream its
output, so large projects export in constant memory.
"""


def test_a_txt_files_title_line_is_its_title_and_reads_as_it_is_written(app, docs):
    write(docs / "notes-2.4.txt", RELEASE)
    write(docs / "CHANGES.txt", TITLED)
    app.sync()
    release = app.read(str(docs / "notes-2.4.txt"))
    assert release.title == "Release notes"
    assert release.text.startswith("# Release notes\n\nVersion 2.4 adds a faster importer")
    assert "\\# Release" not in release.text
    assert "\\# Known issues: none this time" in release.text  # a later `#` line is no heading: text
    titled = app.read(str(docs / "CHANGES.txt"))
    assert titled.title == "Widget 2.0 Release Notes"
    assert titled.text.startswith("# Widget 2.0 Release Notes\n\nVersion 2.0 drops support")


def test_text_given_to_ingest_data_has_its_title_line_for_a_title(app):
    result = app.ingest_data("# Meeting notes 2026-03-02\n\nWe agreed to ship the importer on Friday.\n",
                             "meetings/2026-03-02", "text")
    assert result.title == "Meeting notes 2026-03-02"
    read = app.read("meetings/2026-03-02")
    assert read.text.startswith("# Meeting notes 2026-03-02\n\nWe agreed")
    assert app.ingest_data(TITLED, "changes", "text").title == "Widget 2.0 Release Notes"
    assert app.ingest_data("We agreed to ship on Friday.\n", "standup", "text").title == ""


def markdown(text: str) -> str:
    return convert_document(text.encode(), ".txt", "a.txt").markdown


def test_a_first_line_that_is_no_title_stays_text():
    for text in (
        "Getting started\n\n1. Install the package\n2. Run the setup\n",  # sentence case: a label, perhaps
        "Dear Customer Services,\n\nMy order has not arrived.\n",  # a letter's greeting
        "Alice Martin\n\nBob Stone\n\nCarol Diaz\n",  # a list of names, each line alike
        "Widget 2.0 Release Notes\nVersion 2.0 drops support.\n",  # no blank line: the paragraph's first line
        "Widget 2.0 Release Notes\n",  # nothing under it
        "#!/bin/sh\n\necho hello\n",
        "# -*- coding: utf-8 -*-\n\nimport os\n",
        "    Indented Title Line\n\nText under it.\n",
        "Copyright (c) 2014 Pallets\n\nRedistribution and use in source and binary forms are permitted.\n",
        "# Grammar for Python\n\n# Note: changing the grammar changes the parser.\nfile_input: stmt*\n",
        "# RUN: echo \\\n\nProgram code.\n",  # an LLVM lit test's shell line
    ):
        assert not markdown(text).startswith("# "), text


def test_an_underlined_title_keeps_its_level():
    assert markdown("adduser in Debian\n=================\n\nThe adduser package.\n").startswith(
        "## adduser in Debian\n")
