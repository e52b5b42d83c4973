"""A Markdown footnote reads where it is cited, as a DOCX, ODT or Org note does: `[^1]` was noise in
the sentence, and the notes stood at the file's end, in its last section, far from what they explain
(a note of a bare address read as a link reference: `docs[^1](https://…)`). The page is a piece of
a project's install guide as GitHub renders one, its notes written the ways GFM and Pandoc allow."""

from __future__ import annotations

from conftest import write
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document
from minirag.ingest.markdown_footnotes import read_footnotes

GUIDE = """\
# Installing Tessera

Run the installer as an administrator[^admin] and restart the service.[^Restart]
The package is signed [^1].

| Platform | Oldest supported    |
|----------|---------------------|
| Linux    | kernel 4.18[^older] |
| FreeBSD  | 13.2[^older]        |

## Upgrading

Stop the service before you upgrade; the database is migrated on the next start.

## Regular expressions

A filter such as `[^a-z]` or [^0-9] matches what the class leaves out.

```text
Footnote syntax: word[^1]
[^1]: a note
```

[^admin]: On Windows, right-click the installer and choose *Run as administrator*;
on Linux, run it with `sudo`.

    Non-interactive installs take the same rights.

[^restart]: https://tessera.example.org/docs/restart
[^1]: With the project's key, <https://tessera.example.org/key.asc>.
[^unused]: A note no sentence cites.
[^older]: Older versions may work; they are not tested.
"""


def test_a_cited_footnote_reads_after_its_citation_in_the_section_that_cites_it(app, docs):
    write(docs / "install.md", GUIDE)
    app.sync()
    text = app.read(str(docs / "install.md")).text
    assert ("Run the installer as an administrator (On Windows, right-click the installer and choose "
            "*Run as administrator*; on Linux, run it with `sudo`. Non-interactive installs take the same "
            "rights.) and restart the service. (https://tessera.example.org/docs/restart)\n"
            "The package is signed (With the project's key, <https://tessera.example.org/key.asc>.).") in text
    after = text.split("## Upgrading", 1)[1]
    assert "administrator" not in after and "tessera.example.org" not in after and "[^admin]" not in after
    # a class of a regular expression cites nothing, in a code span or not; code is left as written
    assert "A filter such as `[^a-z]` or [^0-9] matches" in text
    assert "```text\nFootnote syntax: word[^1]\n[^1]: a note\n```" in text
    # a note cited again and again (a table's rows) reads as its label there, and stays where it is
    # written, as one nothing cites does, a line of its own; nothing else is left of the notes
    assert "| Linux    | kernel 4.18[older] |\n| FreeBSD  | 13.2[older]        |" in text
    assert text.rstrip().endswith("```\n\n[unused] A note no sentence cites.\n"
                                  "[older] Older versions may work; they are not tested.")
    hits = app.query("right-click the installer Run as administrator", top_k=3).hits
    assert hits and "Run the installer as an administrator (On Windows" in hits[0].text


def test_markdown_without_footnote_definitions_reads_as_it_did():
    for text in (GUIDE.split("[^admin]:")[0], "A regex [^a-z]: then text.\n", "x [^1]\n\n    [^1]: code\n"):
        assert read_footnotes(text) == text
    assert convert_document(b"# T\n\nNo notes [^x] here.\n", ".md", "t.md").markdown == "# T\n\nNo notes [^x] here.\n"


def test_many_citations_and_definitions_are_read_in_linear_time():
    assert grows_linearly(read_footnotes, lambda n: "".join(f"t[^{i}] `[^{i}]`\n" for i in range(n))
                          + "".join(f"[^{i}]: note {i}\n" for i in range(n)))


def test_citations_side_by_side_on_one_line_cost_their_length_not_its_square():
    # Each note cited once looked at the character before its citation by joining all the line read so far.
    def text_of(size: int) -> str:
        return ("Sources" + "".join(f"[^{at}]" for at in range(size)) + ".\n\n"
                + "\n".join(f"[^{at}]: note {at}" for at in range(size)) + "\n")

    assert read_footnotes(text_of(2)) == "Sources (note 0) (note 1).\n"
    assert grows_linearly(read_footnotes, text_of)
