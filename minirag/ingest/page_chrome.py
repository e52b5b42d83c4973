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
   toolbars and dialogs (cookie banners are dialogs, and a `<dialog>` not open), hidden elements (the `hidden`
   attribute, or an inline `display: none`, `visibility: hidden` or `content-visibility: hidden`), dropdowns
   (an element whose toggle has `aria-haspopup`), and `<footer>`. `<header>`, `<aside>` and `<address>` go when they belong to the
   page rather than to a `<main>` or `<article>` (docutils writes footnotes as
   `<aside>` inside the main region).
3. Prev/next bars: a short block whose links mostly carry the link relations
   or access keys of sequential navigation (`rel="prev"`, `accesskey="n"`), and a
   short block whose links go exactly where such a bar's do (the bar repeated below).
4. Links to an edit form (`/edit/`, `action=edit`) and what only framed them.
5. Without a marked main region, blocks of links to the site's own pages and
   little else (link text 90% of their words, three links or more) before the
   page's first prose or after its last are navigation, unless the page would
   keep too little text without them (an index page is its links); so are links
   anywhere before the first prose in a table cell beside it (an old site's
   sidebar of "Related links"). A list of links elsewhere, or one between
   paragraphs, is content.
6. Widgets, wherever they are: skip links, share bars and cookie banners (page_widgets.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from minirag.ingest.page_widgets import Widgets

if TYPE_CHECKING:
    from lxml.html import HtmlElement

_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary", "menubar", "menu",
                           "toolbar", "dialog", "alertdialog"})
_CHROME_TAGS = frozenset({"nav", "footer"})
_PAGE_LEVEL = frozenset({"header", "aside", "address"})
_NOTE_KINDS = frozenset({"footnote", "endnote", "rearnote", "note", "footnotes", "endnotes", "rearnotes",
                         "doc-footnote", "doc-endnote", "doc-endnotes"})
# Elements a removed one may stand among in a line of text; any other one parted the text before it
# from the text after it.
_INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "button", "cite", "code", "data", "del", "dfn", "em", "font",
                     "i", "img", "input", "ins", "kbd", "label", "mark", "output", "q", "s", "samp", "select",
                     "small", "span", "strong", "sub", "sup", "textarea", "time", "u", "var", "wbr"})
# Alternatives a script reveals one of are a few (systems, applications): past this many children a
# parent is no switch, and each hidden child need not look at all the others.
MAX_ALTERNATIVES = 32
# A declaration of an inline style that hides its element (the last one wins in CSS; any one is taken):
# as a script shows and hides one of alternatives (_shown_alternative),
_HIDING_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|(?:content-)?visibility\s*:\s*(?:hidden|collapse))"
                           r"\s*(?:!\s*important\s*)?(?:;|$)", re.IGNORECASE)
# or as no script does, drawing it at no opacity, or hiding it from Outlook (mso-hide): e-mail's way to
# hide words from the reader and show them to a filter, or to an agent. Both hide every descendant;
# `font-size: 0` does not (a child sets its size again: e-mail templates put it on every layout cell).
_UNSEEN_STYLE = re.compile(r"(?:^|;)\s*(?:opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?|mso-hide\s*:\s*all)"
                           r"\s*(?:!\s*important\s*)?(?:;|$)", re.IGNORECASE)
# A comment, a string or a url(...) of CSS, each to its end or the style's end.
_CSS_PIECE = re.compile(r"/\*.*?(?:\*/|\Z)|\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?|url\([^)]*\)?",
                        re.DOTALL | re.IGNORECASE)
_SEQUENCE_RELS = frozenset({"prev", "previous", "next", "up", "home", "start", "first", "last", "index",
                            "contents", "top", "parent"})
_EDIT_HREF = re.compile(r"(?:/edit/|/_edit/|[?&]action=edit\b)")
_LINK_BLOCKS = ("ul", "ol", "table", "div", "dl", "p", "menu", "section")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_ALTERNATIVE_BLOCKS = ("div", "p", "ul", "ol", "dl", "table", "pre", *_HEADINGS)
_BAR_BLOCKS = ("div", "table", "p", "ul", "ol", "section", "span")
_WORD = re.compile(r"\w+")
_PLACE_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?")
# A prev/next bar holds the titles of its neighbours and little else.
MAX_BAR_WORDS = 60
# ... in a block of at most this many elements (a bar's links, their icons and separators).
MAX_BAR_NODES = 200
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
    return tag in _PAGE_LEVEL and not _inside_content(el, top) and not _is_note(el)


def _is_note(el) -> bool:
    """Whether an element is a footnote or endnote by its own markup: an EPUB 3 `<aside
    epub:type="footnote">`, or DPUB-ARIA's `role="doc-footnote"` (a book's notes are its text)."""
    kinds = set((el.get("epub:type") or "").lower().split()) | set((el.get("role") or "").lower().split())
    return bool(kinds & _NOTE_KINDS)


def left_out_by_markup(tag: str, attributes: Mapping[str, str | None]) -> bool:
    """Whether an element is chrome or hidden by its own tag and attributes, its neighbours unseen
    (markup read without a tree: html_markdown.py's flat reader)."""
    return _landmark(tag, attributes) or hidden_by_markup(attributes) or _aria_hidden(attributes)


def _landmark(tag: str, attributes: Mapping[str, str | None]) -> bool:
    closed_dialog = tag == "dialog" and "open" not in attributes  # shown only when a script opens it
    return tag in _CHROME_TAGS or closed_dialog or (attributes.get("role") or "").strip().lower() in _CHROME_ROLES


def _aria_hidden(attributes: Mapping[str, str | None]) -> bool:
    return "true" in ((attributes.get("aria-hidden") or "").lower(), (attributes.get("aria-modal") or "").lower())


def hidden_by_markup(attributes: Mapping[str, str | None]) -> bool:
    """Whether an element is hidden from a reader by its own markup: the `hidden` attribute, or an
    inline style of `display: none`, `visibility: hidden` or `content-visibility: hidden`, of
    `opacity: 0` or `mso-hide: all` (text a page hides that way is no reader's: an
    old page's collapsed part, or words put there for search engines, spam filters or agents)."""
    if "hidden" in attributes:
        return True
    style = _without_comments(attributes.get("style") or "")
    return _HIDING_STYLE.search(style) is not None or _UNSEEN_STYLE.search(style) is not None


def _toggled(attributes: Mapping[str, str | None]) -> bool:
    """Hidden the way a script shows one of alternatives: the `hidden` attribute, or a `display` or
    `visibility` a script sets (not a zero opacity, which no switch uses)."""
    style = _without_comments(attributes.get("style") or "")
    return ("hidden" in attributes or _HIDING_STYLE.search(style) is not None) and _UNSEEN_STYLE.search(style) is None


def _without_comments(css: str) -> str:
    """An inline style with its comments as spaces, as a browser reads it (`/*x*/display:none`
    hides); an unclosed comment runs to the end, and `/*` inside a string or a `url(...)` opens
    none. Each piece the pattern matches ends where its scan did: one pass over the style."""
    if "/*" not in css:
        return css
    return _CSS_PIECE.sub(lambda piece: " " if piece.group().startswith("/*") else piece.group(), css)


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
    if len(siblings) < 2 or any(not _toggled(child.attrib) or (child.tail or "").strip() for child in siblings):
        return False
    if any(True for child in siblings for _ in child.iter(*_ALTERNATIVE_BLOCKS)):
        return True
    return el is siblings[-1]


def _opens_popup(el) -> bool:
    return (el.get("aria-haspopup") or "false").lower() != "false" and el.tag.lower() in ("input", "button", "a")


def _drop_chrome(top) -> None:
    from lxml import etree

    tallies = _tallies(top)
    doomed: list[HtmlElement] = []
    bars: list[frozenset[str]] = []  # the link targets of each prev/next bar
    widgets = Widgets.of(top, {el: tally.words for el, tally in tallies.items()})
    before_title = True
    walk = etree.iterwalk(top, events=("start",))
    for _event, el in walk:
        if el is top or not isinstance(el.tag, str):
            continue
        before_title = before_title and el is not widgets.title
        if widgets.is_widget(el, before_title=before_title):
            doomed.append(el)
            walk.skip_subtree()
            continue
        if _is_sequence_bar(el, tallies[el]):
            if any(_SEQUENCE_RELS & set((a.get("rel") or "").lower().split()) for a in el.iter("a")):
                bars.append(frozenset(_targets(el)))  # prev/next links; access keys alone mark menus too
            doomed.append(el)
            walk.skip_subtree()
        elif _is_chrome(el, top) or _is_edit_link(el):
            doomed.append(el)
            walk.skip_subtree()
        elif (number := _place_number(el)) is not None:
            doomed.append(number)
            walk.skip_subtree()
    if bars:
        doomed.extend(_repeated_bars(top, bars, doomed, tallies))
    for el in doomed:
        parent = el.getparent()
        _drop(el)
        if parent is not None and parent is not top and _only_punctuation(parent):
            _drop(parent)  # MediaWiki's "[edit]": the brackets around a dropped link


@dataclass
class _Tally:
    """What an element's subtree holds, counted once for the whole page (each element asked about
    its own subtree walked it again: nested blocks cost the page's size times their depth)."""

    nodes: int = 1  # elements, comments and instructions, itself included
    text: _Words = field(default_factory=lambda: _Words())  # its words, as text_content() runs them together
    links: int = 0  # links with an address
    linked: int = 0  # the words inside them
    leaves: bool = False  # whether one of them leaves the site
    blocky: bool = False  # whether it is or holds a heading or `<pre>`


    @property
    def words(self) -> int:
        return self.text.count


@dataclass(frozen=True)
class _Words:
    """The words of a run of text, and whether it starts and ends inside one: what two runs joined
    hold is known from theirs (a word across the join is one)."""

    count: int = 0
    starts_in_word: bool = False
    ends_in_word: bool = False
    empty: bool = True

    @classmethod
    def of(cls, text: str | None) -> _Words:
        if not text:
            return cls()
        return cls(len(_WORD.findall(text)), _WORD.match(text[0]) is not None, _WORD.match(text[-1]) is not None,
                   False)

    def __add__(self, other: _Words) -> _Words:
        if self.empty or other.empty:
            return other if self.empty else self
        return _Words(self.count + other.count - (self.ends_in_word and other.starts_in_word),
                      self.starts_in_word, other.ends_in_word, False)


def _tallies(top) -> dict:
    """Each element's _Tally, children first."""
    from lxml import etree

    tallies: dict = {}
    for _event, el in etree.iterwalk(top, events=("end",)):
        tally = _Tally(text=_Words.of(el.text) if isinstance(el.tag, str) else _Words())
        for child in el:
            below = tallies.get(child)
            if below is None:  # a comment or instruction, if the walk passed it by
                tally.nodes += 1
            else:
                tally.nodes += below.nodes
                tally.text += below.text
            tally.text += _Words.of(child.tail)
            if below is None:
                continue
            tally.links += below.links
            tally.linked += below.linked
            tally.leaves = tally.leaves or below.leaves
            tally.blocky = tally.blocky or below.blocky
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag == "a" and el.get("href") is not None:
            tally.links, tally.linked = 1, tally.words
            tally.leaves = _leaves_site(el.get("href"))
        tally.blocky = tally.blocky or tag in _HEADINGS or tag == "pre"
        tallies[el] = tally
    return tallies


def _only_punctuation(el) -> bool:
    return el.tag.lower() in ("span", "small") and not _WORD.search(el.text_content())


def _place_number(a):
    """The link and what wraps only it, when `a` is a paragraph's number linking to the paragraph it
    stands before (SiSU's `<label class="ocn"><a href="#o656">656</a></label><p id="o656">`): a
    reader's margin, not the text. None for any other link: a number in a sentence points elsewhere."""
    href = (a.get("href") or "") if a.tag.lower() == "a" else ""
    if len(href) < 2 or not href.startswith("#") or not _PLACE_NUMBER.fullmatch(a.text_content().strip()):
        return None
    holder = a
    for _ in range(3):  # the link, a label or span around it, a block around that
        following = holder.getnext()
        if following is not None and following.get("id") == href[1:]:
            return holder
        parent = holder.getparent()
        if parent is None or parent.text_content().strip() != a.text_content().strip():
            return None
        holder = parent
    return None


def _is_edit_link(el) -> bool:
    return el.tag.lower() == "a" and bool(_EDIT_HREF.search(el.get("href") or ""))


def _is_sequence_link(a) -> bool:
    rels = set((a.get("rel") or "").lower().split())
    return bool(rels & _SEQUENCE_RELS) or bool((a.get("accesskey") or "").strip())


def _is_sequence_bar(el, tally: _Tally) -> bool:
    if (el.tag.lower() not in _BAR_BLOCKS or not tally.links or tally.blocky or tally.words > MAX_BAR_WORDS
            or tally.nodes > MAX_BAR_NODES):
        return False
    links = [a for a in el.iter("a") if a.get("href") is not None]
    sequence = sum(1 for a in links if _is_sequence_link(a))
    return sequence > 0 and sequence * 2 >= len(links)


def _targets(el) -> list[str]:
    return [a.get("href") for a in el.iter("a") if a.get("href") is not None]


def _repeated_bars(top, bars: list[frozenset[str]], doomed: list, tallies: dict) -> list:
    """Short blocks whose two links or more lead exactly where one prev/next bar's do: the same bar
    repeated at the page's foot without the link relations (Texinfo writes them on the top one only)."""
    from lxml import etree

    gone = set(doomed)
    holding: set = set()  # the ancestors of what goes: no bar, as they hold more than one
    for el in doomed:
        for ancestor in el.iterancestors():
            if ancestor in holding:
                break
            holding.add(ancestor)
    found: list[HtmlElement] = []
    walk = etree.iterwalk(top, events=("start",))
    for _event, el in walk:
        if el in gone:
            walk.skip_subtree()
            continue
        if el is top or el in holding or not isinstance(el.tag, str) or el.tag not in _BAR_BLOCKS:
            continue
        tally = tallies[el]
        if (tally.links >= 2 and not tally.blocky and tally.words <= MAX_BAR_WORDS and tally.nodes <= MAX_BAR_NODES
                and frozenset(_targets(el)) in bars):
            found.append(el)
            walk.skip_subtree()
    return found


def _leaves_site(href: str) -> bool:
    return bool(re.match(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)", href.strip()))


def _drop_link_blocks(top) -> None:
    from lxml import etree

    tallies = _tallies(top)
    total = tallies[top].words
    order = {el: n for n, el in enumerate(top.iter())}
    prose = [order[el] for el in top.iter("*") if isinstance(el.tag, str) and _is_prose(el)]
    doomed: list[HtmlElement] = []
    walk = etree.iterwalk(top, events=("start",))
    for _event, el in walk:
        if el is top or not isinstance(el.tag, str) or el.tag not in _LINK_BLOCKS:
            continue
        tally = tallies[el]
        if tally.blocky or tally.links < MIN_LINKS:
            continue
        start, end = order[el], order[el] + tally.nodes - 1
        if tally.leaves and not (prose and end < prose[0] and _beside_the_text(el, prose, order, tallies)):
            continue  # a list of references to elsewhere is content, but in a column beside the text (a sidebar)
        if prose and prose[0] < start and prose[-1] > end:
            continue  # between paragraphs of the page's text: a list the text introduces
        if tally.words and tally.linked >= LINK_SHARE * tally.words:
            doomed.append(el)
            walk.skip_subtree()
    dropped = sum(tallies[el].words for el in doomed)
    if total and total - dropped < MIN_KEPT_SHARE * total:
        return
    for el in doomed:
        _drop(el)


def _beside_the_text(el, prose: list[int], order: dict, tallies: dict) -> bool:
    """Whether `el` lies in a table cell whose row holds the page's first prose in another cell: a
    column beside the text (an old site's sidebar, laid out with a table)."""
    cell = next(el.iterancestors("td", "th"), None)
    row = cell.getparent() if cell is not None else None
    if row is None:
        return False
    return any(order[other] <= prose[0] < order[other] + tallies[other].nodes
               for other in row if other is not cell and isinstance(other.tag, str))


def _drop_banners(top) -> None:
    """Blocks of nothing but links above the page's first heading and its first sentence: a site's
    banner and logo links (the Debian Administrator's Handbook's "Download the ebook" and its two logos
    on each of its pages). Links that leave the site count too here: above the title, they are the
    site's, not the text's."""
    from lxml import etree

    heading = next(top.iter(*_HEADINGS), None)
    if heading is None:
        return
    holding_heading = set(heading.iterancestors())
    above: list[HtmlElement] = []
    inside = None  # the block of `above` being walked through
    for event, el in etree.iterwalk(top, events=("start", "end")):
        if event == "end":
            inside = None if el is inside else inside
            continue
        if el is heading or (isinstance(el.tag, str) and _is_prose(el)):
            break
        if inside is None and el.tag in _LINK_BLOCKS and el not in holding_heading:
            above.append(el)
            inside = el
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
