"""An AsciiDoc file's two-line section titles (a title over a line of `=`, `-`, `~`, `^` or `+`)
are its headings, as Asciidoctor renders them.

git's manual pages (Documentation/*.txt, `.adoc` since git 2.49; these lines are git 2.39's
git-cherry-pick.txt from Debian's git-doc) title every section so: `NAME` over `----`. Only the
one-line form (`== NAME`) was read, so the document title's `====` opened an example block and
`NAME`'s `----` a listing block that ran to the next such line: git-cherry-pick's whole page read
as one code block without a heading, and its 8 pages' question hits had no section to cite.
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

PAGE = """git-cherry-pick(1)
==================

NAME
----
git-cherry-pick - Apply the changes introduced by some existing commits

SYNOPSIS
--------
[verse]
'git cherry-pick' [--edit] [-n] [-m <parent-number>] [-s] [-x] [--ff]
\t\t  [-S[<keyid>]] <commit>...
'git cherry-pick' (--continue | --skip | --abort | --quit)

DESCRIPTION
-----------

Given one or more existing commits, apply the change each one
introduces, recording a new commit for each.

EXAMPLES
--------
`git cherry-pick master`::

\tApply the change introduced by the commit at the tip of the
\tmaster branch and create a new commit with this change.

Advanced usage
~~~~~~~~~~~~~~

----
$ git cherry-pick -n master~1 next
----
"""


def test_two_line_titles_are_headings_and_open_no_block():
    markdown = convert_document(PAGE.encode(), ".adoc", "git-cherry-pick.adoc").markdown
    assert markdown.startswith("# git-cherry-pick(1)\n\n## NAME\n\ngit-cherry-pick - Apply the changes")
    assert "\n## SYNOPSIS\n" in markdown
    assert "\n## DESCRIPTION\n\nGiven one or more existing commits" in markdown
    assert "\n### Advanced usage\n\n```\n$ git cherry-pick -n master~1 next\n```" in markdown
    assert markdown.count("```") == 2  # the one listing block, and no other
