"""A SiSU page's command examples read as listings and its numbered sub-headings as headings.

SiSU (the live-manual's HTML in Debian's live-manual-html) writes an example as
`<p class="code">`, a `<br>` ending each line and no-break spaces indenting a continued one, and a
chapter's sections on its own page as `<p class="bold">` holding the section's `h8.1.4` anchor.
Read as paragraphs, a root prompt's `# apt-get install …` read `\\# apt-get …` (50 on the English
one-page manual), a continued option lost its indentation, and "8.1.4 Distribution mirrors used
at run time" was a line of text: no section of the page was under its heading (266 such headings
on the English pages).
"""

from __future__ import annotations

from minirag.ingest.convert import convert_document

HEAD = """<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>
    customizing-package-installation -
    Live Systems Manual
  </title>
  <meta name="generator" content="SiSU 7.2.1_pre_rel of 2019w35/4 (2019-09-05) (n*x and Ruby!)" />
</head>
<body>
<div class="content0"><div class="substance">
  <label class="ocn"><a href="#370" class="lnkocn">370</a></label>
  <h1 class="norm" id="370"><a name="370"></a>
    8. Customizing package installation
  </h1>
</div><div class="substance">
  <label class="ocn"><a href="#372" class="lnkocn">372</a></label>
  <p class="bold" id="372"><a name="372"></a> <a id="hc8.1"></a>
    <a name="c8.1" ></a><a name="h8.1" ></a>8.1 Package sources
  </p>
</div><div class="substance">
  <label class="ocn"><a href="#384" class="lnkocn">384</a></label>
  <p class="code" id="384">
    $ lb config --mirror-bootstrap http://localhost/debian/ \\<br>
&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;--mirror-chroot-security http://localhost/debian-security/<br>
  </p>
</div><div class="substance">
  <label class="ocn"><a href="#386" class="lnkocn">386</a></label>
  <p class="bold" id="386"><a name="386"></a> <a id="hc8.1.4"></a>
    <a name="c8.1.4" ></a><a name="h8.1.4" ></a>8.1.4 Distribution mirrors used at run time
  </p>
</div><div class="substance">
  <label class="ocn"><a href="#387" class="lnkocn">387</a></label>
  <p class="i0" id="387">
    The <tt>--mirror-binary*</tt> options govern the distribution mirrors placed in the binary image.
  </p>
</div><div class="substance">
  <label class="ocn"><a href="#48" class="lnkocn">48</a></label>
  <p class="code" id="48">
    # apt-get install make po4a ruby ruby-nokogiri sisu-complete<br>
  </p>
</div><div class="substance">
  <label class="ocn"><a href="#49" class="lnkocn">49</a></label>
  <p class="bold" id="49"><b>Note:</b> a bold paragraph without a section's anchor</p>
</div></div>
</body>
</html>
"""


def test_sisu_code_paragraphs_are_listings_and_numbered_bold_ones_headings():
    markdown = convert_document(HEAD.encode(), ".html", "customizing-package-installation.en.html").markdown
    assert ("```\n$ lb config --mirror-bootstrap http://localhost/debian/ \\\n"
            "          --mirror-chroot-security http://localhost/debian-security/\n```") in markdown
    assert "```\n# apt-get install make po4a ruby ruby-nokogiri sisu-complete\n```" in markdown
    assert "\\#" not in markdown
    assert "384" not in markdown and "[48]" not in markdown  # each paragraph's number: the margin's
    assert "\n## 8.1 Package sources\n" in markdown
    assert "\n### 8.1.4 Distribution mirrors used at run time\n" in markdown
    assert "#" not in markdown.split("Note:")[0].rsplit("\n", 1)[-1]  # no section anchor: no heading


def test_a_sisu_epub_reads_the_same_though_its_pages_name_no_generator():
    # SiSU's EPUB pages (the Live Systems Manual's, tests/fixtures/docs) have no generator meta;
    # its paragraphs' margin numbers (`<label class="ocn">`) are SiSU's own markup.
    from conftest import FIXTURES

    from minirag.ingest.convert import convert_file

    markdown = convert_file(FIXTURES / "docs" / "epub_live_manual_en.epub").markdown
    assert "```\n# apt-get install make po4a ruby ruby-nokogiri sisu-complete\n```" in markdown
    assert "\\#" not in markdown
    assert "\n## 1.1 For the impatient\n" in markdown
