"""PowerPoint 97-2003 presentations (.ppt) -> Markdown, slide by slide, from the compound file's
"PowerPoint Document" stream (cfb.py), as [MS-PPT] lays it out.

The stream is a tree of records (an 8-byte header: version and instance, type, length; version
0xF is a container). Where each slide is comes from the persist directory: the "Current User"
stream points at the last edit, each edit at its persist directory and at the edit before it,
and the newest entry for an object wins. The document's slide list (SlideListWithText) gives the
slides in the order they are shown, and the text older writers kept there; each slide's own
record holds the text of its text boxes (OfficeArt client textboxes). A notes page names its
slide by id.

Each slide is marked as a PPTX slide is (`<!-- Slide number: N -->`), its title a heading, its
other text as paragraphs, its speaker notes under `### Notes:`. Masters and their placeholder
prompts ("Click to edit Master title style") are not slides and are left out, and so are the
slide-number and date fields' placeholders. A password-protected file says so. Records nest at
most MAX_DEPTH deep and are never read past their container or the stream.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from minirag.errors import ConversionFailed
from minirag.ingest.cfb import CompoundFile, CompoundFileError
from minirag.ingest.pptx_order import Placed, by_position

MAX_DEPTH = 32
MAX_EDITS = 10_000
_ENCRYPTED_TOKEN = 0xF3D1C4DF
_DOCUMENT, _SLIDE, _NOTES, _NOTES_ATOM = 0x03E8, 0x03EE, 0x03F0, 0x03F1
_SLIDE_LIST, _SLIDE_PERSIST, _USER_EDIT, _PERSIST_DIRECTORY = 0x0FF0, 0x03F3, 0x0FF5, 0x1772
_TEXT_HEADER, _TEXT_CHARS, _TEXT_BYTES = 0x0F9F, 0x0FA0, 0x0FA8
_SHAPE, _CLIENT_ANCHOR = 0xF004, 0xF010  # OfficeArtSpContainer, and its OfficeArtClientAnchor
_TITLES = frozenset({0, 6})  # Tx_TYPE_TITLE, Tx_TYPE_CENTERTITLE
_NOTES_TEXT = 2
_SLIDES_LIST, _NOTES_LIST = 0, 2  # SlideListWithText's instances (1 is the masters')


Anchor = tuple[int, int, int, int]  # a shape's top, left, bottom, right on its slide (master units)


@dataclass
class _Slide:
    persist: int
    slide_id: int
    texts: list[tuple[int, str, Anchor | None]] = field(default_factory=list)  # (text type, text, its shape's place)
    notes: list[str] = field(default_factory=list)


def ppt_to_markdown(data: bytes, name: str) -> str:
    try:
        compound = CompoundFile(data)
        stream = compound.stream("PowerPoint Document")
        user = compound.stream("Current User")
    except CompoundFileError as exc:
        raise ConversionFailed(f"{name}: not a valid .ppt file (damaged: {exc})") from None
    if stream is None:
        raise ConversionFailed(f"{name}: an Office file, but not a PowerPoint presentation")
    try:
        slides = _slides(stream, user, name)
    except (struct.error, ValueError) as exc:
        raise ConversionFailed(f"{name}: not a valid .ppt file (damaged: {exc or 'truncated'})") from None
    return "\n\n".join(_slide_markdown(number, slide) for number, slide in enumerate(slides, 1)).strip()


def _records(stream: bytes, start: int, end: int):
    """(type, instance, is a container, data start, data end) of each record in [start, end)."""
    at = start
    while at + 8 <= end:
        version_instance, kind, length = struct.unpack_from("<HHI", stream, at)
        stop = at + 8 + length
        if stop > end:
            return
        yield kind, version_instance >> 4, version_instance & 0xF == 0xF, at + 8, stop
        at = stop


def _persist_directory(stream: bytes, user: bytes | None, name: str) -> dict[int, int]:
    """Each persist object's offset, the newest edit's entry winning."""
    if not user or len(user) < 20:
        raise ValueError("no Current User stream")
    token, edit = struct.unpack_from("<II", user, 12)
    if token == _ENCRYPTED_TOKEN:
        raise ConversionFailed(f"{name}: encrypted (password required)")
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    unread = len(stream)  # the directories' bytes: each edit's are its own, so together no more than this
    while edit and edit not in seen and len(seen) < MAX_EDITS:
        seen.add(edit)
        kind, = struct.unpack_from("<H", stream, edit + 2)
        if kind != _USER_EDIT:
            raise ValueError("the last edit is not where the Current User stream says")
        last, directory = struct.unpack_from("<II", stream, edit + 16)
        length, = struct.unpack_from("<I", stream, directory + 4)
        at, end = directory + 8, min(len(stream), directory + 8 + length)
        unread -= max(0, end - at)
        if unread < 0:  # edits sharing one directory, read over and over
            raise ValueError("its edits' persist directories overlap")
        while at + 4 <= end:
            info, = struct.unpack_from("<I", stream, at)
            first, count = info & 0xFFFFF, info >> 20
            for index in range(count):
                if at + 8 + 4 * index > end:
                    break
                offsets.setdefault(first + index, struct.unpack_from("<I", stream, at + 4 + 4 * index)[0])
            at += 4 + 4 * count
        edit = last
    return offsets


def _slides(stream: bytes, user: bytes | None, name: str) -> list[_Slide]:
    directory = _persist_directory(stream, user, name)
    document = next((offset for offset in directory.values()
                     if offset + 8 <= len(stream) and struct.unpack_from("<H", stream, offset + 2)[0] == _DOCUMENT),
                    None)
    if document is None:
        raise ValueError("no document record")
    _, _, length = struct.unpack_from("<HHI", stream, document)
    slides: list[_Slide] = []
    notes: list[int] = []
    for kind, instance, _, start, end in _records(stream, document + 8, min(len(stream), document + 8 + length)):
        if kind != _SLIDE_LIST or instance not in (_SLIDES_LIST, _NOTES_LIST):
            continue
        current: _Slide | None = None
        text_type = 1
        for atom, _, _, data, stop in _records(stream, start, end):
            if atom == _SLIDE_PERSIST and stop - data >= 16:
                persist, _, _, slide_id = struct.unpack_from("<IIiI", stream, data)
                if instance == _NOTES_LIST:
                    notes.append(persist)
                else:
                    current = _Slide(persist, slide_id)
                    slides.append(current)
            elif atom == _TEXT_HEADER and stop - data >= 4:
                text_type, = struct.unpack_from("<I", stream, data)
            elif atom in (_TEXT_CHARS, _TEXT_BYTES) and current is not None:
                current.texts.append((text_type, _text(stream[data:stop], atom), None))
    by_id = {slide.slide_id: slide for slide in slides}
    read: set[int] = set()  # each slide or notes record once, however many entries name it
    for slide in slides:
        offset = directory.get(slide.persist)
        if offset is not None and offset not in read:
            read.add(offset)
            slide.texts += _box_texts(stream, offset, _SLIDE)
    for persist in notes:
        offset = directory.get(persist)
        if offset is None or offset + 8 > len(stream) or offset in read:
            continue
        read.add(offset)
        texts = _box_texts(stream, offset, _NOTES)
        slide_id = _notes_slide(stream, offset)
        if slide_id in by_id:
            by_id[slide_id].notes += [text for kind, text, _ in texts if kind == _NOTES_TEXT]
    return slides


def _text(data: bytes, atom: int) -> str:
    return data.decode("utf-16-le", "replace") if atom == _TEXT_CHARS else data.decode("cp1252", "replace")


def _box_texts(stream: bytes, offset: int, kind: int) -> list[tuple[int, str, Anchor | None]]:
    """The (type, text, place) of every text atom inside the record at `offset`, if it is of
    `kind`; its place is its shape's (the client anchor of the OfficeArt shape holding it)."""
    if offset + 8 > len(stream) or struct.unpack_from("<H", stream, offset + 2)[0] != kind:
        return []
    _, _, length = struct.unpack_from("<HHI", stream, offset)
    found: list[tuple[int, str, Anchor | None]] = []
    text_type = 4
    pending: list[tuple[int, int, int, Anchor | None]] = [(offset + 8, min(len(stream), offset + 8 + length), 0, None)]
    while pending:
        start, end, depth, anchor = pending.pop()
        children = list(_records(stream, start, end))
        for atom, _, container, data, stop in reversed(children):  # reversed: popped in document order
            if container and depth < MAX_DEPTH:
                pending.append((data, stop, depth + 1, _anchor(stream, data, stop) if atom == _SHAPE else anchor))
        for atom, _, _container, data, stop in children:
            if atom == _TEXT_HEADER and stop - data >= 4:
                text_type, = struct.unpack_from("<I", stream, data)
            elif atom in (_TEXT_CHARS, _TEXT_BYTES):
                found.append((text_type, _text(stream[data:stop], atom), anchor))
    return found


def _anchor(stream: bytes, start: int, end: int) -> Anchor | None:
    """An OfficeArt shape's place on its slide: its client anchor, 4 16-bit or 32-bit numbers."""
    for atom, _, _, data, stop in _records(stream, start, end):
        if atom == _CLIENT_ANCHOR and stop - data in (8, 16):
            top, left, right, bottom = struct.unpack_from("<4h" if stop - data == 8 else "<4i", stream, data)
            return top, left, bottom, right
    return None


def _notes_slide(stream: bytes, offset: int) -> int | None:
    _, _, length = struct.unpack_from("<HHI", stream, offset)
    for atom, _, _, data, stop in _records(stream, offset + 8, min(len(stream), offset + 8 + length)):
        if atom == _NOTES_ATOM and stop - data >= 4:
            return struct.unpack_from("<I", stream, data)[0]
    return None


def _lines(text: str) -> list[str]:
    lines = (" ".join(line.split()) for line in text.replace("\x0b", "\r").split("\r"))
    return [line for line in lines if line and line != "*"]


def _slide_markdown(number: int, slide: _Slide) -> str:
    parts = [f"<!-- Slide number: {number} -->"]
    texts: dict[str, tuple[int, str, Anchor | None]] = {}
    for kind, text, anchor in slide.texts:
        key = " ".join(text.split())
        if not key or key == "*":  # a placeholder field
            continue
        if key not in texts or texts[key][2] is None:  # text both lists hold: placed by its shape
            texts[key] = (kind, text, anchor if key not in texts or anchor is not None else texts[key][2])
    body: list[tuple[str, Anchor | None]] = []
    for kind, text, anchor in texts.values():
        if kind in _TITLES:
            parts.append(f"# {' '.join(_lines(text))}")
        else:
            body.append(("\n".join(_lines(text)), anchor))
    text = "\n".join(parts)
    if body:
        # Each box a paragraph, by the slide's geometry as a PPTX's (pptx_order.py) where every
        # box has its place; else in the order the file holds them.
        places = [anchor for _, anchor in body]
        if all(place is not None for place in places):
            order = by_position([Placed(top, left, None, right - left, bottom - top)
                                 for top, left, bottom, right in (place for place in places if place is not None)])
            body = [body[at] for at in order]
        text += "\n\n" + "\n\n".join(written for written, _ in body if written)
    notes = [line for note in slide.notes for line in _lines(note)]
    if notes:
        text += "\n\n### Notes:\n" + "\n".join(notes)
    return text
