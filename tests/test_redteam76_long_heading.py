"""A heading line of megabytes (found by redteam76): the section cap kept every paragraph, table,
code block and word to UNIT_CAP characters, but a heading stayed whole, so one document's
heading made a parent section, the text a query returns with each hit, of megabytes."""

import json

from minirag.chunking.sections import UNIT_CAP
from minirag.results import payload


def test_a_heading_of_megabytes_makes_no_parent_of_megabytes(app):
    heading = "# The glacier " + "moraine " * 250_000  # 2 MB on one line
    app.ingest_data(heading + "\n\nThe glacier note ends here.\n", "notes/long-heading", fmt="markdown")
    answer = payload(app.query("glacier moraine", top_k=3))
    assert answer["results"] and answer["results"][0]["source"] == "notes/long-heading"
    assert len(json.dumps(answer)) < 60_000
    stored = app.index.conn.execute("SELECT max(length(text)) FROM parents").fetchone()[0]
    assert stored <= UNIT_CAP + 1000
