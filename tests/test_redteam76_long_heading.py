"""A heading line of megabytes (found by redteam76): the section cap kept every paragraph, table,
code block and word to UNIT_CAP characters, but a heading stayed whole, so one document's
heading made a parent section, the text a query returns with each hit, of megabytes (a 2 MB
heading: a query answer of 2,002,834 bytes)."""

from minirag.chunking.sections import UNIT_CAP
from minirag.results import payload


def test_a_heading_longer_than_any_section_makes_no_longer_section(app):
    heading = "# The glacier " + "moraine " * (UNIT_CAP // 3)  # 43,000 characters on one line
    app.ingest_data(heading + "\n\nThe glacier note ends here.\n", "notes/long-heading", fmt="markdown")
    answer = payload(app.query("glacier moraine", top_k=3))
    assert answer["results"] and answer["results"][0]["source"] == "notes/long-heading"
    assert max(len(text) for text in answer["parents"].values()) <= UNIT_CAP
    stored = app.index.conn.execute("SELECT max(length(text)), count(*) FROM parents").fetchone()
    assert stored[0] <= UNIT_CAP and stored[1] >= 3  # the heading in pieces, and the note after it
    assert "".join(app.read("notes/long-heading", max_chars=100_000, budgeted=False).text.split()) == \
        "".join((heading + "\n\nThe glacier note ends here.\n").split())  # nothing of it lost
