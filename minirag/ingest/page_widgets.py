"""A page's widgets, told by their markup: skip links, share bars and cookie banners (page_chrome.py
leaves them out with the rest of the page's chrome).

- A skip link: a link to the page's own content, before the page's first heading, that keyboard
  users meet first ("Skip to main content"): its address `#id` names the element that holds that
  heading, or an empty anchor set before the content, or the link says what it is by its class
  (`skip-link`, `govuk-skip-link`).
- A share bar: a short block (SHARE_BAR_WORDS words at most, two links or controls at least) whose
  class names sharing (WordPress's Jetpack `sharedaddy`, AddToAny's `addtoany`/`a2a_kit`,
  GOV.UK's `gem-c-share-links`, any `social-share`): its links hand the page to other sites.
- A cookie banner: a short block (BANNER_WORDS at most) near the top of the page's tree (BANNER_DEPTH
  levels below `<body>` at most), outside an article or the main region, and before the page's first
  heading or after all of its text, whose class or id names cookies or consent and which asks for a
  choice (a button, a field, a link acting as a button). Those a page marks as a dialog are dropped
  as dialogs already.

Class names (and a banner's id) are read as their parts (`cookie-law-info-bar` is cookie, law, info, bar), so a
part must be the word itself: `shareholder` or `cookiecutter` are none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lxml.html import HtmlElement

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_WORD = re.compile(r"\w+")
_NAME_PART = re.compile(r"[^\W_]+")
_SKIP_PARTS = frozenset({"skip", "skiplink", "skiplinks", "skipnav", "skipto"})
_SHARE_PARTS = frozenset({"share", "shares", "sharing", "sharer", "sharebar", "sharethis", "sharedaddy", "addtoany",
                          "a2a", "shareaholic"})
_CONSENT_PARTS = frozenset({"cookie", "cookies", "consent", "gdpr", "cookiebanner", "cookienotice", "cookieconsent"})
_CONTROLS = ("button", "input", "select", "form")
_UNSEEN = ("script", "style", "noscript", "template")  # elements whose text a reader does not see
SKIP_LINK_WORDS = 6  # "Skip to main content", "Jump to navigation"
SHARE_BAR_WORDS = 30
BANNER_WORDS = 150
BANNER_DEPTH = 3


def _name_parts(el, *, with_id: bool = False) -> set[str]:
    """The parts of an element's class names (and of its id): an id is often a heading's words
    (`method.skip`, `--skip-filter`), so only a banner's is read."""
    return set(_NAME_PART.findall(f"{el.get('class') or ''} {(el.get('id') or '') if with_id else ''}".lower()))


@dataclass
class Widgets:
    """What tells a page's widgets from its text: its first heading and what holds it, and its ids
    (read once a link asks)."""

    root: HtmlElement
    holding_title: frozenset = frozenset()  # the first heading and its ancestors
    title: HtmlElement | None = None
    # Each element's words, where known (page_chrome.py counts them once for the whole page: each
    # nested share or cookie block reading its subtree's text again cost its size times their depth)
    counted: Mapping[object, int] = field(default_factory=dict, repr=False)
    _ids: dict | None = field(default=None, repr=False)
    _ends: dict | None = field(default=None, repr=False)  # each element's end in the page's order
    _last_text: int = field(default=-1, repr=False)  # where the page's last text a reader sees stands

    @classmethod
    def of(cls, top, counted: Mapping[object, int]) -> Widgets:
        heading = next(top.iter(*_HEADINGS), None)
        holding = frozenset([heading, *heading.iterancestors()]) if heading is not None else frozenset()
        return cls(top.getroottree().getroot(), holding, heading, counted)

    def _words(self, el) -> int:
        words = self.counted.get(el)
        return words if words is not None else len(_WORD.findall(el.text_content()))

    def _target(self, fragment: str):
        if self._ids is None:
            self._ids = {}
            for el in self.root.iter("*"):
                if el.get("id") is not None:
                    self._ids.setdefault(el.get("id"), el)
                if el.tag == "a" and el.get("name") is not None:
                    self._ids.setdefault(el.get("name"), el)
        return self._ids.get(fragment)

    def is_widget(self, el, *, before_title: bool) -> bool:
        if el.tag.lower() == "a":
            return self._is_skip_link(el, before_title)
        parts = _name_parts(el, with_id=True)
        if not parts:
            return False
        if _name_parts(el) & _SHARE_PARTS:
            return _is_share_bar(el, self._words(el))
        if parts & _CONSENT_PARTS:
            return _is_banner(el, self._words(el)) and (before_title or not self._text_follows(el))
        return False

    def _is_skip_link(self, a, before_title: bool) -> bool:
        href = (a.get("href") or "").strip()
        if len(href) < 2 or not href.startswith("#") or self._words(a) > SKIP_LINK_WORDS:
            return False
        parent = a.getparent()
        if _name_parts(a) & _SKIP_PARTS or (parent is not None and _name_parts(parent) & _SKIP_PARTS):
            return True
        if not before_title or self.title is None:
            return False
        target = self._target(href[1:])
        return target is not None and target is not a and (target in self.holding_title or not self._words(target))


    def _text_follows(self, el) -> bool:
        """Whether any text a reader sees comes after `el` in the page (a script's or a style's is
        none): the page walked once, each element's end and its last seen text given a place in
        its order (asked of each block by its following text, a page of many cost its size squared)."""
        if self._ends is None:
            from lxml import etree

            self._ends = {}
            # (a comment's tail is text too)
            for place, (event, node) in enumerate(etree.iterwalk(self.root, events=("start", "end", "comment", "pi"))):
                if event == "start":
                    if str(node.tag).lower() not in _UNSEEN and (node.text or "").strip():
                        self._last_text = place  # its text, before its children
                    continue
                if event == "end":
                    self._ends[node] = place
                if (node.tail or "").strip():
                    self._last_text = place  # its tail, right after its end
        end = self._ends.get(el)
        return end is None or self._last_text >= end  # (its own tail follows it)


def _is_share_bar(el, words: int) -> bool:
    if words > SHARE_BAR_WORDS or next(el.iter("pre"), None) is not None:
        return False
    links = sum(1 for a in el.iter("a") if a.get("href") is not None)
    return links + sum(1 for _ in el.iter(*_CONTROLS)) >= 2


def _is_banner(el, words: int) -> bool:
    if words > BANNER_WORDS or next(el.iter(*_CONTROLS), None) is None and not any(
            (a.get("role") or "").lower() == "button" for a in el.iter("a")):
        return False
    for depth, ancestor in enumerate(el.iterancestors()):
        tag = ancestor.tag.lower() if isinstance(ancestor.tag, str) else ""
        if tag in ("article", "main") or (ancestor.get("role") or "").strip().lower() == "main":
            return False
        if tag == "body":
            return depth < BANNER_DEPTH  # (depth: the wrappers between)
    return False
