"""reStructuredText reads as its built page does: titles are sections, code is fenced, markup goes."""

from pathlib import Path

import pytest
from helpers.growth import grows_linearly
from markdown_it import MarkdownIt

from minirag.chunking import chunk_document
from minirag.ingest.convert import SUPPORTED_EXTENSIONS, convert_document, convert_file
from minirag.ingest.rst_text import rst_to_markdown

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


def headings(markdown: str) -> list[str]:
    return [line for line in markdown.split("\n") if line.startswith("#")]


def fences(markdown: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(markdown) if t.type == "fence"]


def test_a_sphinx_page_keeps_its_sections_signatures_notes_and_examples_and_loses_its_markup():
    markdown = convert_file(FIXTURES / "rst_crcmod_sphinx.rst").markdown
    assert headings(markdown)[:3] == ["# `crcmod` -- CRC calculation", "## `mkCrcFun` -- CRC function factory",
                                      "### Examples"]
    assert "`mkCrcFun(poly[, initCrc, rev, xorOut])`\n\nFunction factory that returns" in markdown
    assert "Note: This documentation normally shows Python 2.x usage." in markdown  # the note's first line
    assert "a function factory `mkCrcFun` and a class `Crc`" in markdown
    assert ">>> crc32_func = crcmod.mkCrcFun(0x104c11db7, initCrc=0, xorOut=0xFFFFFFFF)" in fences(markdown)[1]
    for markup in (".. ", ":func:", ":class:", "moduleauthor", "Raymond L Buvel", ":synopsis:"):
        assert markup not in markdown
    chunks = chunk_document(markdown, title="crcmod", count_tokens=lambda t: len(t.split()), budget=120).chunks
    assert any(c.text.startswith("crcmod > `crcmod` -- CRC calculation > `mkCrcFun` -- CRC function factory")
               for c in chunks)


def test_python_docs_literal_blocks_and_roles():
    markdown = convert_file(FIXTURES / "rst_python_email_architecture.rst").markdown
    assert headings(markdown)[:3] == ["# `email` Package Architecture", "## Overview", "## The Model"]
    assert "default RFC 5322 email message policy" in markdown
    assert all(not line.rstrip().endswith("::") for line in markdown.split("\n"))
    assert "`cte_type=7bit`" in markdown and "``" not in markdown.replace("```", "")


@pytest.mark.parametrize(("source", "expected"), [
    ("Title\n=====\n\nText.\n\nSub\n---\n\nMore.\n\nAgain\n=====\n", "# Title\n\nText.\n\n## Sub\n\nMore.\n\n# Again\n"),
    ("=====\nOver\n=====\n\nSection\n=======\n", "# Over\n\n## Section\n"),
    ("Run this::\n\n    pip install x\n    # comment\n\nDone.\n",
     "Run this:\n\n```\npip install x\n# comment\n```\n\nDone.\n"),
    ("Expanded form: ::\n\n    code\n", "Expanded form:\n\n```\ncode\n```\n"),
    (".. code-block:: python\n   :linenos:\n\n   print(1)\n", "```python\nprint(1)\n```\n"),
    (">>> 1 + 1\n2\n", "```pycon\n>>> 1 + 1\n2\n```\n"),
    (".. warning:: Back up first.\n   Really.\n", "Warning: Back up first.\nReally.\n"),
    (".. versionadded:: 3.2\n   The ``fast`` flag.\n", "New in version 3.2: The `fast` flag.\n"),
    (".. toctree::\n   :maxdepth: 2\n\n   install\n   usage\n\nAfter.\n", "After.\n"),
    (".. _target:\n\n.. This is a comment\n   on two lines.\n\n.. |sub| replace:: text\n\nKept.\n", "Kept.\n"),
    (".. image:: logo.png\n   :alt: The logo\n", "The logo\n"),
    ("See `the site <https://example.org>`_, `Ref`_ and :doc:`the guide <guide>`.\n",
     "See [the site](https://example.org), Ref and the guide.\n"),
    ("Call :py:meth:`~pkg.Thing.run` or ``run()``; see :pep:`8`.\n", "Call `pkg.Thing.run` or `run()`; see PEP 8.\n"),
    ("# not a heading\n", "\\# not a heading\n"),
    (":orphan:\n:tocdepth: 2\n\nMoved\n=====\n\n:author: Ann\n", "# Moved\n\n:author: Ann\n"),
    ("Term\n   Its definition.\n\n   .. note:: Nested.\n", "Term\nIts definition.\n\nNote: Nested.\n"),
    (":Build status:\n  .. image:: https://ci.example/badge.svg\n     :target: https://ci.example\n:License: MIT\n",
     ":Build status:\n\n:License: MIT\n"),
])
def test_each_construct(source, expected):
    assert rst_to_markdown(source) == expected


def test_rst_is_a_document_type_read_as_its_text_is_decoded():
    assert ".rst" in SUPPORTED_EXTENSIONS
    utf16 = "Überschrift\n===========\n\nText.\n".encode("utf-16")
    assert convert_document(utf16, ".rst", "a.rst").markdown == "# Überschrift\n\nText.\n"


def test_a_substitution_reads_as_its_definition_gives_it():
    source = (".. |product| replace:: Acme Widget\n   Pro\n.. |copy| unicode:: 0xA9 .. the sign\n"
              ".. |logo| image:: logo.png\n   :alt: Acme logo\n\n"
              "|logo| |Product| is |copy| 2024; see |product|_ and |nothing|, a|b|c.\n")
    assert rst_to_markdown(source) == "Acme logo Acme Widget Pro is © 2024; see Acme Widget Pro and |nothing|, a|b|c.\n"


@pytest.mark.parametrize("run", [".. x::\n   ", "  ", "a\n===\n\n", "`a `b` ", "``x ", ":a:`x ", ">>> x\n",
                                 "x::\n\n    y\n", "\n   :option: value", "\n", "|a", "|a| ", ".. |a| replace:: b\n"])
def test_a_long_document_of_one_construct_is_read_in_linear_time(run):
    head = ".. code-block:: text\n" if run.startswith("\n") else ""
    assert grows_linearly(rst_to_markdown, lambda repeats: head + run * repeats)


def test_directives_nested_past_any_sensible_depth_keep_their_text_and_never_recurse_without_end():
    deep = "".join(" " * (3 * level) + ".. note::\n\n" for level in range(200)) + " " * 600 + "deepest text\n"
    assert "deepest text" in rst_to_markdown(deep)  # no RecursionError: past 40 levels it is text


def test_a_substitution_in_literal_text_stays_as_written():
    source = (".. |product| replace:: MiniRAG\n\nUse |product|, not ``|product|``.\n\nRun::\n\n    echo |product|\n\n"
              ".. code-block:: sh\n\n   echo |product|\n\nAfter |product|.\n")
    assert rst_to_markdown(source) == ("Use MiniRAG, not `|product|`.\n\nRun:\n\n```\necho |product|\n```\n\n"
                                       "```sh\necho |product|\n```\n\nAfter MiniRAG.\n")


@pytest.mark.parametrize(("name", "text", "how"), [
    ("examples.rst", ":tocdepth: 2\n\n.. _examples:\n\n.. include:: ../EXAMPLES\n", ".. include::"),
    ("book.adoc", ":toc:\n\ninclude::chapter1.adoc[]\ninclude::chapter2.adoc[]\n", "include::"),
])
def test_a_page_that_only_includes_other_files_says_so_not_that_it_is_empty(name, text, how):
    """Sphinx's own docs: `examples.rst` is one `.. include:: ../EXAMPLES`, and its warning asked
    whether the file was `empty or only pictures?`."""
    converted = convert_document(text.encode(), Path(name).suffix, name)
    assert not converted.markdown.strip()
    assert converted.note.startswith(f"no text of its own: it only includes other files ({how})")
    assert convert_document(b"Some text.\n\n" + text.encode(), Path(name).suffix, name).note == ""
