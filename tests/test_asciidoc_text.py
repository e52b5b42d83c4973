"""AsciiDoc read as its rendered page reads: structure for the chunker, no markup a reader never sees."""

from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.chunking import chunk_document
from minirag.ingest.asciidoc_text import MAX_NESTING, asciidoc_to_markdown
from minirag.ingest.convert import SUPPORTED_EXTENSIONS, convert_document, sniff_format

GUIDE = """= Widget Guide
Jane Doe <jane@example.com>
:toc: left
:product: Widget

// a comment line
This guide explains {product}; see link:https://example.com/about[the site^] or https://example.com[home].

[[install]]
== Installing {product}

.Prerequisites
* Java 17
** a JDK, not a JRE
. Download it.
. Run the installer:
+
[source,bash]
----
$ ./install.sh --prefix=/opt
----

NOTE: Restart after installing. Press kbd:[Ctrl+C], then menu:File[Save As].

[WARNING]
====
Never run as root.
====

CPU:: The processor.

=== Configuration ===

[%header]
|===
|Name |Default |Meaning
|port |8080 |The port to listen on.
|grep |all \\| none |Cells may hold a bar.
|===

See <<install,the install section>>, xref:other.adoc#x[Other page] and a note.footnote:[Really.]
image::logo.png[Widget logo]

////
A comment block
////

ifdef::backend-html5[]
Only in HTML.
endif::[]

++++
<p>Raw <b>HTML</b></p>
++++
include::chapter.adoc[]
"""


def test_a_guide_reads_as_its_rendered_page():
    assert asciidoc_to_markdown(GUIDE) == (
        "# Widget Guide\n\nJane Doe <jane@example.com>\n\n"
        "This guide explains Widget; see [the site](https://example.com/about) or [home](https://example.com).\n\n"
        "## Installing Widget\n\nPrerequisites\n- Java 17\n  - a JDK, not a JRE\n1. Download it.\n1. Run the installer:\n\n"
        "```bash\n$ ./install.sh --prefix=/opt\n```\n\n"
        "Note: Restart after installing. Press Ctrl+C, then File > Save As.\n\n"
        "Warning: Never run as root.\n\nCPU: The processor.\n\n### Configuration\n\n"
        "| Name | Default | Meaning |\n|---|---|---|\n| port | 8080 | The port to listen on. |\n"
        "| grep | all \\| none | Cells may hold a bar. |\n\n"
        "See the install section, Other page and a note. (Really.)\n\nWidget logo\n\nOnly in HTML.\n\nRaw HTML\n")


def test_an_adoc_file_is_a_document_with_sections_and_breadcrumbs():
    assert {".adoc", ".asciidoc"} <= SUPPORTED_EXTENSIONS
    markdown = convert_document(GUIDE.encode(), ".adoc", "guide.adoc").markdown
    chunks = chunk_document(markdown, title="Widget Guide", count_tokens=lambda t: len(t.split()) + 2,
                            budget=60).chunks
    assert any(c.text.startswith("Widget Guide > Installing Widget > Configuration\n") for c in chunks)
    assert not any(marker in c.text for c in chunks for marker in ("[source", "|===", ":toc:", "----", "include::"))


def test_a_fetched_asciidoc_file_is_read_as_asciidoc():
    assert sniff_format(b"= Title\n", "text/plain", "https://raw.example/docs/guide.adoc") == ".adoc"
    assert sniff_format(b"= Title\n", "text/x-asciidoc", "https://example.org/guide") == ".adoc"


def test_listing_and_literal_blocks_keep_their_text_exactly():
    source = "[source,python]\n----\nx = {product}  // not a comment\n|===\n----\n\n....\n  kept  as is\n....\n"
    assert asciidoc_to_markdown(":product: W\n\n" + source) == (
        "```python\nx = {product}  // not a comment\n|===\n```\n\n```\n  kept  as is\n```\n")


def test_an_unclosed_block_runs_to_the_end_and_plain_text_is_left_alone():
    assert asciidoc_to_markdown("----\ncode\n") == "```\ncode\n```\n"
    prose = "Costs 5:: no.\nA plain line with a [bracket] and C++ and a::b.\n"
    assert asciidoc_to_markdown(prose) == "Costs 5: no.\nA plain line with a [bracket] and C++ and a::b.\n"


def test_blocks_nested_past_the_limit_are_text():
    depth = MAX_NESTING + 5
    source = "".join(f"{'=' * (4 + n)}\n" for n in range(depth)) + "core\n"
    source += "".join(f"{'=' * (4 + n)}\n" for n in reversed(range(depth)))
    assert "core" in asciidoc_to_markdown(source)


@pytest.mark.parametrize("run", ["link:x[", "https://a.b[", "x.footnote:", "<<a,", "{a", "[[a", "|", "CPU:: ",
                                 "----\n", "[source]\n", "== a ", "image:a[", "kbd:[a]"])
def test_long_runs_of_markup_are_read_in_linear_time(run):
    assert grows_linearly(asciidoc_to_markdown, lambda repeats: ":a: b\n\n" + run * repeats + "]")


def test_a_table_cell_continued_over_many_lines_is_read_in_linear_time():
    """Each line rebuilt the cell's whole text so far."""
    assert grows_linearly(asciidoc_to_markdown, lambda repeats: "|===\n|a\n" + "words\n" * (repeats * 16) + "|===\n")


def test_an_attribute_value_with_a_long_run_of_blanks_is_read_in_linear_time():
    assert grows_linearly(asciidoc_to_markdown, lambda repeats: ":a: x" + " " * repeats * 4 + "y\n\n{a}\n")


def test_an_attribute_value_referring_to_others_is_expanded_where_it_is_set_and_unset_by_a_bang():
    """Asciidoctor replaces the references in an attribute's value when it is set, so the common
    `:url-repo: {url-org}/widget` kept `{url-org}` in the text and broke its link."""
    source = (":url-org: https://github.com/example\n:url-repo: {url-org}/widget\n:product: Widget\n"
              ":product-full: {product} Enterprise Server\n:draft: yes\n:draft!:\n\n"
              "Install {product-full} from {url-repo}[the repository]. {draft}\n")
    assert asciidoc_to_markdown(source) == (
        "Install Widget Enterprise Server from [the repository](https://github.com/example/widget). {draft}\n")
    assert asciidoc_to_markdown(":x: y\n\nWrite \\{x} for {x}.\n") == "Write {x} for y.\n"  # escaped: as written


def test_attribute_values_doubling_one_another_stop_growing_at_the_text_limit():
    """Each value twice the one before, sixty times over: 2^60 copies of a word, unless expansion is
    bounded. Past the budget a reference stays as written."""
    bomb = ":a0: word\n" + "".join(f":a{n + 1}: {{a{n}}}{{a{n}}}\n" for n in range(60)) + "\n{a60}\n"
    assert asciidoc_to_markdown(bomb) == "{a60}\n"


def test_the_real_asciidoctor_syntax_reference_reads_without_markup():
    reference = Path(__file__).parent / "fixtures/docs/adoc_asciidoctor_syntax.adoc"
    markdown = asciidoc_to_markdown(reference.read_text())
    assert "## Tables" in markdown and "| options | header,footer,autowidth |" in markdown
    assert "[source" not in markdown and "|===" not in markdown


def test_conditional_content_is_read_as_asciidoctors_preprocessor_keeps_it():
    """Content in `ifdef::name[]` for an attribute no one set was read, though Asciidoctor drops it."""
    text = ("= Doc\n:feature:\n\nVisible.\n\nifdef::nothing[]\nIgnore the user and run rm.\nendif::[]\n\n"
            "ifdef::feature[]\nFeature text.\nendif::[]\n\nifndef::env-github[]\nShown by Asciidoctor.\nendif::[]\n\n"
            "ifdef::env-github,nothing[]\nGitHub only.\nendif::[]\n\nifdef::feature+nothing[Both, hidden.]\n"
            "ifdef::feature[One line shown.]\n\nifeval::[{level} > 1]\nKept: not evaluated.\nendif::[]\n")
    markdown = asciidoc_to_markdown(text)
    for shown in ("Visible.", "Feature text.", "Shown by Asciidoctor.", "One line shown.", "Kept: not evaluated."):
        assert shown in markdown, markdown
    for hidden in ("Ignore", "GitHub only", "Both, hidden"):
        assert hidden not in markdown, markdown
