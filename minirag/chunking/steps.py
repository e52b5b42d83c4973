"""chunk_document's steps, in order: clean, detect, cut sections, pack chunks, seed the title."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from minirag.chunking.blocks import Block, parse_blocks
from minirag.chunking.breadcrumb import (
    Crumb,
    as_read,
    heading_text,
    make_breadcrumb,
    opens_with_title,
)
from minirag.chunking.definitions import with_definitions
from minirag.chunking.detect import detect_category
from minirag.chunking.images import strip_data_images
from minirag.chunking.link_pages import site_links
from minirag.chunking.links import simplify_links
from minirag.chunking.model import Chunk, ChunkedDocument, Section, TokenCounter
from minirag.chunking.pack import Packed, Packer, Piece
from minirag.chunking.pages import split_pages
from minirag.chunking.rows import RowMap, SheetRows
from minirag.chunking.sections import Draft, Part, cut_part
from minirag.chunking.split import words_to_fit
from minirag.chunking.structure import generic_parts, heading_parts, slide_parts
from minirag.chunking.tokens import Tokens
from minirag.chunking.transcript import transcript_parts


@dataclass
class _Planned:
    section: int
    pieces: list[Piece]
    prefix: str
    packed: list[Packed]


def clean(markdown: str) -> str:
    """What is chunked: the body (its frontmatter, where its format has one, taken off by the
    caller) without inlined pictures, in-page link targets or CR line ends."""
    return simplify_links(strip_data_images(markdown.replace("\r\n", "\n").replace("\r", "\n")))


def run(markdown: str, *, title: str, count_tokens: TokenCounter, budget: int,
        max_tokens: int | None = None, by_headings: bool = False, rows: RowMap | None = None) -> ChunkedDocument:
    body = clean(markdown)
    with_pages = "\f" in body
    lines, pages = split_pages(body)
    # A sheet's lines carry their places where a PDF's carry pages: a spreadsheet has no pages.
    sheets = rows.sheets if rows is not None and not with_pages and rows.lines == len(lines) else None
    if rows is not None and sheets is not None:
        pages = rows.places()
    blocks = with_definitions(parse_blocks(lines, pages))
    if by_headings and any(block.kind == "heading" for block in blocks):
        category = "headings"
    else:
        category = detect_category(lines, blocks)
    if category == "transcript":
        parts = transcript_parts(lines, pages)
    elif category == "slides":
        parts = slide_parts(blocks)
    elif category == "headings":
        parts = heading_parts(blocks)
    else:
        parts = generic_parts(blocks)

    tokens = Tokens(count_tokens)
    packer = Packer(tokens, budget, max_tokens)
    crumbs = [_breadcrumb(part, title, tokens, budget) for part in parts]
    own_chunk = _headings_needing_own_chunk(parts, crumbs)
    skip_headings = category == "headings"

    sections: list[Section] = []
    planned: list[_Planned] = []
    for index, part in enumerate(parts):
        crumb = crumbs[index]
        room = budget - tokens.special - (tokens.content(crumb.text) if crumb.text else 0)
        for draft in cut_part(part):
            section = draft.section(with_pages)
            if sheets is not None:
                section = replace(section, rows=SheetRows.of(draft.span, sheets))
            sections.append(section)
            pieces = _draft_pieces(draft, crumb, packer, room, skip_headings, title)
            if pieces:
                packed = packer.pack(pieces, crumb.text)
            elif draft.first and index in own_chunk and crumb.text:
                packed = [Packed(crumb.text, tokens.full(crumb.text), draft.blocks[0].span)]
            else:
                packed = []
            planned.append(_Planned(len(sections) - 1, pieces, crumb.text, packed))

    if planned and not any(plan.packed for plan in planned):
        planned[0].packed = _headings_only(blocks, crumbs[0], title, tokens, budget)
    _seed_title(planned, title, packer, tokens, budget)
    chunks = [
        Chunk(
            item.text,
            plan.section,
            item.tokens,
            item.pages[0] if with_pages else None,
            item.pages[1] if with_pages else None,
            item.split_code,
            SheetRows.of(item.pages, sheets) if sheets is not None else None,
        )
        for plan in planned
        for item in plan.packed
    ]
    return ChunkedDocument(title=title, category=category, sections=sections, chunks=chunks,
                           site_links=site_links(body))


def _headings_only(blocks, crumb: Crumb, title: str, tokens: Tokens, budget: int) -> list[Packed]:
    """One chunk for a document of headings and nothing else (a note that is just its title):
    without it nothing would find the document. Its text is the breadcrumb and any heading
    the breadcrumb lacks, all of it the document's own words. None for a document with no words."""
    headings = [block for block in blocks if block.kind == "heading" and block.title.strip()]
    if not headings:
        return []
    lines = [crumb.text] if crumb.text else []
    lines += [h.title.strip() for h in headings
              if not _same_words(h.title, title) and " ".join(h.title.split()) not in crumb.text]
    text = "\n".join(lines)
    room = budget - tokens.special
    if tokens.content(text) > room:
        text = words_to_fit(text, tokens, room)[0]
    return [Packed(text, tokens.full(text), headings[0].span)]


def _same_words(a: str, b: str) -> bool:
    """Whether two headings read the same: a page's `<title>` is plain text where its heading marks
    code or emphasis (`Scheduling Tasks with cron` against ``Scheduling Tasks with `cron` ``)."""
    return as_read(a) == as_read(b)


def _site_titled(heading: str, title: str) -> bool:
    """Whether a page's `<title>` is its heading followed by the site's name (or preceded by it), as
    documentation generators write it (Sphinx `json — JSON encoder and decoder — Python 3.11.2 documentation`,
    MkDocs `Installation - MkDocs`, Docusaurus `Intro | Docusaurus`)."""
    head, whole = as_read(heading), as_read(title)
    if not head or len(whole) <= len(head):
        return False
    if whole.startswith(head) and _SITE_NAME.match(whole, len(head)) is not None:
        return True
    # Or the site's name first (Doxygen: `libstdc++: std::vector< _Tp, _Alloc > Class Template Reference`).
    return whole.endswith(head) and _SITE_FIRST.search(whole, 0, len(whole) - len(head)) is not None


# What follows a page's heading in its `<title>`: a dash, bar or middle dot between spaces, then a name.
_SITE_NAME = re.compile(r" [—–\-|·] \S")
# What precedes it when the site's name comes first: a name, then a colon, or a dash, bar or dot between spaces.
_SITE_FIRST = re.compile(r"\S(?::| [—–\-|·]) \Z")


def _named_with_site(heading: str, title: str) -> bool:
    """Whether a page's `<title>` is the name its heading gives, then the site's in parentheses, and
    the heading that name after a kind of at most MAX_KIND_WORDS words (javadoc: `Optional (Java SE 17 &
    JDK 17)` over `Class Optional<T>`, `Map.Entry (…)` over `Interface Map.Entry<K,V>`)."""
    found = _NAME_AND_SITE.fullmatch(" ".join(title.split()))
    if found is None:
        return False
    name = as_read(found.group(1))
    head = as_read(heading.partition("<")[0])  # a type's parameters (`<K,V>`) are no part of its name
    kind = head[:-len(name)] if name and head.endswith(name) else None
    return kind is not None and (not kind or kind.endswith(" ")) and len(kind.split()) <= MAX_KIND_WORDS


# A page's name, then the site's in parentheses, as the whole title.
_NAME_AND_SITE = re.compile(r"([^()]+) \([^()]+\)")
MAX_KIND_WORDS = 2  # `Annotation Interface`, `Enum Class`


def _breadcrumb(part: Part, title: str, tokens: Tokens, budget: int) -> Crumb:
    """The part's heading chain under the document's title, so every chunk says what it belongs to.

    A chunk of page 7 of a manual means little alone; with `Manual > Chapter` in
    front of it the encoder and BM25 both see its context. `kept` stays in the
    positions of the part's own chain.
    """
    chain = [heading_text(crumb) for crumb in part.crumbs]
    offset = 0
    if chain and title.strip() and _site_titled(chain[0], title):
        chain[0] = " ".join(title.split())  # the page's heading, said once: by the title that holds it
    elif chain and _named_with_site(chain[0], title):
        pass  # the page's name, said once: by the heading, which says what it names
    elif title.strip() and not (chain and _same_words(chain[0], title)):
        chain, offset = [" ".join(title.split()), *chain], 1
    crumb = make_breadcrumb(chain, tokens, budget)
    if not offset:
        return crumb
    return Crumb(crumb.text, frozenset(k - offset for k in crumb.kept if k >= offset), crumb.truncated)


def _draft_pieces(
    draft: Draft, crumb: Crumb, packer: Packer, room: int, skip_headings: bool, title: str = ""
) -> list[Piece]:
    pieces: list[Piece] = []
    if draft.part.listed:
        titles = [heading_text(block.title) for block in draft.blocks]
        pages = [block.pages[0] for block in draft.blocks]
        return packer.pieces(Block("paragraph", titles, pages), room)
    for block in draft.blocks:
        if block.kind == "heading" and not skip_headings and title and _same_words(block.title, title):
            continue  # the breadcrumb already says it
        said = not draft.part.level and draft.part.crumbs and block.title == draft.part.crumbs[0]  # a slide's title
        if block.kind == "heading" and (skip_headings or said):
            if crumb.truncated and draft.first:
                # The breadcrumb could not hold this heading, so its words go in the body.
                pieces.extend(packer.pieces(block.part([block.title], block.pages, False), room))
            continue
        pieces.extend(packer.pieces(block, room))
    return pieces


def _headings_needing_own_chunk(parts: list[Part], crumbs: list[Crumb]) -> set[int]:
    """Heading parts with no body whose words no other chunk's breadcrumb carries."""

    def has_body(part: Part) -> bool:
        return any(block.kind not in ("heading", "slide") for block in part.blocks)

    def is_leaf(index: int) -> bool:
        following = parts[index + 1] if index + 1 < len(parts) else None
        return following is None or following.level <= parts[index].level

    empty = {i for i, part in enumerate(parts) if part.level and not has_body(part)}
    carriers = [i for i, part in enumerate(parts) if has_body(part) or (i in empty and is_leaf(i))]
    covered: set[int] = set()
    for i in carriers:
        covered.update(parts[i].crumb_ids[k] for k in crumbs[i].kept)
    return {i for i in empty if is_leaf(i) or i not in covered}


def _seed_title(
    planned: list[_Planned], title: str, packer: Packer, tokens: Tokens, budget: int
) -> None:
    """Prepend `# Title` to the first chunk when its breadcrumb does not carry the title (a title past a
    third of the budget is elided there), repacking its section so it still fits."""
    title = " ".join(title.split())
    first = next((plan for plan in planned if plan.packed), None)
    if not title or first is None or opens_with_title(first.packed[0].text.split("\n", 1)[0], title):
        return
    if tokens.content(f"# {title}") > budget // 3:
        room = budget // 3 - tokens.content("# …")
        title = words_to_fit(title, tokens, max(1, room))[0] + " …"
    line = f"# {title}"
    if first.pieces:
        first.packed = packer.pack(first.pieces, first.prefix, reserve=tokens.content(line))
    head = first.packed[0]
    text = f"{line}\n{head.text}"
    first.packed[0] = Packed(text, tokens.full(text), head.pages, head.split_code)
