"""A slide's bullets and links written into its text, as a reader sees them, before markitdown reads it.

markitdown reads a text frame as python-pptx's `shape.text`, its paragraphs as plain lines: a body
placeholder's bullets and their nesting, drawn on the slide, were lost (the ODP of the same deck
reads `- item` nested), and so was a linked run's address. Here a bulleted paragraph begins with
its Markdown list marker, `- ` (`1. `, `2. `, ... where the bullets are numbered) after two spaces a
level, and a run linked to a web or mail address reads `[text](url)`; a link elsewhere (a file, a
slide of the deck) keeps its text alone.

Whether a paragraph has a bullet: its own `a:buNone`, `a:buChar` / `a:buBlip` or `a:buAutoNum`, else
its shape's list style for its level, else the list style of the slide layout's placeholder of its
index (a section header's text, a comparison's column headings and a caption are body placeholders
whose layout sets `a:buNone`), else its placeholder's kind: a body or content placeholder (`p:ph`
of type body or obj, obj being the default) bullets, as the masters PowerPoint and LibreOffice ship
do; a title, a subtitle and a plain text box do not. The master's own list styles are not followed.
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
_LINKED = ("http://", "https://", "mailto:")
_BULLETED_PLACEHOLDERS = frozenset({"body", "obj"})
_NONE, _BULLET, _NUMBER = "none", "bullet", "number"
_START_AT = "startAt"  # a:buAutoNum's first number, an XML attribute (no JSON key)
_TEXT_ESCAPES = str.maketrans({"[": "\\[", "]": "\\]"})
_ADDRESS_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"})


@dataclass(frozen=True)
class SlideSources:
    """What a slide's text reads from outside it: the web and mail addresses it links to, by
    relationship id, and its layout's placeholders' list styles, by placeholder index."""

    links: dict[str, str] = field(default_factory=dict)
    layout_styles: dict[str, etree._Element] = field(default_factory=dict)


def slide_sources(archive: zipfile.ZipFile, member: str, layouts: dict[str, dict[str, etree._Element]]) -> SlideSources:
    """The sources of the slide `member`; `layouts` holds the layouts read so far (a deck's
    slides share a few), each read once."""
    links: dict[str, str] = {}
    layout = None
    for link in _relationships(archive, member):
        target = (link.get("Target") or "").strip()
        if link.get("TargetMode") == "External":
            if target.lower().startswith(_LINKED):
                links[link.get("Id", "")] = target.translate(_ADDRESS_ESCAPES)
        elif (link.get("Type") or "").endswith(_LAYOUT):
            layout = posixpath.normpath(posixpath.join(member.rpartition("/")[0], target))
    if layout is not None and layout not in layouts:
        layouts[layout] = _placeholder_styles(archive, layout)
    return SlideSources(links, layouts.get(layout, {}) if layout is not None else {})


def _relationships(archive: zipfile.ZipFile, member: str) -> list:
    folder, _, name = member.rpartition("/")
    try:
        return list(parsed(archive.read(f"{folder}/_rels/{name}.rels")).iter(_RELATIONSHIP))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return []


def _placeholder_styles(archive: zipfile.ZipFile, layout: str) -> dict[str, etree._Element]:
    try:
        root = parsed(archive.read(layout))
    except (KeyError, etree.XMLSyntaxError, ValueError):
        return {}
    styles: dict[str, etree._Element] = {}
    for shape in root.iter(P + "sp"):
        placeholder = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        style = shape.find(f"{P}txBody/{A}lstStyle")
        if placeholder is not None and style is not None:
            styles.setdefault(placeholder.get("idx", "0"), style)
    return styles


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
        styles = [style for style in (body.find(A + "lstStyle"),
                                      sources.layout_styles.get(placeholder.get("idx", "0")) if placeholder is not None else None)
                  if style is not None]
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
    # The paragraph's own properties, then its level's in the shape's list style, then in its layout's.
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
