"""Org read as its exported page reads: headings for the chunker, no markup a reader never sees."""

import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.ingest.convert import SUPPORTED_EXTENSIONS, convert_document, sniff_format
from minirag.ingest.org_text import org_to_markdown

NOTES = """#+TITLE: Project Notes
#+OPTIONS: toc:nil

# a comment
* TODO [#A] Install the widget                                     :work:ops:
  SCHEDULED: <2026-01-02 Fri> DEADLINE: <2026-01-05 Mon>
  :PROPERTIES:
  :ID: abc-123
  :END:
Read [[https://example.com/guide][the guide]] and [[*Configuration][the config section]].

#+BEGIN_SRC python :results output
print("hi")
,* not a heading
#+END_SRC

** DONE Configuration
- port :: 8080
- [X] checked item

| Name | Value |
|------+-------|
| a    | 1     |

: fixed width line

#+begin_quote
To be or not.
#+end_quote

#+BEGIN_COMMENT
hidden
#+END_COMMENT
#+BEGIN_EXPORT html
<p>Some <b>HTML</b></p>
#+END_EXPORT
"""


def test_notes_read_as_their_exported_page():
    markdown, title = org_to_markdown(NOTES)
    assert title == "Project Notes"
    assert markdown == (
        "# Install the widget\n\nRead [the guide](https://example.com/guide) and the config section.\n\n"
        "```python\nprint(\"hi\")\n* not a heading\n```\n\n## Configuration\n\n- port: 8080\n- [X] checked item\n\n"
        "| Name | Value |\n|------|-------|\n| a    | 1     |\n\n```\nfixed width line\n```\n\n"
        "To be or not.\n\nSome HTML\n")


def test_an_org_file_is_a_document_titled_by_its_title_line():
    assert ".org" in SUPPORTED_EXTENSIONS
    converted = convert_document(NOTES.encode(), ".org", "notes.org")
    assert converted.metadata_title == "Project Notes"
    chunks = chunk_document(converted.markdown, title="Project Notes", count_tokens=lambda t: len(t.split()) + 2,
                            budget=60).chunks
    assert any(c.text.startswith("Project Notes > Install the widget > Configuration\n") for c in chunks)
    assert sniff_format(b"* A\n", "text/plain", "https://raw.example/notes.org") == ".org"


def test_an_unclosed_block_or_drawer_is_text():
    assert org_to_markdown("#+BEGIN_SRC sh\nls\n* Next\n")[0] == "ls\n\n# Next\n"
    assert org_to_markdown(":NOTES:\nkept\n* Heading\n:END:\n")[0] == ":NOTES:\nkept\n\n# Heading\n\n:END:\n"


def test_a_comment_heading_and_a_noexport_subtree_are_left_out_as_the_export_leaves_them():
    notes = ("* Plan\nShared text.\n** COMMENT Draft\nHalf a thought.\n*** Deeper draft\nMore.\n** Kept\nKept text.\n"
             "* TODO [#B] Private :me:noexport:\nMy notes.\n* COMMENTARY on the plan\nA heading's word.\n")
    assert org_to_markdown(notes)[0] == ("# Plan\n\nShared text.\n\n## Kept\n\nKept text.\n\n"
                                         "# COMMENTARY on the plan\n\nA heading's word.\n")


@pytest.mark.parametrize("run", ["#+BEGIN_SRC\n", ":DRAWER:\n", "[[a", "[[a][b", "* ", "|-+", "- a :: ", ": ",
                                 "** COMMENT a\n* b\n", "* a :noexport:\n** b\n"])
def test_long_runs_of_markup_are_read_in_linear_time(run):
    assert grows_linearly(lambda text: org_to_markdown(text), lambda repeats: run * repeats + "]]\n")
