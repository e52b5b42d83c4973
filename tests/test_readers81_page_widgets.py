"""A web page's widgets are the site's, not the text: a skip link ("Skip to main content"), a share bar
("Share on Facebook", an AddToAny or Jetpack row, a "Copy link" button) and a cookie banner read as
text in the middle of an article, or above its title. They are told by the page's structure and
markup (a link to the page's own content before its title, a block of links that hand the page's
address to another site, `share` and `cookie` in an element's class or id, a clipboard button), not
by their words. The pages (tests/fixtures/readers81/) are written by hand after the markup of
WordPress with Jetpack and the GDPR Cookie Consent plugin, GOV.UK, and Drupal with AddToAny and OneTrust."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document

PAGES = Path(__file__).parent / "fixtures" / "readers81"
WIDGET_WORDS = ("Skip to", "Share", "Twitter", "Facebook", "LinkedIn", "Copy link", "cookies", "Cookie",
                "ACCEPT", "addtoany", "?share=")


@pytest.fixture
def pages(app, docs):
    for page in PAGES.glob("*.html"):
        shutil.copy(page, docs / page.name)
    app.sync()
    return {page.name: app.read(str(docs / page.name)).text for page in PAGES.glob("*.html")}


def test_skip_links_share_bars_and_cookie_banners_are_no_part_of_a_pages_text(pages):
    blog, service, news = pages["blog-post.html"], pages["service-page.html"], pages["news-article.html"]
    assert blog == ("# How we cut our build times in half\n\nOur monorepo build used to take forty minutes on "
                    "every pull request. We moved the dependency cache onto local disks and split the test shards "
                    "by their measured duration.\n\nThe result was a build that finishes in under twenty minutes "
                    "for most changes.")
    assert service == ("# Apply for a fishing licence\n\nYou need a rod fishing licence to fish for salmon, trout, "
                       "freshwater fish, smelt or eel with a rod and line in England.\n\nLicences run for 12 months "
                       "from the day you buy them.")
    assert news.startswith("# City council approves new cycle lanes\n\nThe council voted seven to two")
    assert news.endswith("the plan keeps loading bays on both streets.")
    for text in pages.values():
        assert not [word for word in WIDGET_WORDS if word in text]


def test_a_link_list_that_shares_nothing_and_a_sentence_about_cookies_stay():
    page = b"""<html><body><h1>Baking for a crowd</h1>
    <p>Skip to the recipe below if you know the story. These cookies keep for a week in a tin.</p>
    <div class="cookie-recipe"><h2>Oat cookies</h2><p>Mix the oats, butter and sugar, then bake for twelve
    minutes.</p><button class="print">Print</button></div>
    <div class="related"><a href="/bread">Bread</a> <a href="/cakes">Cakes</a> <a href="/pies">Pies</a></div>
    <p>Ask us <a href="https://www.facebook.com/groups/bakers">on Facebook</a> about anything.</p>
    </body></html>"""
    markdown = convert_document(page, ".html", "bake.html").markdown
    assert "Skip to the recipe below" in markdown and "These cookies keep" in markdown
    # an id is often a heading's words (rustdoc's and mdBook's): `skip` or `share` in one names no widget
    options = convert_document(b"""<html><body><h1>Test options</h1><p>Filters pick the tests to run.</p>
    <h4 id="--skip-filter"><a class="header" href="#--skip-filter"><code>--skip</code> FILTER</a></h4>
    <p>Skips the tests whose names match.</p><section id="method.share"><h4>share</h4>
    <p>See <a href="#a">Arc</a> and <a href="#b">Rc</a>.</p></section></body></html>""", ".html", "o.html").markdown
    assert "#### [`--skip` FILTER](#--skip-filter)" in options and "See [Arc](#a) and [Rc](#b)." in options
    assert "## Oat cookies" in markdown and "bake for twelve" in markdown
    assert "[on Facebook](https://www.facebook.com/groups/bakers)" in markdown


def test_a_page_of_many_blocks_named_for_cookies_costs_its_size_not_its_size_squared():
    # A recipe site's cards (`cookie-card`, each with a button) stand where a banner may: asking of each
    # whether any text follows it listed every text node after it, and 4,000 cards took 15 s.
    def page(size: int) -> str:
        cards = "".join(f'<div class="cookie-card"><p>Recipe {at}</p><button>Save</button></div>'
                        for at in range(size // 4))
        return f"<html><body><h1>Recipes</h1><p>Our bakes.</p>{cards}<p>The end.</p></body></html>"

    assert "Recipe 249" in convert_document(page(1_000).encode(), ".html", "r.html").markdown
    assert grows_linearly(lambda html: convert_document(html.encode(), ".html", "r.html"), page)


def test_a_cookie_named_block_with_text_after_a_comment_below_it_stays():
    # The text after it stands in a comment's tail: it follows the block as any text does.
    page = b"""<html><body><h1>Oat cookies</h1><p>Our bakes.</p>
    <div class="cookie-card"><p>Bake for twelve minutes.</p><button>Save</button></div><!-- card end -->
    Serve them warm.</body></html>"""
    markdown = convert_document(page, ".html", "c.html").markdown
    assert "Bake for twelve minutes." in markdown and "Serve them warm." in markdown
