"""A Doxygen page's code example reads as the listing it shows: one fenced block, its lines and
their indentation kept.

Doxygen (1.9) writes an example as `<div class="fragment">` holding a `<div class="line">` per
line, CSS keeping the spaces. Read as blocks, each line became a paragraph of its own: the
comment lines of the Python example in Doxygen's own manual (docblocks.html, Debian's doxygen-doc)
read `\\## @package pyexample` (a `#` opening a paragraph is escaped, or it would be a heading),
and `    pass` lost the indentation that makes it Python. 221 such listings are on nine pages of the
manual.
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

PAGE = """<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "https://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/xhtml;charset=UTF-8"/>
<meta name="generator" content="Doxygen 1.9.4"/>
<title>Doxygen: Documenting the code</title>
</head>
<body>
<div class="contents">
<div class="textblock"><p >Here is the same example again but now using doxygen style comments:</p>
<div class="fragment"><div class="line"><span class="comment">## @package pyexample</span></div>
<div class="line"><span class="comment">#  Documentation for this module.</span></div>
<div class="line"><span class="comment">#</span></div>
<div class="line"><span class="comment">#  More details.</span></div>
<div class="line"> </div>
<div class="line"><span class="comment">## Documentation for a function.</span></div>
<div class="line"><span class="comment">#</span></div>
<div class="line"><span class="comment">#  More details.</span></div>
<div class="line"><span class="keyword">def </span>func():</div>
<div class="line">    <span class="keywordflow">pass</span></div>
</div><!-- fragment --><p> Since python looks more like Java than like C or C++, you should set <a class="el" href="config.html#cfg_optimize_output_java">OPTIMIZE_OUTPUT_JAVA</a> to <code>YES</code> in the configuration file.</p>
</div></div>
</body>
</html>
"""


def test_a_doxygen_fragment_is_one_listing_with_its_indentation():
    markdown = convert_document(PAGE.encode(), ".html", "docblocks.html").markdown
    assert ("```\n## @package pyexample\n#  Documentation for this module.\n#\n#  More details.\n\n"
            "## Documentation for a function.\n#\n#  More details.\ndef func():\n    pass\n```") in markdown
    assert "\\#" not in markdown
    assert "Since python looks more like Java" in markdown


def test_a_fragment_on_another_generators_page_is_read_as_before():
    other = PAGE.replace('<meta name="generator" content="Doxygen 1.9.4"/>', "")
    markdown = convert_document(other.encode(), ".html", "docblocks.html").markdown
    assert "```\n## @package" not in markdown
