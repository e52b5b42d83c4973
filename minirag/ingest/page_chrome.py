"""A page's main content, without its chrome, decided by the page's structure.

A reader of a documentation page sees its text; the menus, sidebars, breadcrumb
bars, prev/next links, "edit this page" links, search boxes, cookie banners and
footers around it are the site's, repeated on every page. Indexed, they took a
result slot and embedding time each (how many: docs/documents.md#html-pages-measured).

The rules read what HTML says about itself, never one generator's class names:

1. The main region: the `<main>` (or `role="main"`) element holding the most
   text, when the page marks one; else the whole body.
2. Landmarks that are not content go wherever they are: `<nav>`, the ARIA roles
   of navigation, banners, footers, search, complementary content, menus,
   toolbars and dialogs (cookie banners are dialogs, and a `<dialog>`), hidden elements (the `hidden`
   attribute, or an inline `display: none`, `visibility: hidden` or `content-visibility: hidden`), dropdowns
   (an element whose toggle has `aria-haspopup`), and `<footer>`. `<header>`, `<aside>` and `<address>` go when they belong to the
   page rather than to a `<main>` or `<article>` (docutils writes footnotes as
   `<aside>` inside the main region).
3. Prev/next bars: a short block whose links mostly carry the link relations
   or access keys of sequential navigation (`rel="prev"`, `accesskey="n"`), and a
   short block whose links go exactly where such a bar's do (the bar repeated below).
4. Links to an edit form (`/edit/`, `action=edit`) and what only framed them.
5. Without a marked main region, blocks of links to the site's own pages and
   little else (link text 90% of their words, three links or more, none leaving
   the site) before the page's first prose or after its last are navigation,
   unless the page would keep too little text without them (an index page is
   its links). A list of links elsewhere, or one between paragraphs, is content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement

_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary", "menubar", "menu",
                           "toolbar", "dialog", "alertdialog"})
_CHROME_TAGS = frozenset({"nav", "footer", "dialog"})
_PAGE_LEVEL = frozenset({"header", "aside", "address"})
# Elements a removed one may stand among in a line of text; any other one parted the text before it
# from the text after it.
_INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "button", "cite", "code", "data", "del", "dfn", "em", "font",
                     "i", "img", "input", "ins", "kbd", "label", "mark", "output", "q", "s", "samp", "select",
                     "small", "span", "strong", "sub", "sup", "textarea", "time", "u", "var", "wbr"})
# Alternatives a script reveals one of are a few (systems, applications): past this many children a
# parent is no switch, and each hidden child need not look at all the others.
MAX_ALTERNATIVES = 32
# A declaration of an inline style that hides its element (the last one wins in CSS; any one is taken).
_HIDING_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|(?:content-)?visibility\s*:\s*(?:hidden|collapse))"
                           r"\s*(?:!\s*important\s*)?(?:;|$)", re.IGNORECASE)
_SEQUENCE_RELS = frozenset({"prev", "previous", "next", "up", "home", "start", "first", "last", "index",
                            "contents", "top", "parent"})
_EDIT_HREF = re.compile(r"(?:/edit/|/_edit/|[?&]action=edit\b)")
_LINK_BLOCKS = ("ul", "ol", "table", "div", "dl", "p", "menu", "section")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_ALTERNATIVE_BLOCKS = ("div", "p", "ul", "ol", "dl", "table", "pre", *_HEADINGS)
_BAR_BLOCKS = ("div", "table", "p", "ul", "ol", "section", "span")
_WORD = re.compile(r"\w+")
# A prev/next bar holds the titles of its neighbours and little else.
MAX_BAR_WORDS = 60
# A link block is navigation when its links hold this share of its words.
LINK_SHARE = 0.9
MIN_LINKS = 3
# Text of this many words of an element's own is prose; a link block between prose is content.
MIN_PROSE_WORDS = 5
# Link blocks stay when dropping them would leave less than this share of the page's words.
MIN_KEPT_SHARE = 0.2


def main_content(root):
    """The element holding the page's content, its chrome removed (the tree is changed in place)."""
    body = root.find("body")
    top = body if body is not None else root
    mains = [el for el in top.iter("*") if _is_main(el)]
    region = max(mains, key=_word_count) if mains else None
    if region is not None and _word_count(region) == 0:
        region = None
    top = region if region is not None else top
    _drop_chrome(top)
    if region is None:
        _drop_banners(top)
        _drop_link_blocks(top)
    return top


def _is_main(el) -> bool:
    tag = el.tag if isinstance(el.tag, str) else ""
    return tag.lower() == "main" or (el.get("role") or "").strip().lower() == "main"


def _word_count(el) -> int:
    return len(_WORD.findall(el.text_content()))


def _drop(el) -> None:
    """Remove `el` and keep the text that follows it (its tail belongs to the parent)."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail:
        if not tail[0].isspace() and not (isinstance(el.tag, str) and el.tag.lower() in _INLINE):
            tail = " " + tail
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def _inside_content(el, top) -> bool:
    """Whether an element belongs to an article or the main region below the page level."""
    node = el.getparent()
    while node is not None and node is not top:
        if isinstance(node.tag, str) and (node.tag.lower() == "article" or _is_main(node)):
            return True
        node = node.getparent()
    return _is_main(top) or (isinstance(top.tag, str) and top.tag.lower() == "article")


def _is_chrome(el, top) -> bool:
    tag = el.tag.lower()
    if _landmark(tag, el.attrib):
        return True
    if hidden_by_markup(el.attrib):
        return not _shown_alternative(el)
    if _aria_hidden(el.attrib):
        return True
    if any(_opens_popup(child) for child in el if isinstance(child.tag, str)):
        return True  # a dropdown: its toggle and the menu it opens
    return tag in _PAGE_LEVEL and not _inside_content(el, top)


def left_out_by_markup(tag: str, attributes: Mapping[str, str | None]) -> bool:
    """Whether an element is chrome or hidden by its own tag and attributes, its neighbours unseen
    (markup read without a tree: html_markdown.py's flat reader)."""
    return _landmark(tag, attributes) or hidden_by_markup(attributes) or _aria_hidden(attributes)


def _landmark(tag: str, attributes: Mapping[str, str | None]) -> bool:
    return tag in _CHROME_TAGS or (attributes.get("role") or "").strip().lower() in _CHROME_ROLES


def _aria_hidden(attributes: Mapping[str, str | None]) -> bool:
    return "true" in ((attributes.get("aria-hidden") or "").lower(), (attributes.get("aria-modal") or "").lower())


def hidden_by_markup(attributes: Mapping[str, str | None]) -> bool:
    """Whether an element is hidden from a reader by its own markup: the `hidden` attribute, or an
    inline style of `display: none`, `visibility: hidden` or `content-visibility: hidden` (text a
    page hides that way is no reader's: an old page's collapsed part, or words put there for search
    engines or agents)."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style") or ""
    return _HIDING_STYLE.search(style) is not None


def _shown_alternative(el) -> bool:
    """Whether a hidden element is one of alternatives a script reveals one of, and one a reader is
    shown: LibreOffice's help hides every variant (`Command` on a Mac, `Ctrl` elsewhere; the shortcut
    keys of Writer, of Calc, ...) and shows the reader's, so 705 of its 2,561 pages lost the keys of
    their shortcuts (`press +Shift+PageDown`) or whole sections. Alternatives are two or more hidden
    siblings with nothing else in their parent: block ones (sections) are all read, and of inline
    ones (a word in a sentence) the last, the default."""
    parent = el.getparent()
    # (len() of an lxml element walks all its children: only as many as can be alternatives are counted)
    if parent is None or (parent.text or "").strip() or sum(1 for _ in islice(parent, MAX_ALTERNATIVES + 1)) \
            > MAX_ALTERNATIVES:
        return False
    siblings = [child for child in parent if isinstance(child.tag, str)]
    if len(siblings) < 2 or any(not hidden_by_markup(child.attrib) or (child.tail or "").strip() for child in siblings):
        return False
    if any(True for child in siblings for _ in child.iter(*_ALTERNATIVE_BLOCKS)):
        return True
    return el is siblings[-1]


def _opens_popup(el) -> bool:
    return (el.get("aria-haspopup") or "false").lower() != "false" and el.tag.lower() in ("input", "button", "a")


def _drop_chrome(top) -> None:
    doomed: list[HtmlElement] = []
    bars: list[frozenset[str]] = []  # the link targets of each prev/next bar
    for el in top.iter("*"):
        if el is top or not isinstance(el.tag, str):
            continue
        if any(el is d or _is_ancestor(d, el) for d in doomed[-1:]):
            continue
        if _is_sequence_bar(el):
            if any(_SEQUENCE_RELS & set((a.get("rel") or "").lower().split()) for a in el.iter("a")):
                bars.append(frozenset(_targets(el)))  # prev/next links; access keys alone mark menus too
            doomed.append(el)
        elif _is_chrome(el, top) or _is_edit_link(el):
            doomed.append(el)
    if bars:
        doomed.extend(_repeated_bars(top, bars, doomed))
    for el in doomed:
        parent = el.getparent()
        _drop(el)
        if parent is not None and parent is not top and _only_punctuation(parent):
            _drop(parent)  # MediaWiki's "[edit]": the brackets around a dropped link


def _is_ancestor(ancestor, el) -> bool:
    node = el.getparent()
    while node is not None:
        if node is ancestor:
            return True
        node = node.getparent()
    return False


def _only_punctuation(el) -> bool:
    return el.tag.lower() in ("span", "small") and not _WORD.search(el.text_content())


def _is_edit_link(el) -> bool:
    return el.tag.lower() == "a" and bool(_EDIT_HREF.search(el.get("href") or ""))


def _is_sequence_link(a) -> bool:
    rels = set((a.get("rel") or "").lower().split())
    return bool(rels & _SEQUENCE_RELS) or bool((a.get("accesskey") or "").strip())


def _is_sequence_bar(el) -> bool:
    if el.tag.lower() not in _BAR_BLOCKS:
        return False
    links = [a for a in el.iter("a") if a.get("href") is not None]
    if not links:
        return False
    sequence = sum(1 for a in links if _is_sequence_link(a))
    if sequence == 0 or sequence * 2 < len(links):
        return False
    if any(True for _ in el.iter("h1", "h2", "h3", "h4", "h5", "h6", "pre")):
        return False
    return _word_count(el) <= MAX_BAR_WORDS


def _targets(el) -> list[str]:
    return [a.get("href") for a in el.iter("a") if a.get("href") is not None]


def _repeated_bars(top, bars: list[frozenset[str]], doomed: list) -> list:
    """Short blocks whose two links or more lead exactly where one prev/next bar's do: the same bar
    repeated at the page's foot without the link relations (Texinfo writes them on the top one only)."""
    found: list[HtmlElement] = []
    for el in top.iter(*_BAR_BLOCKS):
        if el is top or any(el is d or _is_ancestor(d, el) or _is_ancestor(el, d) for d in (*doomed, *found)):
            continue
        targets = _targets(el)
        if (len(targets) >= 2 and frozenset(targets) in bars and _word_count(el) <= MAX_BAR_WORDS
                and not any(True for _ in el.iter(*_HEADINGS, "pre"))):
            found.append(el)
    return found


def _leaves_site(href: str) -> bool:
    return bool(re.match(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)", href.strip()))


def _drop_link_blocks(top) -> None:
    total = _word_count(top)
    order = {el: n for n, el in enumerate(top.iter())}
    prose = [order[el] for el in top.iter("*") if isinstance(el.tag, str) and _is_prose(el)]
    doomed: list[HtmlElement] = []
    for el in top.iter(*_LINK_BLOCKS):
        if el is top or any(_is_ancestor(d, el) for d in doomed[-1:]):
            continue
        if any(True for _ in el.iter("h1", "h2", "h3", "h4", "h5", "h6", "pre")):
            continue
        links = [a for a in el.iter("a") if a.get("href") is not None]
        if len(links) < MIN_LINKS or any(_leaves_site(a.get("href")) for a in links):
            continue  # a list of references to elsewhere is content; a site's navigation links to itself
        start, end = order[el], order[el] + sum(1 for _ in el.iter()) - 1
        if any(n < start for n in prose) and any(n > end for n in prose):
            continue  # between paragraphs of the page's text: a list the text introduces
        words = _word_count(el)
        linked = sum(_word_count(a) for a in links)
        if words and linked >= LINK_SHARE * words:
            doomed.append(el)
    dropped = sum(_word_count(el) for el in doomed)
    if total and total - dropped < MIN_KEPT_SHARE * total:
        return
    for el in doomed:
        _drop(el)


def _drop_banners(top) -> None:
    """Blocks of nothing but links above the page's first heading and its first sentence: a site's
    banner and logo links (the Debian Administrator's Handbook's "Download the ebook" and its two logos
    on each of its pages). Links that leave the site count too here: above the title, they are the
    site's, not the text's."""
    heading = next(top.iter(*_HEADINGS), None)
    if heading is None:
        return
    above: list[HtmlElement] = []
    for el in top.iter("*"):
        if el is heading or (isinstance(el.tag, str) and _is_prose(el)):
            break
        if el.tag in _LINK_BLOCKS and not _is_ancestor(el, heading) and not any(_is_ancestor(d, el) for d in above):
            above.append(el)
    for el in above:
        links = [a for a in el.iter("a") if a.get("href") is not None]
        words = _word_count(el)
        linked = sum(_word_count(a) for a in links)
        if links and (linked >= LINK_SHARE * words if words else all(a.find(".//img") is not None for a in links)):
            _drop(el)


def _is_prose(el) -> bool:
    """An element with a sentence of its own text (not inside its links or headings)."""
    if el.tag.lower() in ("a", "h1", "h2", "h3", "h4", "h5", "h6", "script", "style"):
        return False
    own = (el.text or "") + " ".join(child.tail or "" for child in el)
    return len(_WORD.findall(own)) >= MIN_PROSE_WORDS
