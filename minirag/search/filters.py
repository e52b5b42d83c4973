"""What happens to fused hits after ranking: files no longer served and hits past the distance cap
dropped, then one slot per passage, then gap grouping and the file cap."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from minirag.chunking.breadcrumb import SEPARATOR
from minirag.chunking.titles import is_name_title
from minirag.search.fusion import Hit


def apply_post_filters(hits: list[Hit], *, max_distance: float | None = None, grouping: str | None = None,
                       max_files: int | None = None) -> list[Hit]:
    hits = within_distance(hits, max_distance)
    if grouping:
        hits = group_by_gap(hits, grouping)
    if max_files:
        hits = first_files(hits, max_files)
    return hits


def within_distance(hits: list[Hit], max_distance: float | None) -> list[Hit]:
    """The hits at most `max_distance` away (none without a distance); all of them without a cap."""
    return hits if max_distance is None else [h for h in hits if h.distance is not None and h.distance <= max_distance]


def served_only(hits: list[Hit], served: Callable[[str], bool] | None) -> list[Hit]:
    """The hits `served` lets through: a file's source it refuses (a root since removed from the
    configuration, its files still in the index until a sync) is never shown nor named."""
    return hits if served is None else [hit for hit in hits if hit.kind != "file" or served(hit.source)]


# The other files a passage is named in, at most: a folder of a hundred copies would fill the
# response budget with their names (a count says how many more).
MAX_ALSO_IN = 5


def one_slot_per_passage(hits: list[Hit]) -> list[Hit]:
    """Each passage once, at its best rank, naming in `also_in` the other files that hold it.

    A manual installed twice, a folder copied, a file kept in two versions, a book exported as one
    page and as a page per chapter: their shared passages score alike and would fill the list with
    the same words. The same text in two files is one answer found in two places, which is what an
    agent needs to know of it. Only hits the filters let through are given (plan.py): a copy they
    leave out is never named.
    """
    slot: dict[str, int] = {}  # each form of a passage kept -> its place in `kept`
    in_section: dict[str, list[int]] = {}  # a section's heading and words -> the places holding them
    kept: list[Hit] = []
    elsewhere: list[list[str]] = []
    for hit in hits:
        forms, section = _passages(hit), _section(hit)
        at = next((slot[form] for form in forms if form in slot), None)
        if at is None and section is not None:  # only from another file: one file's sections are its own
            at = next((n for n in in_section.get(section, ()) if kept[n].source != hit.source), None)
        if at is None:
            at = len(kept)
            kept.append(hit)
            elsewhere.append([])
        elif hit.source != kept[at].source and hit.source not in elsewhere[at]:
            elsewhere[at].append(hit.source)
        for form in forms:
            slot.setdefault(form, at)
        if section is not None and at not in in_section.setdefault(section, []):
            in_section[section].append(at)
    return [replace(hit, also_in=tuple(others[:MAX_ALSO_IN]), also_in_more=max(0, len(others) - MAX_ALSO_IN))
            if others else hit for hit, others in zip(kept, elsewhere, strict=True)]


def _passages(hit: Hit) -> tuple[str, ...]:
    """What a hit says, in each form another copy of it may take.

    Its text without the title of its document, where its breadcrumb (or the heading that opens its
    text) names a section under that title: a manual's translations that left a section untranslated
    hold the same section, each under its own title. Where the title is all the breadcrumb says, it
    is the passage's only context: `Click OK` under two titles is two answers; unless the title is the
    file's name (titles.is_name_title), which says where the text is, not what it is: `notes.md` and
    `notes (1).md` hold one passage. Such a hit also keeps its whole text as a form, which a page whose
    heading reads as that name holds too.
    """
    title = " ".join(hit.title.split())
    if title and hit.text.startswith((title + SEPARATOR, title + "\n#")):  # a section's heading, in either place
        return (hit.text[len(title):],)
    if title and hit.kind == "file" and hit.text.startswith(title + "\n") and is_name_title(hit.title, hit.source):
        return (hit.text, hit.text[len(title):])
    return (hit.text,)


def _section(hit: Hit) -> str | None:
    """A section's own heading and its words, without the headings above it, where its breadcrumb names
    the document's title and then sections: a book as one page (`Reference > 5. Packages > 5.11. NMUs`)
    and as a page per chapter (`5. Packages > 5.11. NMUs`) holds each section under other headings
    above it. None where the breadcrumb says no more than the title."""
    title = " ".join(hit.title.split())
    if not title or not hit.text.startswith(title + SEPARATOR):
        return None
    crumbs, _, words = hit.text.partition("\n")
    return crumbs.rsplit(SEPARATOR, 1)[-1] + "\n" + words


def group_by_gap(hits: list[Hit], grouping: str) -> list[Hit]:
    """Cut at gaps over 2x the mean gap of the distance-sorted results; order is kept.

    `similar` keeps the first group, `related` the first two. Hits without a
    distance are kept; fewer than 3 distances means no boundary exists.
    """
    distances = sorted(h.distance for h in hits if h.distance is not None)
    if len(distances) < 3:
        return hits
    gaps = [b - a for a, b in zip(distances, distances[1:], strict=False)]
    mean_gap = sum(gaps) / len(gaps)
    boundaries = [i for i, gap in enumerate(gaps) if gap > 2 * mean_gap]
    groups_kept = 1 if grouping == "similar" else 2
    if len(boundaries) < groups_kept:
        return hits
    cutoff = distances[boundaries[groups_kept - 1]]  # last distance kept
    return [h for h in hits if h.distance is None or h.distance <= cutoff]


def first_files(hits: list[Hit], max_files: int) -> list[Hit]:
    kept_sources: list[str] = []
    out = []
    for hit in hits:
        if hit.source not in kept_sources:
            if len(kept_sources) >= max_files:
                continue
            kept_sources.append(hit.source)
        out.append(hit)
    return out
