"""Headings a reader of a .txt file sees: an RFC's numbered section titles and README-style titles
underlined with `=` or `-` (minirag/ingest/text_headings.py), and nothing else. The pieces are cut
from real files: draft-hardaker-dnsop-nsec3-guidance-02, Debian's adduser README, GnuPG's NEWS,
util-linux's release-schedule.txt, valgrind's FAQ.txt."""

from __future__ import annotations

from conftest import write

from minirag.chunking.blocks import parse_heading
from minirag.ingest.convert import convert_document

DRAFT = """\
Internet-Draft                    title                    February 2021


1.  Introduction

   As with NSEC, NSEC3 [RFC5155] provides proof of non-existence.

2.  Parameter guidance

2.1.  Algorithms

   The algorithm field is not discussed by this document.

2.2.  Flags

   The flags field currently contains a single flag, that of the "Opt-
   Out" flag [RFC5155], which specifies whether or not NSEC3 records
   provide proof of non-existence or not.

2.4.  Salt

   Salts add yet another layer of protection against offline, stored
   dictionary attacks by using randomly generated values when creating
   new records.

3.  Security Considerations

   This entire document discusses security considerations with various
   parameters selections of NSEC3 and NSEC3PARAM fields.

Appendix A.  Acknowledgments

   dnssec-policy knowledge from Matthijs Mekking.
"""

README = """\
adduser in Debian
=================

The adduser package includes the adduser and deluser commands for
creating and removing users and groups.


Documentation
-------------
This document contains background information that you might find
helpful to understand some of the design decisions.

Configuration files
-------------------

adduser and deluser have configuration files, /etc/adduser.conf and
/etc/deluser.conf.
"""


def headings(name: str, text: str) -> list[tuple[int, str]]:
    markdown = convert_document(text.encode(), ".txt", name).markdown
    return [heading for line in markdown.split("\n") if (heading := parse_heading(line))]


def test_an_internet_drafts_numbered_section_titles_are_headings_by_their_depth():
    assert headings("draft-nsec3-guidance.txt", DRAFT) == [
        (2, "1. Introduction"), (2, "2. Parameter guidance"), (3, "2.1. Algorithms"), (3, "2.2. Flags"),
        (3, "2.4. Salt"), (2, "3. Security Considerations"), (2, "Appendix A. Acknowledgments")]


def test_a_long_numbered_title_wrapped_once_is_one_heading():
    """RFC 6749's 10.16, whose title runs on to a second line, indented."""
    text = DRAFT.replace("3.  Security Considerations\n", "3.  Misuse of Access Token to Impersonate Resource\n"
                         "    Owner in Implicit Flow\n")
    assert (2, "3. Misuse of Access Token to Impersonate Resource Owner in Implicit Flow") in headings("d.txt", text)


def test_a_readmes_underlined_titles_are_headings_and_their_underlines_go():
    markdown = convert_document(README.encode(), ".txt", "README.txt").markdown
    assert [parse_heading(line) for line in markdown.split("\n") if line.startswith("#")] == [
        (2, "adduser in Debian"), (3, "Documentation"), (3, "Configuration files")]
    assert "===" not in markdown and "---" not in markdown
    assert markdown.count("\n") == README.count("\n")  # every line stays a line (page numbers, positions)


def test_a_house_style_underline_shorter_than_its_titles_is_still_one():
    """GnuPG's NEWS underlines every release with the same short row of dashes."""
    text = "".join(f"Noteworthy changes in version 2.2.{n} (2019-0{n}-01)  [C{n}/A0/R0]\n"
                   f"-------------------------------------------------\n\n * Fixed a thing.\n\n"
                   for n in (3, 2, 1))
    assert [title for _, title in headings("NEWS.txt", text)] == [
        f"Noteworthy changes in version 2.2.{n} (2019-0{n}-01)  [C{n}/A0/R0]" for n in (3, 2, 1)]


def test_a_numbered_list_stays_text():
    close = "Getting started\n\n1. Install the package\n2. Run the setup\n3. Start the server\n4. Open the page\n"
    spaced = ("Getting started\n\n1. Install the package\n\nIt ships a service file.\n\n"
              "2. Run the setup\n\nIt asks for a port.\n\n3. Start the server\n\nIt listens.\n")
    assert headings("a.txt", close) == []
    assert headings("b.txt", spaced) == []


def test_numbered_titles_need_rising_numbers_and_an_indented_body_in_the_file():
    two = DRAFT.split("2.1.  Algorithms")[0]
    assert headings("two.txt", two) == []  # two titles are no evidence
    flush = "\n".join(line.strip() for line in DRAFT.split("\n"))
    assert headings("flush.txt", flush) == []  # the body at column 0: a list, not an RFC's sections


def test_dashes_under_a_table_row_or_with_no_title_above_stay_text():
    table = ("Release schedule\n\n  what\t length\t\twhat will be accepted into upstream\n"
             "  ---------------------------------------------------------\n  rc1\t 1-2 weeks\tbug fixes only\n")
    rule = "The FAQ.\n\n------------------------------------------------------------------------\n\nMore.\n"
    wide = "Name       Size    Owner\n------------------------\nfoo        12      root\n"
    assert headings("table.txt", table) == []
    assert headings("rule.txt", rule) == []
    assert headings("wide.txt", "Files\n\n" + wide) == []


def test_a_parting_rule_under_a_sentence_stays_text():
    """valgrind's FAQ parts its answers with a 72-dash rule, once right under an answer's last line."""
    rule = "-" * 72
    text = (f"{rule}\n1. Background\n{rule}\n\n1.1. How do you pronounce it?\n\nLike grin.\n\n"
            f"Don't feel bad: almost everyone gets it wrong at first.\n{rule}\n\nThe end.\n\n{rule}\n")
    assert headings("FAQ.txt", text) == [(3, "1. Background")]


def test_frontmatter_closing_dashes_underline_no_title():
    text = "---\ntitle: Notes\n---\nIntro\n=====\n\nBody.\n"
    markdown = convert_document(text.encode(), ".txt", "n.txt").markdown
    assert markdown.startswith("---\ntitle: Notes\n---\n## Intro\n")


def test_a_hit_in_an_rfc_section_names_its_title(app, docs):
    from minirag.ingest.sync import run_sync
    from minirag.results import payload, query_text

    write(docs / "draft-nsec3-guidance.txt", DRAFT)
    run_sync(app.pipeline, list(app.config.roots))
    lines = query_text(payload(app.query("salts offline stored dictionary attacks", top_k=10))).splitlines()
    salt = next(at for at, line in enumerate(lines) if line.strip().startswith("Salts add"))
    assert lines[salt - 1].strip() == "draft-nsec3-guidance > 2. Parameter guidance > 2.4. Salt"
