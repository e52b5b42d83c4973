"""A slide's bullets and links written into its text, as a reader sees them, before markitdown reads it.

markitdown reads a text frame as python-pptx's `shape.text`, its paragraphs as plain lines: a body
placeholder's bullets and their nesting, drawn on the slide, were lost (the ODP of the same deck
reads `- item` nested), and so was a linked run's address. Here a bulleted paragraph begins with
its Markdown list marker, `- ` (`1. `, `2. `, ... where the bullets are numbered) after two spaces a
level, and a run linked to a web or mail address reads `[text](url)`; a link elsewhere (a file, a
slide of the deck) keeps its text alone.

Whether a paragraph has a bullet: its own `a:buNone`, `a:buChar` / `a:buBlip` or `a:buAutoNum`, else
its level's in the list styles it inherits, nearest first, as PowerPoint draws it: its shape's,
the slide layout's placeholder of its index (a section header's text, a comparison's column
headings and a caption are body placeholders whose layout sets `a:buNone`), and for a body kind
of placeholder (body, obj, subTitle, a table's, a chart's, ...) the master's body placeholder's
and the master's body text style (`p:txStyles/p:bodyStyle`: a master may leave its first level
plain or number it). Where none says, its placeholder's kind: a body or content placeholder
(`p:ph` of type body or obj, obj being the default) bullets, as the masters PowerPoint and
LibreOffice ship do; a title, a subtitle and a plain text box do not. A title never takes the
master's title style's bullets (it reads as a heading), nor a text box the body style. The chain
is a fixed three parts long, each part read once a deck.
A table cell's and the speaker notes' links are written too, their paragraphs left unmarked.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field

from lxml import etree

from minirag.ingest.zip_xml import parsed

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_LAYOUT = "/slideLayout"  # how a slide's relationship to its layout's Type ends
_MASTER = "/slideMaster"  # and a layout's to its master's
_BODY = "body"
# The kinds of placeholder whose text inherits from the master's body placeholder and body style.
# (XML attribute values of p:ph/@type, not JSON keys.)
_MASTER_KINDS = {kind: _BODY for kind in {"body", "obj", "subTitle", "chart", "tbl", "clipArt", "dgm", "media", "pic"}}
_LINKED = ("http://", "https://", "mailto:")
_BULLETED_PLACEHOLDERS = frozenset({"body", "obj"})
_NONE, _BULLET, _NUMBER = "none", "bullet", "number"
_START_AT = "startAt"  # a:buAutoNum's first number, an XML attribute (no JSON key)
_TEXT_ESCAPES = str.maketrans({"[": "\\[", "]": "\\]"})
_ADDRESS_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"})


@dataclass(frozen=True)
class SlideSources:
    """What a slide's text reads from outside it: the web and mail addresses it links to, by
    relationship id, and the list styles its placeholders inherit, nearest first: by placeholder
    index those of its layout's placeholders and their master's, and the master's alone for a
    body placeholder its layout does not hold."""

    links: dict[str, str] = field(default_factory=dict)
    layout_styles: dict[str, tuple[etree._Element, ...]] = field(default_factory=dict)
    master_styles: tuple[etree._Element, ...] = ()


@dataclass(frozen=True)
class _Layout:
    """A slide layout's inherited list styles (SlideSources)."""

    by_index: dict[str, tuple[etree._Element, ...]]
    master: tuple[etree._Element, ...]


def slide_sources(archive: zipfile.ZipFile, member: str, layouts: dict[str, _Layout],
                  masters: dict[str, dict[str, tuple[etree._Element, ...]]]) -> SlideSources:
    """The sources of the slide `member`; `layouts` and `masters` hold the layouts and masters
    read so far (a deck's slides share a few), each read once."""
    links: dict[str, str] = {}
    layout = None
    for link in _relationships(archive, member):
        target = (link.get("Target") or "").strip()
        if link.get("TargetMode") == "External":
            if target.lower().startswith(_LINKED):
                links[link.get("Id", "")] = target.translate(_ADDRESS_ESCAPES)
        elif (link.get("Type") or "").endswith(_LAYOUT):
            layout = _target(member, target)
    if layout is None:
        return SlideSources(links)
    if layout not in layouts:
        layouts[layout] = _layout_styles(archive, layout, masters)
    return SlideSources(links, layouts[layout].by_index, layouts[layout].master)


def _target(member: str, target: str) -> str:
    return posixpath.normpath(posixpath.join(member.rpartition("/")[0], target))


def _relationships(archive: zipfile.ZipFile, member: str) -> list:
    folder, _, name = member.rpartition("/")
    try:
        return list(parsed(archive.read(f"{folder}/_rels/{name}.rels")).iter(_RELATIONSHIP))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return []


def _placeholders(root):
    """(index, kind, list style or None) of each placeholder of a layout or master."""
    for shape in root.iter(P + "sp"):
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if placeholder is not None:
            yield (placeholder.get("idx", "0"), placeholder.get("type", "obj"),
                   shape.find(f"{P}txBody/{A}lstStyle"))


def _layout_styles(archive: zipfile.ZipFile, layout: str,
                   masters: dict[str, dict[str, tuple[etree._Element, ...]]]) -> _Layout:
    try:
        root = parsed(archive.read(layout))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return _Layout({}, ())
    master = next((_target(layout, (link.get("Target") or "").strip()) for link in _relationships(archive, layout)
                   if (link.get("Type") or "").endswith(_MASTER) and link.get("TargetMode") != "External"), None)
    if master is not None and master not in masters:
        masters[master] = _master_styles(archive, master)
    inherited = masters.get(master, {}) if master is not None else {}
    styles: dict[str, tuple[etree._Element, ...]] = {}
    for index, kind, style in _placeholders(root):
        # A layout placeholder inherits from the master's of its kind (python-pptx's mapping).
        own = (style,) if style is not None else ()
        styles.setdefault(index, own + inherited.get(_MASTER_KINDS.get(kind, ""), ()))
    return _Layout(styles, inherited.get(_BODY, ()))


def _master_styles(archive: zipfile.ZipFile, master: str) -> dict[str, tuple[etree._Element, ...]]:
    """A body placeholder's list styles on the master `master`: its placeholder's, then its body
    text style. A title's are not followed (a title reads as a heading, never a list item)."""
    try:
        root = parsed(archive.read(master))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return {}
    placeholder = next((style for _, kind, style in _placeholders(root) if kind == _BODY and style is not None), None)
    body = root.find(f"{P}txStyles/{P}bodyStyle")
    return {_BODY: tuple(style for style in (placeholder, body) if style is not None)}


def mark_lists_and_links(root, sources: SlideSources) -> bool:
    """The text shapes of the slide `root` with their list markers and links written in; whether
    any was."""
    marked = False
    for shape in root.iter(P + "sp"):
        body = shape.find(P + "txBody")
        if body is None:
            continue
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        default = _BULLET if placeholder is not None and placeholder.get("type", "obj") in _BULLETED_PLACEHOLDERS else _NONE
        own = body.find(A + "lstStyle")
        styles = [own] if own is not None else []
        if placeholder is not None:
            index, kind = placeholder.get("idx", "0"), placeholder.get("type", "obj")
            if index in sources.layout_styles:
                styles += sources.layout_styles[index]
            elif _MASTER_KINDS.get(kind) == _BODY:
                styles += sources.master_styles
        numbers: dict[int, int] = {}  # a numbered list's last number, by level
        for paragraph in body.iterchildren(A + "p"):
            marked |= _mark_links(paragraph, sources.links)
            marked |= _mark_item(paragraph, styles, default, numbers)
    for cell in root.iter(A + "tc"):  # a table's cells: their links (markitdown reads no bullet there)
        for paragraph in cell.iterfind(f"{A}txBody/{A}p"):
            marked |= _mark_links(paragraph, sources.links)
    return marked


def mark_links(root, sources: SlideSources) -> bool:
    """The links of the notes slide `root` written in (its paragraphs read as lines, bulleted or
    not, as PowerPoint's notes pane shows them); whether any was."""
    marked = False
    for paragraph in root.iter(A + "p"):
        marked |= _mark_links(paragraph, sources.links)
    return marked


def _bullet_of(properties) -> str | None:
    """The bullet paragraph properties (`a:pPr`, `a:lvlNpPr`) set; None where they set none."""
    if properties is None:
        return None
    for child in properties:
        if child.tag == A + "buNone":
            return _NONE
        if child.tag == A + "buAutoNum":
            return _NUMBER
        if child.tag in (A + "buChar", A + "buBlip"):
            return _BULLET
    return None


def _level(properties) -> int:
    try:
        return min(max(int(properties.get("lvl", "0")), 0), 8) if properties is not None else 0
    except ValueError:
        return 0


def _mark_item(paragraph, styles: list, default: str, numbers: dict[int, int]) -> bool:
    texts = [text for text in paragraph.iter(A + "t") if text.text]
    if not any(text.text.strip() for text in texts):
        return False  # an empty paragraph: no item, and a numbered list goes on past it
    properties = paragraph.find(A + "pPr")
    level = _level(properties)
    # The paragraph's own properties, then its level's in the list styles, nearest first.
    chain = [properties, *(style.find(f"{A}lvl{level + 1}pPr") for style in styles)]
    source = next((each for each in chain if _bullet_of(each) is not None), None)
    bullet = _bullet_of(source) or default
    for deeper in [known for known in numbers if known > level]:
        del numbers[deeper]
    if bullet == _NONE:
        numbers.pop(level, None)
        return False
    if bullet == _NUMBER:
        numbering = source.find(A + "buAutoNum") if source is not None else None
        start = numbering.get(_START_AT, "1") if numbering is not None else "1"
        first = int(start) if start.isdigit() and len(start) < 6 else 1
        numbers[level] = numbers[level] + 1 if level in numbers else first
        marker = f"{numbers[level]}. "
    else:
        numbers.pop(level, None)
        marker = "- "
    run = etree.Element(A + "r")
    etree.SubElement(run, A + "t").text = "  " * level + marker
    at = 1 if properties is not None else 0  # a:pPr comes first
    paragraph.insert(at, run)
    return True


def _mark_links(paragraph, links: dict[str, str]) -> bool:
    """Each stretch of runs linked to one web or mail address wrapped as `[text](address)`."""
    stretches: list[tuple[str, list]] = []
    for child in paragraph:
        address = None
        if child.tag == A + "r":
            click = child.find(f"{A}rPr/{A}hlinkClick")
            address = links.get(click.get(R + "id", "")) if click is not None else None
        if address is None:
            stretches.append(("", []))
        elif stretches and stretches[-1][0] == address:
            stretches[-1][1].append(child)
        else:
            stretches.append((address, [child]))
    marked = False
    for address, runs in stretches:
        texts = [text for run in runs for text in run.iterchildren(A + "t")]
        if not address or not any((text.text or "").strip() for text in texts):
            continue
        for text in texts:
            text.text = (text.text or "").translate(_TEXT_ESCAPES)
        texts[0].text = "[" + texts[0].text
        texts[-1].text = texts[-1].text + f"]({address})"
        marked = True
    return marked
