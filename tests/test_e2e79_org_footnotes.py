"""An Org footnote reads where it is cited (` (its text)`, note_text.cited, the rule ODT, DOCX and
RTF notes follow), so a chunk holds the note with the sentence it explains; a note no sentence cites
stays where it is written. A piece of a course syllabus in Org (its `* Footnotes` section as Org
writes it, definitions on consecutive lines), and Org's inline notes (`[fn::text]`)."""

from helpers.growth import grows_linearly

from minirag.ingest.org_text import org_to_markdown

SYLLABUS = """* Audio Programming
   + Networking in SC.
     + Working locally (i.e., Pure Data[fn:4] and SC interaction).
     + Remote Server communication.

* Footnotes

[fn:4] https://puredata.info/

[fn:3] http://supercollider.github.io/
[fn:2] In connection with the MMD classes.
[fn:1] Using an environment that was developed in the AP class.
"""


def test_a_cited_footnote_reads_where_it_is_cited_an_uncited_one_where_it_stands():
    markdown, _ = org_to_markdown(SYLLABUS)
    assert markdown == (
        "# Audio Programming\n\n   + Networking in SC.\n"
        "     + Working locally (i.e., Pure Data (https://puredata.info/) and SC interaction).\n"
        "     + Remote Server communication.\n\n# Footnotes\n\n"
        "[fn:3] http://supercollider.github.io/\n[fn:2] In connection with the MMD classes.\n"
        "[fn:1] Using an environment that was developed in the AP class.\n")


def test_an_inline_footnote_and_a_named_one_read_in_place_with_their_links_and_code():
    text = ("Set =port=[fn::Default [[https://example.org/ports][8080]], see =--port=.] once.\n"
            "Logs go to syslog[fn:logs:Or ~journalctl -u minirag~.].\n"
            "A note never defined[fn:9] stays.\n")
    markdown, _ = org_to_markdown(text)
    assert markdown == ("Set `port` (Default [8080](https://example.org/ports), see `--port`.) once.\n"
                        "Logs go to syslog (Or `journalctl -u minirag`.).\nA note never defined[fn:9] stays.\n")


def test_many_unclosed_inline_notes_and_definitions_are_read_in_linear_time():
    assert grows_linearly(org_to_markdown, lambda repeats: "x[fn:a:[" * repeats + "\n")
    assert grows_linearly(org_to_markdown, lambda repeats: "".join(f"t[fn:{n}]\n" for n in range(repeats))
                          + "".join(f"[fn:{n}] note {n}\n" for n in range(repeats)))
