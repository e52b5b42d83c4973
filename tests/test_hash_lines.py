"""A plain text's line that starts with `#` but that Markdown would not read as a heading (`#include`,
`#!/bin/sh`, `#123`, `#######`) reads as it is written: the backslash that keeps a `# x` line from
becoming a heading (text_repair.escape_headings) is for those lines only."""

from __future__ import annotations

from conftest import write

LOG = """\
Changes since 1.2: the parser was rewritten.

#include <stdio.h> is no longer needed in the examples.
#!/bin/sh scripts now run under dash too.
#123 fixed: the importer crashed on an empty file.
####### end of the changes #######
# not a heading here, but it would be one in Markdown
#\tnor this one
"""


def test_only_lines_markdown_reads_as_headings_are_escaped(app, docs):
    write(docs / "changes.txt", LOG)
    app.sync()
    text = app.read(str(docs / "changes.txt")).text
    for line in ("#include <stdio.h> is no longer needed", "#!/bin/sh scripts now run", "#123 fixed: the importer",
                 "####### end of the changes #######"):
        assert f"\n{line}" in text, line
    assert "\\# not a heading here" in text
    assert "\\#\tnor this one" in text
    hits = app.query("importer crashed on an empty file").hits
    assert hits and "#123 fixed" in hits[0].text and "\\#123" not in hits[0].text
