"""Nested blocks whose class names sharing or cookies (a share bar in a share bar, thousands deep)
cost the page's size, not its size times their depth: each one's words are counted once for the
whole page, not by reading its subtree's text again."""

from __future__ import annotations

from helpers.growth import grows_linearly

from minirag.ingest.convert import convert_document


def _nested(count: int, name: str) -> str:
    # `count` // 4 levels (libxml2 keeps 2,048 at most) around `count` words
    depth = count // 4
    opening = f'<div class="{name}">' * depth
    return (f"<html><body><h1>Title</h1><p>Some words of text here.</p>{opening}"
            f"{'word ' * count}{'</div>' * depth}<p>The end.</p></body></html>")


def test_nested_share_classed_blocks_cost_linear_time():
    assert "word word" in convert_document(_nested(400, "share-links").encode(), ".html", "s.html").markdown
    assert grows_linearly(lambda html: convert_document(html.encode(), ".html", "s.html"),
                          lambda count: _nested(count, "share-links"))


def test_nested_consent_classed_blocks_cost_linear_time():
    assert "word word" in convert_document(_nested(400, "cookie-consent").encode(), ".html", "c.html").markdown
    assert grows_linearly(lambda html: convert_document(html.encode(), ".html", "c.html"),
                          lambda count: _nested(count, "cookie-consent"))
