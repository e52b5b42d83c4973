"""Markdown links as retrieval text: in-page anchors and permalinks reduced to their text, and the
keyword side reading a link as its text alone, brackets in that text included (a Sphinx footnote)."""

import pytest
from conftest import write
from helpers.growth import grows_linearly

from minirag.chunking.link_pages import LINK_PAGE_LINES, LINK_PAGE_SHARE, site_links
from minirag.chunking.links import link_texts, simplify_links
from minirag.ingest.convert import convert_document
from minirag.keywords import keyword_texts

_PAGE = ('<html><head><title>Footnotes</title></head><body><div class="body"><h1>Walking trees</h1>\n'
         '<p>The walker follows symlinks <a class="footnote-reference" href="#id3">[2]</a> and calls '
         '<a href="library/os.html#os.walk">[1]</a> once per folder.</p></div></body></html>\n')


def _converted(tmp_path) -> str:
    page = write(tmp_path / "site" / "walk.html", _PAGE)
    return convert_document(page.read_bytes(), ".html", page.name).markdown


def test_a_link_whose_text_holds_brackets_is_read_as_a_link(tmp_path):
    markdown = _converted(tmp_path)
    assert "[[2]](#id3)" in markdown  # what the converter writes for Sphinx's footnote reference
    assert simplify_links(markdown).endswith(
        "The walker follows symlinks [2] and calls [[1]](library/os.html#os.walk) once per folder.")
    assert link_texts(markdown).endswith("The walker follows symlinks [2] and calls [1] once per folder.")


def test_the_keyword_text_of_a_bracketed_link_holds_no_words_of_its_address(tmp_path):
    (made,) = keyword_texts([simplify_links(_converted(tmp_path))], "Footnotes")
    assert "librari" not in made.body and "html" not in made.body and "walker" in made.body


def test_brackets_that_do_not_pair_are_no_link_text():
    for text in ("[[a](x)", "[a]](x)", "[[[a]]](x)"):
        assert link_texts(text) in (text, text.replace("[a](x)", "a"))


@pytest.mark.parametrize("run", ["[[a]", "[[a] ", "[ [a]", "[[a]](", "[[a]](#", "[a][b]", "![[a]](b"])
def test_long_runs_of_bracketed_link_text_are_read_in_linear_time(run):
    assert grows_linearly(lambda text: (simplify_links(text), link_texts(text), site_links(text)),
                          lambda repeats: "[x " + run * repeats)


# A generated index as html_markdown writes Sphinx's genindex: each entry names its pages.
_GENERATED_INDEX = """# Index – P

- [PYTHONDONTWRITEBYTECODE](using/cmdline.html#envvar-PYTHONDONTWRITEBYTECODE), [[1]](library/sys.html#index-7)
- pickle
  - [module](library/pickle.html#module-pickle)
  - [protocol](library/pickle.html#index-2), [[1]](library/pickle.html#index-5)
- [pow() (built-in function)](library/functions.html#pow)
"""


def _is_link_page(markdown: str) -> bool:
    links = site_links(markdown)
    return links.share >= LINK_PAGE_SHARE and links.line_share >= LINK_PAGE_LINES


def test_a_generated_index_is_links_to_the_sites_other_pages_line_after_line():
    links = site_links(_GENERATED_INDEX)
    assert links.share > 0.8 and links.line_share == 4 / 5  # `- pickle`, heading its entries, holds none
    assert _is_link_page(_GENERATED_INDEX)


@pytest.mark.parametrize("page", [
    # prose that links to other pages as it goes
    "# Writing bytecode\n\nSet [PYTHONDONTWRITEBYTECODE](using/cmdline.html#envvar) to stop Python writing "
    ".pyc files; [sys.dont_write_bytecode](library/sys.html) reads it at start-up, and the import system "
    "checks it before every write of a cached module.",
    # a list of links to other sites is content, not a map of this one
    "# Tools\n\n- [ruff](https://docs.astral.sh/ruff/)\n- [mypy](https://mypy.readthedocs.io/)\n"
    "- [uv](//github.com/astral-sh/uv)\n- [mail us](mailto:team@example.org)",
    # a page's own table of contents points inside the page
    "# Guide\n\n- [Install](#install)\n- [Use](#use)\n\n## Install\n\nRun the installer.\n\n## Use\n\nRun it.",
    # pictures are no links, whatever their alt text
    "# Gallery\n\n![Sunset over the harbour](img/sunset.jpg)\n\n![The old lighthouse at dawn](img/light.jpg)",
    # links inside fenced code are code
    "# Links\n\n```markdown\n[a](a.html) [b](b.html) [c](c.html) [d](d.html)\n```\n\nThe syntax above.",
    # javadoc's page of an interface: mostly the names of its implementations, on one long line among prose
    "# Interface EventListener\n\nA tagging interface that all event listener interfaces must extend.\n\n"
    "All Known Implementing Classes:\n\n" + ", ".join(f"[Listener{n}Proxy](../awt/Listener{n}Proxy.html)"
                                                     for n in range(40)) + "\n\nSince:\n\n1.1",
    "",
])
def test_prose_lists_of_other_sites_and_reference_pages_are_not_link_pages(page):
    assert not _is_link_page(page)


def test_every_script_counts_alike():
    # One link among as much prose, in Japanese (no spaces between words) as in English.
    assert site_links("[設定ファイルの書き方](config.html)\n\n設定ファイルは起動時に読み込まれます。").share == \
        pytest.approx(10 / 28)
