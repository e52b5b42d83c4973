"""An rST anonymous hyperlink target (`__ url`, or `__` alone chaining to the target below it)
renders as nothing, as a named one (`.. _name: url`) does.

docutils' own primer (docs/user/rst/quickstart.txt, Debian's docutils-doc) opens with `__` over
two named targets: the `__` line and the targets under it were read as a paragraph of markup,
`__ .. _Quick reStructuredText: quickref.html .. _master quick reference: https://…`, in the
passage an agent gets for the primer's introduction.
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

PRIMER = """A ReStructuredText Primer
=========================

The text below contains links that look like "(quickref__)".  These
are relative links that point to the `Quick reStructuredText`_ user
reference.  If these links don't work, please refer to the `master
quick reference`_ document.

__
.. _Quick reStructuredText: quickref.html
.. _master quick reference:
   https://docutils.sourceforge.io/docs/user/rst/quickref.html

Structure
---------

From the outset, let me say that "Structured Text" is probably a bit
of a misnomer.

__ https://docutils.sourceforge.io/docs/user/rst/quickref.html

__init__ stays: a paragraph may start with a name.
"""


def test_anonymous_targets_render_as_nothing():
    markdown = convert_document(PRIMER.encode(), ".rst", "quickstart.rst").markdown
    assert "quick reference document.\n\n## Structure\n\nFrom the outset" in markdown
    assert "quickref.html" not in markdown and ".. _" not in markdown
    assert "misnomer.\n\n\\_\\_init\\_\\_ stays" in markdown or "misnomer.\n\n__init__ stays" in markdown
