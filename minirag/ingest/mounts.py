"""Roots left behind by an unmounted drive: an empty folder, the mount point, on another filesystem
than the one their documents were last synced from.

A sync reading such a root would find no documents and delete every one it held, and the drive
mounted again would have each of them converted and embedded anew. Each full sync records the
filesystem (st_dev) each root it read was on; a root found empty on another one is not read, and
what it held stays indexed, said once a pass. A folder emptied on its own filesystem is read as
it is: its documents are gone.

The same holds for a drive mounted on a folder inside a root (a NAS share at docs/share): a full
sync records each such folder that holds documents (its filesystem differs from the folder above
it), and one found empty on another filesystem later is left out the same way. Its record lasts
while it holds a drive or is left by one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from minirag import json_text
from minirag.display import printable
from minirag.security import is_under, outer_roots_of
from minirag.store.index import Index

META_ROOT_DEVICES = "root_devices"  # {root or drive folder: st_dev} of each when a full sync last read it


def recorded_devices(index: Index) -> dict[str, int]:
    try:
        value = json_text.loads(index.meta(META_ROOT_DEVICES) or "{}")
    except ValueError:  # json_text: one nested too deeply too (a RecursionError from json.loads)
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(root): dev for root, dev in value.items() if isinstance(dev, int)}


def _device(root: Path | str) -> int | None:
    try:
        return os.stat(root).st_dev
    except OSError:
        return None


def _empty(root: Path) -> bool:
    try:
        with os.scandir(root) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _under_a_root(path: str, roots: Sequence[Path]) -> bool:
    return bool(outer_roots_of(path, roots))


def left_by_a_drive(roots: Sequence[Path], recorded: dict[str, int]) -> list[str]:
    """The roots, and the recorded drive folders inside them, that are an empty folder on another
    filesystem than when last synced."""
    roots = tuple(roots)
    places = [str(root) for root in roots] + [path for path in recorded if _under_a_root(path, roots)]
    return [place for place in dict.fromkeys(places)
            if place in recorded and _device(Path(place)) not in (None, recorded[place]) and _empty(Path(place))]


def drive_folders(sources: Iterable[str], roots: Sequence[Path]) -> dict[str, int]:
    """{folder: st_dev} of the folders inside `roots` on another filesystem than the folder above them
    (a drive mounted there) that hold, at any depth, one of `sources` (the documents a walk found,
    spelled as a sync stores them: absolute, plain). One stat per folder holding documents: each file
    climbs only to the first folder seen before."""
    roots = tuple(roots)
    tops = {str(root) for root in roots}
    folders: set[str] = set()
    for source in sources:
        folder = _parent(source)
        while folder not in folders and folder not in tops:
            if folder == os.sep or not _under_a_root(folder, roots):
                break
            folders.add(folder)
            folder = _parent(folder)
    devices = {folder: device for folder in [*tops, *folders] if (device := _device(folder)) is not None}
    return {folder: devices[folder] for folder in folders
            if folder in devices and devices.get(_parent(folder), devices[folder]) != devices[folder]}


def _parent(path: str) -> str:
    """os.path.dirname of a plain absolute path, at a fraction of its cost (it runs once per document)."""
    return path.rpartition(os.sep)[0] or os.sep


def record_devices(index: Index, roots: Iterable[Path], recorded: dict[str, int],
                   drives: dict[str, int] | None = None, kept: Sequence[str] = ()) -> None:
    """Record the filesystem of each of `roots` (those a full sync read) and of the drive folders found
    inside them (`drives`, drive_folders). A drive folder recorded before under one of those roots is
    forgotten unless it still holds a drive or is in `kept` (left by one, or not read this time)."""
    read = tuple(roots)
    now = {str(root): dev for root in read if (dev := _device(root)) is not None}
    still = {path: dev for path, dev in recorded.items()
             if not _under_a_root(path, read) or any(is_under(path, place, os.sep) for place in kept)}
    record = still | now | (drives or {})
    if record != recorded:
        index.set_meta(META_ROOT_DEVICES, json.dumps(record))


def unmounted_warning(place: str, roots: Sequence[Path] = ()) -> str:
    drop = ("remove the empty folder and sync" if _under_a_root(place, roots)
            else "remove the root from the configuration and sync")
    return (f"{printable(place)}: an empty folder on another filesystem than at the last sync (a drive unmounted?); "
            f"what it held stays indexed until the drive is back (to drop it, {drop})")
